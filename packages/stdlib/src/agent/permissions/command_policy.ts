/**
 * Command policies (spec/agents-surface.md §5.3): rules and hooks every
 * `host_call("process.exec", …)` passes while a policy is in force,
 * pushed for the whole script (`command_policy_push`) or for one agent
 * loop (its `command_policy` option, carried by the loop's governance so
 * tool handlers running commands inside it find it through their session).
 * The gate is installed on the host's process.exec (core/host.ts
 * `PROCESS_EXEC_GATE`) when this module loads: a script without a policy
 * never gets here.
 */
import { display, float, HarnError, HClosure, HBuiltinRef, HDict, isInt, isPromise, RuntimeSlot, typeOf, type CallContext, type Runtime, type Value } from "@harn/vm";
import { PROCESS_EXEC_GATE } from "../../core/host";
import { resolvePath } from "../../core/paths";
import { nodeCrypto } from "../../core/node-builtins";
import { longRunState } from "../../longrun/state";
import { glob } from "../../llm/catalog";
import { builtinModule } from "../../registry/define";
import { riskScan, resultScan, type Scan } from "./command_scan";
import { governanceOf, policyDict } from "./policy";

interface PolicyState {
  stack: HDict[];
  /** Hooks running now (a command they start is a recursive one). */
  hookDepth: number;
}

const POLICIES = new RuntimeSlot<PolicyState>("agent.command_policies", () => ({ stack: [], hookDepth: 0 }));

const LIST_FIELDS = ["workspace_roots", "deny_patterns", "require_approval"] as const;
const REWRITABLE = new Set(["mode", "argv", "command", "shell", "cwd", "env", "env_mode", "stdin", "timeout", "timeout_ms", "capture", "capture_stderr", "max_inline_bytes"]);

function isCallable(v: Value): boolean {
  return v instanceof HClosure || v instanceof HBuiltinRef;
}

/** `command_policy(config)`'s normal form; `who` prefixes the errors. */
export function normalizePolicy(v: Value | undefined, who: string): HDict {
  if (v === undefined || v === null) throw HarnError.runtime(`${who}: config dict is required`);
  if (!(v instanceof HDict)) throw HarnError.runtime(`${who}: config must be a dict`);
  const out = new Map(v.map);
  out.set("_type", "command_policy");
  const mode = v.get("default_shell_mode");
  if (mode !== null && typeof mode !== "string") throw HarnError.runtime(`${who}: default_shell_mode must be a string`);
  out.set("default_shell_mode", mode ?? "argv_only");
  for (const key of LIST_FIELDS) {
    const list = v.get(key);
    if (list !== null && !(Array.isArray(list) && list.every((x) => typeof x === "string"))) throw HarnError.runtime(`${who}: ${key} must be a list of strings`);
    out.set(key, list ?? []);
  }
  for (const key of ["pre", "post"]) {
    const hook = v.get(key);
    if (hook !== null && !isCallable(hook)) throw HarnError.runtime(`${who}: ${key} must be a closure`);
  }
  const rec = v.get("allow_recursive");
  if (rec !== null && typeof rec !== "boolean") throw HarnError.runtime(`${who}: allow_recursive must be a bool`);
  return new HDict(out);
}

/** The policy that governs a command started from `ctx`: the enclosing
 * loop's, else the innermost pushed one. */
function policyFor(ctx: CallContext): HDict | null {
  const st = ctx.runtime.slot(POLICIES);
  return governanceOf(ctx.runtime, ctx.sessionId).commandPolicy ?? st.stack[st.stack.length - 1] ?? null;
}

function sha256(text: string): string {
  return nodeCrypto().createHash("sha256").update(text).digest("hex");
}

function strings(v: Value): string[] {
  return Array.isArray(v) ? v.map((x) => display(x)) : [];
}

/** The request as hooks see it: env values and stdin only as hashes. */
function requestDict(p: HDict): HDict {
  const env = p.get("env");
  const stdin = p.get("stdin");
  const timeout = p.get("timeout_ms") ?? p.get("timeout");
  return HDict.of({
    mode: p.has("mode") ? display(p.get("mode")) : "shell",
    argv: Array.isArray(p.get("argv")) ? strings(p.get("argv")) : null,
    command: p.get("command") === null ? null : display(p.get("command")),
    shell: p.get("shell") ?? p.get("shell_id"),
    cwd: p.get("cwd"),
    env_diff:
      env instanceof HDict
        ? HDict.from([...env.map].map(([k, val]): [string, Value] => [k, HDict.of({ present: true, redacted: true, value_sha256: sha256(display(val)) })]))
        : HDict.empty(),
    env_mode: p.has("env_mode") ? display(p.get("env_mode")) : "inherit",
    stdin: stdin === null ? null : HDict.of({ size: Buffer.byteLength(display(stdin)), sha256: sha256(display(stdin)) }),
    timeout_ms: isInt(timeout) ? timeout : null,
  });
}

