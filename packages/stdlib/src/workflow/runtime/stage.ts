/**
 * Model stages of the workflow runtime (spec/workflows.md §1.6): the
 * stage prompt, one `llm_call` or an `agent_loop`, verify commands and
 * checks, the outcome/branch rules and the stage artifact. The model is
 * reached through the `llm_call` / `agent_loop` builtins, so a stage
 * behaves exactly as the same call written in a script (mock, sessions,
 * skills, tool search, policies).
 */
import { display, HarnError, HDict, isPromise, float, type CallContext, type Value } from "@harn/vm";
import { uuidV7 } from "../../core/encoding";
import { spawnCaptured } from "../../core/process";
import { normalizeArtifact } from "../artifacts/record";
import { parseContextPolicy, renderArtifacts, selectArtifacts } from "../artifacts/select";
import { RESPONSE_CONTRACT } from "../../std/context";
import { shareSkillContext } from "../../agent/loop/skills";

export const str = (v: Value): string | null => (typeof v === "string" ? v : null);
export const dict = (v: Value): HDict => (v instanceof HDict ? v : HDict.empty());
export const list = (v: Value): Value[] => (Array.isArray(v) ? v : []);

/** What executing one node produced (the stage record is built from it). */
export interface NodeResult {
  status: string;
  outcome: string;
  branch: string;
  text: string;
  artifacts: HDict[];
  transcript: Value;
  verification: Value;
  usage: Value;
  consumed: string[];
  /** Stage metadata produced by the execution (prompt, worker, error, …). */
  meta: Record<string, Value>;
  /** A worker result artifact for subagent nodes. */
  kind?: string;
}

/** Per-run settings every stage sees. */
export interface StageEnv {
  ctx: CallContext;
  task: string;
  /** Run options (per-run node overrides, skills). */
  options: HDict;
  /** The graph, for the verification contracts of successor verify nodes. */
  graph: HDict;
}

export async function callBuiltin(ctx: CallContext, name: string, args: Value[]): Promise<Value> {
  const fn = ctx.runtime.builtins.get(name);
  if (!fn) throw HarnError.undefinedBuiltin(name);
  const r = fn(args, ctx);
  return isPromise<Value>(r) ? await r : r;
}

/** The node's selected artifacts (its `context_policy`). */
export function selectFor(node: HDict, artifacts: readonly HDict[]): HDict[] {
  return selectArtifacts(artifacts, parseContextPolicy(node.get("context_policy")));
}

export function firstOutputKind(node: HDict, fallback: string): string {
  const kinds = list(dict(node.get("output_contract")).get("output_kinds"));
  return str(kinds[0] ?? null) ?? fallback;
}

/** The verify checks of a `verify` value: `assert_text`, `expect_text`
 * and `expect_status` ([TS decision] `expect_text` is checked like
 * `assert_text`). */
function verifyChecks(v: Value): HDict[] {
  const d = dict(v);
  const out: HDict[] = [];
  for (const key of ["assert_text", "expect_text"]) {
    const s = str(d.get(key));
    if (s !== null && s !== "") out.push(HDict.of({ kind: key, expected: s }));
  }
  const status = d.get("expect_status");
  if (typeof status === "number") out.push(HDict.of({ kind: "expect_status", expected: status }));
  return out;
}

/** §1.6 Verification: `{kind: "none", ok: true}` without checks, else the
 * composite of each check. */
export function verify(v: Value, visible: string, exitStatus: number | null): HDict {
  const checks = verifyChecks(v);
  if (checks.length === 0) return HDict.of({ kind: "none", ok: true });
  const results = checks.map((c) => {
    const expected = c.get("expected");
    if (c.get("kind") === "expect_status") {
      return HDict.of({ kind: "expect_status", ok: exitStatus === expected, expected, actual: exitStatus });
    }
    return HDict.of({ kind: c.get("kind"), ok: visible.includes(expected as string), expected });
  });
  return HDict.of({ kind: "composite", ok: results.every((r) => r.get("ok") === true), checks: results });
}

