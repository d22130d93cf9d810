/**
 * The human-in-the-loop builtins (spec/agents-surface.md §6.2–§6.6):
 * `ask_user`, `request_approval` (quorum), `dual_control`, `escalate_to`
 * and `hitl_pending`, over the request machinery of requests.ts.
 */
import { display, float, HarnError, HDict, HDuration, HFloat, isInt, isPromise, typeOf, type CallContext, type Runtime, type Value } from "@harn/vm";
import { nodeCrypto } from "../../core/node-builtins";
import { builtinModule } from "../../registry/define";
import { validate } from "../../schema/validate";
import { isCallback } from "../loop/compaction";
import { durationMs } from "../loop/options";
import { hitlPending } from "./pending";
import { terminalPrompter } from "./prompt";
import { ask, HitlCancelled, HitlTimeout, now, record, TOPICS, type HitlKind, type HitlRequest, type Resolver } from "./requests";

const DAY_MS = 24 * 60 * 60 * 1000;

function fail(message: string): HarnError {
  return HarnError.runtime(message);
}

function stringArg(builtin: string, v: Value | undefined, i: number): string {
  if (typeof v !== "string" || v === "") throw fail(`${builtin}: expected string argument at ${i}`);
  return v;
}

function optionsArg(builtin: string, v: Value | undefined): HDict {
  if (v === undefined || v === null) return HDict.empty();
  if (!(v instanceof HDict)) throw fail(`${builtin}: options must be a dict`);
  return v;
}

/** A duration or millisecond count (default when absent). */
function msOf(v: Value, fallback: number): number {
  if (v === null) return fallback;
  const ms = v instanceof HDuration || typeof v === "number" || v instanceof HFloat ? durationMs(v) : undefined;
  if (ms === undefined || ms < 0) throw fail("expected a duration or millisecond count");
  return ms;
}

function timeoutError(r: HitlRequest, what: string): HarnError {
  return HarnError.thrown(HDict.of({ name: "HumanTimeoutError", category: "timeout", message: `${what} timed out`, request_id: r.id, kind: r.kind }));
}

function cancelledError(r: HitlRequest, reason: string | null, what: string): HarnError {
  return HarnError.thrown(
    HDict.of({
      name: "HumanCancelledError",
      category: "cancelled",
      message: reason ?? `${what} cancelled`,
      request_id: r.id,
      kind: r.kind,
      wait_id: r.id,
      waitpoint_ids: [r.id],
      reason,
    }),
  );
}

interface Finished {
  r: HitlRequest;
  outcome: Value;
  ended: "ok" | "timeout" | "cancelled";
  reason: string | null;
}

/** Run a request; timeouts and cancellations come back as markers. */
async function run(ctx: CallContext, kind: HitlKind, payload: HDict, timeoutMs: number | null, resolve: Resolver): Promise<Finished> {
  try {
    const { request, outcome } = await ask(ctx, { kind, payload, timeoutMs, resolve, prompter: terminalPrompter });
    return { r: request, outcome, ended: "ok", reason: null };
  } catch (e) {
    if (e instanceof HitlTimeout) return { r: e.request, outcome: null, ended: "timeout", reason: null };
    if (e instanceof HitlCancelled) return { r: e.request, outcome: null, ended: "cancelled", reason: e.reason };
    throw e;
  }
}

// ---------------------------------------------------------------- ask_user