function commandText(request: HDict): string {
  const argv = request.get("argv");
  return Array.isArray(argv) && argv.length > 0 ? strings(argv).join(" ") : request.get("command") === null ? "" : display(request.get("command"));
}

function contextDict(ctx: CallContext, policy: HDict, params: HDict): HDict {
  const rt = ctx.runtime;
  const cwd = params.get("cwd");
  const roots = strings(policy.get("workspace_roots"));
  const ceiling = governanceOf(rt, ctx.sessionId).policy;
  return HDict.of({
    request: requestDict(params),
    active_cwd: cwd === null ? rt.cwd : resolvePath(rt, display(cwd)),
    workspace_roots: roots.length > 0 ? roots : [rt.env.HARN_PROJECT_ROOT ?? rt.cwd],
    policy: HDict.of({
      default_shell_mode: policy.get("default_shell_mode"),
      deny_patterns: policy.get("deny_patterns"),
      require_approval: policy.get("require_approval"),
      ceiling: ceiling === null ? null : policyDict(ceiling),
    }),
    tool_annotations: policy.get("tool_annotations"),
    transcript: HDict.of({ summary: null, recent_messages: [], redacted: true }),
    caller: HDict.of({ session_id: ctx.sessionId || null }),
  });
}

/** Rust's `{:?}` of a string. */
function debugQuoted(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")}"`;
}

function denyMatch(patterns: readonly string[], text: string): string | undefined {
  return patterns.find((p) => (p.includes("*") ? glob(p, text) : text.includes(p)));
}

/** The scan of a context dict (`command_risk_scan(ctx)` and the gate). */
function scanContext(c: HDict): Scan {
  const request = c.get("request") instanceof HDict ? (c.get("request") as HDict) : c;
  const text = commandText(request);
  const policy = c.get("policy") instanceof HDict ? (c.get("policy") as HDict) : HDict.empty();
  const denied = denyMatch(strings(policy.get("deny_patterns")), text);
  const cwd = c.get("active_cwd");
  return riskScan(text, typeof cwd === "string" ? cwd : null, strings(c.get("workspace_roots")), denied === undefined ? [] : [["deny_pattern", denied]]);
}

function scanDict(s: Scan): HDict {
  return HDict.of({ action: s.action, recommended_action: s.action, risk_labels: [...s.labels], confidence: float(s.confidence), rationale: s.rationale });
}

function decision(action: string, reason: string, source: string, scan: Scan, display: Value = null): HDict {
  return HDict.of({ action, reason, source, risk_labels: [...scan.labels], confidence: float(scan.confidence), display });
}

interface Verdict {
  status: "blocked" | "dry_run" | "explain_only";
  reason: string;
}

/** Steps 4–5: deny patterns, then risk classes that need approval. */
function ruleVerdict(policy: HDict, c: HDict, scan: Scan, prefix: string, decisions: HDict[]): Verdict | null {
  const denied = denyMatch(strings(policy.get("deny_patterns")), commandText(c.get("request") as HDict));
  if (denied !== undefined) {
    const reason = `${prefix}command denied by policy pattern ${debugQuoted(denied)}`;
    decisions.push(decision("deny", reason, "deny_pattern", scan));
    return { status: "blocked", reason };
  }
  const needs = strings(policy.get("require_approval"));
  const label = scan.labels.find((l) => needs.includes(l));
  if (label !== undefined) {
    const reason = `${prefix}command requires approval for risk class ${label}`;
    decisions.push(decision("require_approval", reason, "require_approval", scan));
    return { status: "blocked", reason };
  }
  return null;
}

async function callHook(ctx: CallContext, hook: Value, arg: Value): Promise<Value> {
  const st = ctx.runtime.slot(POLICIES);
  st.hookDepth++;
  try {
    const r = ctx.call(hook, [arg]);
    return isPromise<Value>(r) ? await r : r;
  } finally {
    st.hookDepth--;
  }
}

function textOf(d: HDict, ...keys: string[]): string | null {
  for (const k of keys) {
    const v = d.get(k);
    if (v !== null && v !== true) return display(v);
  }
  return null;
}

type PreOutcome = { verdict: Verdict } | { rewrite: HDict } | null;

/** Step 6: what the `pre` hook's answer means. */
function preOutcome(answer: Value, scan: Scan, decisions: HDict[]): PreOutcome {
  if (answer === null || answer === "allow") {
    decisions.push(decision("allow", "pre-hook allowed the command", "pre_hook", scan));
    return null;
  }
  if (!(answer instanceof HDict)) {
    throw HarnError.runtime(`command policy pre-hook must return nil, 'allow', or a decision dict, got ${typeOf(answer)}`);
  }
  const action = answer.get("action");
  const shown = answer.get("display");
  const block = (status: Verdict["status"], act: string, reason: string): PreOutcome => {
    decisions.push(decision(act, reason, "pre_hook", scan, shown));
    return { verdict: { status, reason } };
  };
  if (answer.has("deny") || action === "deny") {
    return block("blocked", "deny", textOf(answer, "deny", "message", "reason") ?? "command denied by policy pre-hook");
  }
  if (answer.has("require_approval") || action === "require_approval") {
    return block("blocked", "require_approval", textOf(answer, "reason", "message", "require_approval") ?? "command requires approval");
  }
  if (answer.get("dry_run") === true || action === "dry_run") {
    return block("dry_run", "dry_run", textOf(answer, "reason", "message") ?? "command policy asked for a dry run; the command was not run");
  }
  if (answer.get("explain_only") === true || action === "explain_only") {
    return block("explain_only", "explain_only", textOf(answer, "reason", "message") ?? "command policy asked for an explanation only; the command was not run");
  }
  const rewrite = answer.get("rewrite") ?? answer.get("request");
  if (rewrite instanceof HDict) {
    for (const k of rewrite.keys()) if (!REWRITABLE.has(k)) throw HarnError.runtime(`command policy rewrite cannot modify field "${k}"`);
    decisions.push(decision("rewrite", textOf(answer, "reason", "message") ?? "pre-hook rewrote the request", "pre_hook", scan, shown));
    return { rewrite };
  }
  decisions.push(decision("allow", textOf(answer, "reason", "message") ?? "pre-hook allowed the command", "pre_hook", scan, shown));
  return null;
}

function blockedResult(verdict: Verdict, c: HDict, decisions: HDict[]): HDict {
  const id = `cmd_blocked_policy_${nodeCrypto().randomUUID()}`;
  const now = new Date().toISOString();
  return HDict.from([
    ["command_id", id],
    ["status", verdict.status],
    ["pid", null],
    ["process_group_id", null],
    ["handle_id", null],
    ["started_at", now],
    ["ended_at", now],
    ["duration_ms", 0],
    ["exit_code", -1],
    ["signal", null],
    ["timed_out", false],
    ["stdout", ""],
    ["stderr", verdict.reason],
    ["combined", verdict.reason],
    ["exit_status", -1],
    ["legacy_status", -1],
    ["success", false],
    ["error", "permission_denied"],
    ["reason", verdict.reason],
    ["audit_id", `audit_${id}`],
    ["request", c.get("request")],
    ["command_policy", HDict.of({ context: c, decisions })],
  ]);
}

/** Post-flight: the `post` hook sees the result and its scan. */
async function postFlight(ctx: CallContext, policy: HDict, c: HDict, result: HDict, decisions: HDict[]): Promise<{ result: HDict; annotation: Value }> {
  const post = policy.get("post");
  if (post === null) return { result, annotation: null };
  const out = `${display(result.get("stdout") ?? "")}${display(result.get("stderr") ?? "")}`;
  const postScan = resultScan(out);
  const arg = new HDict(new Map([...c.map, ["result", result], ["post_scan", scanDict(postScan)]]));
  const answer = await callHook(ctx, post, arg);
  if (answer === null) return { result, annotation: null };
  if (!(answer instanceof HDict)) throw HarnError.runtime(`command policy post-hook must return nil or a dict, got ${typeOf(answer)}`);
  const replaced = answer.get("result");
  const feedback = answer.get("feedback");
  if (feedback instanceof HDict) {
    const session = textOf(feedback, "session_id") ?? ctx.sessionId ?? "";
    longRunState(ctx.runtime).inject(session, textOf(feedback, "kind") ?? "command_policy", textOf(feedback, "content") ?? "");
  }
  const annotated = answer.has("unsafe") || answer.has("annotations") || answer.has("audit");
  decisions.push(decision(replaced instanceof HDict ? "replace_result" : annotated ? "annotate" : "allow", postScan.rationale, "post_hook", postScan));
  return { result: replaced instanceof HDict ? replaced : result, annotation: annotated ? answer : null };
}

function withPolicy(result: Value, c: HDict, decisions: HDict[], annotation: Value): Value {
  if (!(result instanceof HDict)) return result;
  const record = new Map<string, Value>([["context", c], ["decisions", decisions]]);
  if (annotation !== null) record.set("annotation", annotation);
  return new HDict(new Map([...result.map, ["command_policy", new HDict(record)]]));
}

/** The process.exec gate: steps 1–7 before the command, post-flight after. */
async function policeExec(params: HDict, ctx: CallContext, run: (p: HDict) => Value | Promise<Value>): Promise<Value> {
  const policy = policyFor(ctx);
  if (policy === null) return run(params);
  const st = ctx.runtime.slot(POLICIES);
  let c = contextDict(ctx, policy, params);
  const decisions: HDict[] = [];
  if (st.hookDepth > 0 && policy.get("allow_recursive") !== true) {
    const reason = "command policy hooks cannot recursively call process.exec";
    decisions.push(decision("deny", reason, "recursion_guard", scanContext(c)));
    return blockedResult({ status: "blocked", reason }, c, decisions);
  }
  let scan = scanContext(c);
  decisions.push(decision(scan.action, scan.rationale, "risk_scan", scan));
  let verdict = ruleVerdict(policy, c, scan, "", decisions);
  if (verdict !== null) return blockedResult(verdict, c, decisions);
  const pre = policy.get("pre");
  if (pre !== null) {
    const outcome = preOutcome(await callHook(ctx, pre, c), scan, decisions);
    if (outcome !== null && "verdict" in outcome) return blockedResult(outcome.verdict, c, decisions);
    if (outcome !== null) {
      params = new HDict(new Map([...params.map, ...outcome.rewrite.map]));
      c = contextDict(ctx, policy, params);
      scan = scanContext(c);
      verdict = ruleVerdict(policy, c, scan, "rewritten ", decisions);
      if (verdict !== null) return blockedResult(verdict, c, decisions);
    }
  }
  const ran = run(params);
  const result = isPromise<Value>(ran) ? await ran : ran;
  if (!(result instanceof HDict)) return result;
  const post = await postFlight(ctx, policy, c, result, decisions);
  return withPolicy(post.result, c, decisions, post.annotation);
}

function ctxArg(args: Value[], name: string): HDict {
  const c = args[0];
  if (c === undefined || c === null) throw HarnError.runtime(`${name}: ctx is required`);
  if (!(c instanceof HDict)) throw HarnError.runtime(`${name}: ctx must be a dict`);
  return c;
}

const LLM_OPTION_TEXT_MAX = 200;

function truncated(v: Value): Value {
  if (typeof v === "string") return [...v].length > LLM_OPTION_TEXT_MAX ? `${[...v].slice(0, LLM_OPTION_TEXT_MAX).join("")}…` : v;
  if (v instanceof HDict) return HDict.from([...v.map].map(([k, x]): [string, Value] => [k, truncated(x)]));
  if (Array.isArray(v)) return v.map(truncated);
  return v;
}

export const COMMAND_POLICY_BUILTINS = builtinModule("agent/permissions/command_policy", (def, rt: Runtime) => {
  rt.slot(PROCESS_EXEC_GATE).gate = policeExec;
  def("command_policy", (args) => normalizePolicy(args[0], "command_policy"));
  def("command_policy_push", (args, ctx) => {
    const p = args[0];
    if (p === undefined || p === null) throw HarnError.runtime("command_policy_push: policy is required");
    if (!(p instanceof HDict)) throw HarnError.runtime("command_policy_push: command_policy must be a dict");
    ctx.runtime.slot(POLICIES).stack.push(normalizePolicy(p, "command_policy_push"));
    return null;
  });
  def("command_policy_pop", (_args, ctx) => {
    ctx.runtime.slot(POLICIES).stack.pop();
    return null;
  });
  def("command_risk_scan", (args) => scanDict(scanContext(ctxArg(args, "command_risk_scan"))));
  def("command_result_scan", (args) => {
    const c = ctxArg(args, "command_result_scan");
    const r = c.get("result") instanceof HDict ? (c.get("result") as HDict) : c;
    return scanDict(resultScan(`${display(r.get("stdout") ?? "")}${display(r.get("stderr") ?? "")}`));
  });
  def("command_llm_risk_scan", (args) => {
    // agents-surface.md §10 #12: no model is called (deterministic fallback)
    const scan = scanDict(scanContext(ctxArg(args, "command_llm_risk_scan")));
    const options = args[1] instanceof HDict ? truncated(args[1]) : HDict.empty();
    return new HDict(new Map([...scan.map, ["scan_kind", "deterministic_fallback"], ["llm", options]]));
  });
});