/** [TS decision] The `<workflow_verification>` body: one line per check of
 * the node's own `verify` value and of the verify nodes it leads to, so a
 * stage knows what will be checked. */
function verificationContracts(env: StageEnv, node: HDict): string[] {
  const id = node.get("id");
  const sources: HDict[] = [node];
  const nodes = dict(env.graph.get("nodes"));
  for (const e of list(env.graph.get("edges"))) {
    if (!(e instanceof HDict) || e.get("from") !== id) continue;
    const target = nodes.get(str(e.get("to")) ?? "");
    if (target instanceof HDict && target.get("kind") === "verify" && node.get("kind") !== "verify") sources.push(target);
  }
  const lines: string[] = [];
  for (const n of sources) {
    const v = dict(n.get("verify"));
    const cmd = str(v.get("command"));
    if (cmd !== null && cmd !== "") lines.push(`- command: ${cmd}`);
    for (const c of verifyChecks(v)) {
      const kind = c.get("kind");
      const expected = c.get("expected");
      lines.push(kind === "expect_status" ? `- exit status: ${display(expected)}` : `- output contains: ${display(expected)}`);
    }
  }
  return lines;
}

/** The stage prompt of §1.6. */
export function stagePrompt(label: string, instructions: string, contracts: string[], rendered: string): string {
  const parts = [`<workflow_task>\n<label>${label}</label>\n<instructions>\n${instructions.trim()}\n</instructions>\n</workflow_task>`];
  if (contracts.length > 0) parts.push(`<workflow_verification>\n${contracts.join("\n")}\n</workflow_verification>`);
  if (rendered !== "") parts.push(`<workflow_context>\n${rendered}\n</workflow_context>`);
  parts.push(`<workflow_response_contract>\n${RESPONSE_CONTRACT}\n</workflow_response_contract>`);
  return parts.join("\n\n");
}

const MODEL_KEYS = ["provider", "model", "model_tier", "temperature", "max_tokens"];

/** The node's model policy with the run's per-run overrides (§1.7). */
function modelPolicy(env: StageEnv, node: HDict): HDict {
  let mp = dict(node.get("model_policy"));
  for (const k of [...MODEL_KEYS, "tool_format", "max_iterations", "max_nudges", "session_id"]) {
    if (env.options.has(k) && env.options.get(k) !== null) mp = mp.with(k, env.options.get(k));
  }
  return mp;
}

/** A tool result message: native (`role: "tool"`, Anthropic's
 * `tool_result` blocks) or the text contract's runtime feedback. */
function isToolResult(m: Value): boolean {
  if (!(m instanceof HDict)) return false;
  if (m.get("role") === "tool" || m.get("role") === "tool_result") return true;
  const c = m.get("content");
  if (typeof c === "string") return m.get("role") === "user" && c.startsWith('<runtime_feedback kind="tool_results">');
  return Array.isArray(c) && c.some((b) => b instanceof HDict && b.get("type") === "tool_result");
}

/** Drop tool results and non-public events (`output_visibility` public). */
function redacted(t: Value): Value {
  if (!(t instanceof HDict)) return t;
  const messages = list(t.get("messages")).filter((m) => !isToolResult(m));
  const events = list(t.get("events")).filter((e) => !(e instanceof HDict) || e.get("visibility") === null || e.get("visibility") === "public");
  return t.with("messages", messages).with("events", events);
}

function usageOf(r: HDict): HDict {
  const u = dict(r.get("usage"));
  const input = r.get("input_tokens") ?? u.get("input_tokens") ?? 0;
  const output = r.get("output_tokens") ?? u.get("output_tokens") ?? 0;
  const model = str(r.get("model"));
  return HDict.of({
    input_tokens: typeof input === "number" ? input : 0,
    output_tokens: typeof output === "number" ? output : 0,
    total_duration_ms: 0,
    call_count: 1,
    total_cost: float(0),
    models: model === null ? [] : [model],
  });
}