function numeric(s: string): number | null {
  const t = s.trim();
  if (t === "" || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  return Number(t);
}

/** §6.2: the answer coerced to the type of the default. */
function coerce(answer: Value, dflt: Value): Value {
  if (dflt === null) return answer;
  if (isInt(dflt)) {
    if (isInt(answer)) return answer;
    if (answer instanceof HFloat) return Math.trunc(answer.v);
    if (typeof answer === "string") {
      const n = numeric(answer);
      return n === null ? dflt : Math.trunc(n);
    }
    return dflt;
  }
  if (dflt instanceof HFloat) {
    if (answer instanceof HFloat) return answer;
    if (isInt(answer)) return float(Number(answer));
    if (typeof answer === "string") {
      const n = numeric(answer);
      return n === null ? dflt : float(n);
    }
    return dflt;
  }
  if (typeof dflt === "boolean") {
    if (typeof answer === "boolean") return answer;
    if (typeof answer === "string") {
      const l = answer.trim().toLowerCase();
      if (l === "true") return true;
      if (l === "false") return false;
    }
    return dflt;
  }
  if (typeof dflt === "string") return display(answer);
  if (dflt instanceof HDuration) {
    if (answer instanceof HDuration) return answer;
    if (isInt(answer)) return new HDuration(Number(answer));
    return dflt;
  }
  return typeOf(answer) === typeOf(dflt) ? answer : dflt;
}

async function askUser(args: Value[], ctx: CallContext): Promise<Value> {
  const b = "ask_user";
  const prompt = stringArg(b, args[0], 0);
  const o = optionsArg(b, args[1]);
  const timeout = msOf(o.get("timeout"), DAY_MS);
  const schema = o.get("schema");
  const payload = HDict.of({ prompt, schema, default: o.get("default"), timeout_ms: timeout });
  const first: Resolver = (r) => (r.responses.length > 0 ? HDict.of({ answer: r.responses[0]!.answer }) : null);
  const res = await run(ctx, "question", payload, timeout, first);
  if (res.ended === "timeout") {
    if (o.has("default")) return o.get("default");
    throw timeoutError(res.r, "question");
  }
  if (res.ended === "cancelled") throw cancelledError(res.r, res.reason, "question");
  const answer = (res.outcome as HDict).get("answer");
  if (schema !== null) {
    const v = validate(ctx.runtime, answer, schema, true);
    if (v.errors.length > 0) throw HarnError.thrown(v.errors.join("; "));
    return v.value;
  }
  return o.has("default") ? coerce(answer, o.get("default")) : answer;
}

// ------------------------------------------------------- approvals, quorum

function signatureOf(requestId: string, reviewer: string, signedAt: string, reason: string | null): string {
  const text = `harn-hitl-approval-v1\nrequest_id:${requestId}\nreviewer:${reviewer}\nsigned_at:${signedAt}\napproved:true\nreason:${reason ?? ""}\n`;
  return `sha256:${nodeCrypto().createHash("sha256").update(text).digest("hex")}`;
}

/** §6.3 resolution: approved once `quorum` distinct allowed reviewers
 * approved; denied by any counted response without `approved: true`. */
function quorumResolver(quorum: number, reviewers: string[]): Resolver {
  return (r) => {
    const counted: string[] = [];
    const signatures: Value[] = [];
    let lastReason: string | null = null;
    for (const resp of r.responses) {
      const who = resp.reviewer;
      if (who !== null && reviewers.length > 0 && !reviewers.includes(who)) continue;
      if (who !== null && counted.includes(who)) continue;
      if (!resp.approved) {
        return HDict.of({ approved: false, reviewers: who === null ? [] : [who], reason: resp.reason });
      }
      if (who === null) continue;
      counted.push(who);
      lastReason = resp.reason;
      signatures.push(HDict.of({ reviewer: who, signed_at: resp.respondedAt, signature: resp.signature ?? signatureOf(r.id, who, resp.respondedAt, resp.reason) }));
      if (counted.length >= quorum) {
        return HDict.of({ approved: true, reviewers: [...new Set(counted)].sort(), approved_at: resp.respondedAt, reason: lastReason, signatures });
      }
    }
    return null;
  };
}

function stringList(builtin: string, v: Value): string[] {
  if (v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw fail(`${builtin}: expected list<string>`);
  return v as string[];
}

/** Approved → the record; denied → the thrown `ApprovalDeniedError`. */
function approvalOutcome(rt: Runtime, kind: HitlKind, res: Finished): HDict {
  const what = kind === "approval" ? "approval" : "dual_control";
  const r = res.r;
  if (res.ended === "timeout") throw timeoutError(r, what);
  if (res.ended === "cancelled") throw cancelledError(r, res.reason, what);
  const o = res.outcome as HDict;
  if (o.get("approved") !== true) {
    record(rt, TOPICS[kind], `hitl.${kind}_denied`, r.id, o);
    const reason = o.get("reason");
    throw HarnError.thrown(
      HDict.of({
        name: "ApprovalDeniedError",
        category: "generic",
        message: typeof reason === "string" && reason !== "" ? reason : "approval was denied",
        request_id: r.id,
        reviewers: o.get("reviewers"),
        reason,
      }),
    );
  }
  record(rt, TOPICS[kind], `hitl.${kind}_approved`, r.id, o);
  return o;
}

async function requestApproval(args: Value[], ctx: CallContext): Promise<Value> {
  const b = "request_approval";
  const action = stringArg(b, args[0], 0);
  const o = optionsArg(b, args[1]);
  const q = o.get("quorum");
  const quorum = q === null ? 1 : isInt(q) ? Number(q) : NaN;
  if (!(quorum > 0)) throw fail(`${b}: quorum must be positive`);
  const reviewers = stringList(b, o.get("reviewers"));
  const caps = stringList(b, o.get("capabilities_requested"));
  const evidence = o.get("evidence_refs");
  if (evidence !== null && !Array.isArray(evidence)) throw fail(`${b}: evidence_refs must be a list`);
  const deadlineMs = msOf(o.get("deadline"), DAY_MS);
  const requestedAt = now(ctx.runtime);
  const deadline = new Date(Date.parse(requestedAt) + deadlineMs).toISOString();
  const base = {
    action,
    args: o.get("args"),
    principal: o.get("principal"),
    requested_at: requestedAt,
    deadline,
    approvers_required: quorum,
    evidence_refs: evidence ?? [],
    undo_metadata: o.get("undo_metadata"),
    capabilities_requested: caps,
  };
  const payload = HDict.of({
    approval_request: HDict.of({ id: "", ...base }),
    id: "",
    ...base,
    detail: o.get("detail"),
    quorum,
    reviewers,
    deadline_ms: deadlineMs,
  });
  const res = await run(ctx, "approval", payload, deadlineMs, quorumResolver(quorum, reviewers));
  return approvalOutcome(ctx.runtime, "approval", res);
}

async function dualControl(args: Value[], ctx: CallContext): Promise<Value> {
  const b = "dual_control";
  const ints = [args[0], args[1]].map((v, i) => {
    if (v === undefined || !isInt(v)) throw fail(`${b}: expected int argument at ${i}`);
    const n = Number(v);
    if (n <= 0) throw fail(`${b}: expected a positive int at ${i}`);
    return n;
  });
  const [n, m] = ints as [number, number];
  if (n > m) throw fail(`${b}: n must be less than or equal to m`);
  const action = args[2];
  if (action === undefined || !isCallback(action)) throw fail(`${b}: action must be a closure`);
  const approvers = stringList(b, args[3] ?? null);
  if (approvers.length > 0 && approvers.length < m) throw fail(`${b}: expected at least ${m} approvers, got ${approvers.length}`);
  const payload = HDict.of({ n, m, action: display(action), approvers, quorum: n, reviewers: approvers });
  const res = await run(ctx, "dual_control", payload, DAY_MS, quorumResolver(n, approvers));
  approvalOutcome(ctx.runtime, "dual_control", res);
  let v = ctx.call(action, []);
  if (isPromise<Value>(v)) v = await v;
  record(ctx.runtime, TOPICS.dual_control, "hitl.dual_control_executed", res.r.id, HDict.of({ result: v }));
  return v;
}

async function escalateTo(args: Value[], ctx: CallContext): Promise<Value> {
  const b = "escalate_to";
  const role = stringArg(b, args[0], 0);
  const reason = stringArg(b, args[1], 1);
  const accepted: Resolver = (r) => {
    const a = r.responses.find((x) => x.accepted);
    return a ? HDict.of({ accepted_at: a.respondedAt, reviewer: a.reviewer }) : null;
  };
  const res = await run(ctx, "escalation", HDict.of({ role, reason }), null, accepted);
  if (res.ended === "cancelled") throw cancelledError(res.r, res.reason, "escalation");
  const o = res.outcome as HDict;
  return HDict.of({
    request_id: res.r.id,
    role,
    reason,
    trace_id: res.r.traceId,
    status: "accepted",
    accepted_at: o.get("accepted_at"),
    reviewer: o.get("reviewer"),
  });
}

export const HITL_BUILTINS = builtinModule("agent/hitl", (def) => {
  def("ask_user", askUser);
  def("request_approval", requestApproval);
  def("dual_control", dualControl);
  def("escalate_to", escalateTo);
  def("hitl_pending", hitlPending);
});