/** Input-contract errors (§1.6), thrown as runtime errors the caller
 * records as a failed stage. */
async function checkInputContract(env: StageEnv, node: HDict, selected: number, sessionId: string | null): Promise<void> {
  const id = display(node.get("id"));
  const c = dict(node.get("input_contract"));
  const min = c.get("min_inputs");
  const max = c.get("max_inputs");
  if (typeof min === "number" && selected < min) throw HarnError.runtime(`workflow stage ${id} requires at least ${min} input artifacts`);
  if (typeof max === "number" && selected > max) throw HarnError.runtime(`workflow stage ${id} accepts at most ${max} input artifacts`);
  if (c.get("require_transcript") === true) {
    const exists = sessionId !== null && (await callBuiltin(env.ctx, "agent_session_exists", [sessionId])) === true;
    if (!exists) {
      throw HarnError.runtime(
        `workflow stage ${id} requires an existing session (call agent_session_open and feed session_id through model_policy before entering this stage)`,
      );
    }
  }
}

/** Run a `stage`/`verify` (or any model-stage kind) node. */
export async function runModelStage(env: StageEnv, node: HDict, artifacts: readonly HDict[], task: string): Promise<NodeResult> {
  const rt = env.ctx.runtime;
  const id = display(node.get("id"));
  const kind = str(node.get("kind")) ?? "stage";
  const policy = parseContextPolicy(node.get("context_policy"));
  const selected = selectArtifacts(artifacts, policy);
  const consumed = selected.map((a) => display(a.get("id")));
  const mp = modelPolicy(env, node);
  const givenSession = str(mp.get("session_id"));
  await checkInputContract(env, node, selected.length, givenSession);
  const rendered = renderArtifacts(selected, policy.render);
  const contracts = verificationContracts(env, node);
  const prompt = str(node.get("prompt"));
  const instructions = prompt !== null && prompt.trim() !== "" ? `${prompt.trim()}\n\n${task.trim()}` : task;
  const label = str(node.get("task_label")) ?? "Task";
  const fullPrompt = stagePrompt(label, instructions, contracts, rendered);
  const system = str(node.get("system"));
  const meta: Record<string, Value> = {
    prompt: fullPrompt,
    system_prompt: system,
    rendered_context: rendered,
    selected_artifact_ids: consumed,
    selected_artifact_titles: selected.map((a) => a.get("title")),
  };
  if (contracts.length > 0) {
    meta.verification_contracts = contracts;
    meta.rendered_verification_context = contracts.join("\n");
  }

  let result: HDict;
  let exitStatus: number | null = null;
  let mode = "none";
  const verifySpec = dict(node.get("verify"));
  const command = str(verifySpec.get("command"));
  if (kind === "verify") {
    if (command !== null && command !== "") {
      const r = await spawnCaptured("/bin/sh", ["-lc", command], { cwd: rt.cwd }, env.ctx);
      exitStatus = r.exitCode ?? -1;
      const text = [r.stdout, r.stderr].filter((s) => s !== "").join("\n");
      result = HDict.of({ status: "completed", text, visible_text: text, command, stdout: r.stdout, stderr: r.stderr, exit_status: exitStatus, success: exitStatus === 0 });
    } else {
      result = HDict.of({ status: "completed", text: "", visible_text: "" });
    }
  } else {
    const sessionId = givenSession ?? `workflow_stage_${uuidV7(rt)}`;
    let opts = HDict.of({ session_id: sessionId });
    for (const k of MODEL_KEYS) if (mp.get(k) !== null) opts = opts.with(k, mp.get(k));
    const skills = mp.get("skills") ?? env.options.get("skills");
    const skillMatch = mp.get("skill_match") ?? env.options.get("skill_match");
    const tools = node.get("tools");
    const agent = node.get("mode") === "agent" || tools !== null;
    // A named session (shared across stages) lives in the agent-session
    // store, which llm_call does not use: such stages run a one-turn loop.
    if (agent || skills !== null || givenSession !== null) {
      mode = agent ? "agent" : "llm";
      opts = opts.with("persistent", agent);
      opts = opts.with("max_iterations", mp.get("max_iterations") ?? 16).with("max_nudges", mp.get("max_nudges") ?? 3);
      if (tools !== null) opts = opts.with("tools", tools);
      const fmt = str(mp.get("tool_format")) ?? rt.env.HARN_AGENT_TOOL_FORMAT ?? null;
      if (fmt !== null) opts = opts.with("tool_format", fmt);
      const sentinel = str(node.get("done_sentinel"));
      if (sentinel !== null) opts = opts.with("done_sentinel", sentinel);
      const cap = dict(node.get("capability_policy"));
      if (list(cap.get("tools")).length > 0 || dict(cap.get("capabilities")).size > 0) opts = opts.with("policy", cap);
      if (skills !== null) opts = opts.with("skills", skills);
      if (skillMatch !== null) opts = opts.with("skill_match", skillMatch);
      for (const k of ["permissions", "command_policy", "post_turn_callback", "nudge", "turn_policy"]) {
        if (mp.has(k) && mp.get(k) !== null) opts = opts.with(k, mp.get(k));
      }
      // Loops nested in this stage (a handler's sub_agent_run) inherit its
      // skills (§2.7).
      const unshare = skills !== null ? shareSkillContext(rt, sessionId, skills, skillMatch) : () => {};
      try {
        result = dict(await callBuiltin(env.ctx, "agent_loop", [fullPrompt, system, opts]));
      } finally {
        unshare();
      }
      if (mode === "llm" && result.get("status") === "done") result = result.with("status", "completed");
    } else {
      mode = "llm";
      result = dict(await callBuiltin(env.ctx, "llm_call", [fullPrompt, system, opts]));
      result = result.with("status", "completed");
    }
    meta.tool_calling_mode = mode;
  }
  const text = str(result.get("visible_text")) ?? str(result.get("text")) ?? "";
  // [TS decision] A verify node without a command checks the texts of the
  // artifacts it selected (the output it verifies), not its own empty text.
  const checked = kind === "verify" && (command === null || command === "") ? selected.map((a) => str(a.get("text")) ?? "").join("\n") : text;
  const verification = verify(node.get("verify"), checked, exitStatus);
  let outcome: string;
  let branch: string;
  if (kind === "verify") {
    const ok = verification.get("ok") === true;
    outcome = ok ? "verified" : "verification_failed";
    branch = ok ? "passed" : "failed";
  } else {
    const status = str(result.get("status")) ?? "completed";
    const ok = status === "done" || status === "completed";
    outcome = ok ? "success" : status;
    branch = ok ? "success" : "failed";
  }
  let transcript = result.get("transcript") ?? null;
  const vis = node.get("output_visibility");
  if (vis === "public" || vis === "public_only") transcript = redacted(transcript);
  const data = result
    .without("transcript")
    .with("prompt", fullPrompt)
    .with("system_prompt", system)
    .with("rendered_context", rendered)
    .with("selected_artifact_ids", consumed)
    .with("selected_artifact_titles", meta.selected_artifact_titles!)
    .with("tools", HDict.of({ mode }));
  const artifact = normalizeArtifact(
    rt,
    HDict.of({
      kind: firstOutputKind(node, "artifact"),
      title: `stage ${id} output`,
      text,
      data,
      source: id,
      stage: id,
      freshness: "fresh",
      relevance: float(1),
      lineage: consumed,
      metadata: HDict.of({ input_artifact_ids: consumed, node_kind: kind }),
    }),
  );
  const failed = branch === "failed";
  if (failed) meta.error = "verification failed";
  return {
    status: failed ? "failed" : "completed",
    outcome,
    branch,
    text,
    artifacts: [artifact],
    transcript,
    verification,
    usage: kind === "verify" ? null : usageOf(result),
    consumed,
    meta,
  };
}
