/**
 * Human-in-the-loop requests (spec/agents-surface.md §6.1): each request
 * is recorded in a per-runtime event log and suspends its caller on a
 * handle of the long-running handle registry (agents.md §1), the same
 * pause/resume mechanism long-running tools use: a response completes the
 * handle, `cancel_handle`, session-end cleanup or the caller's
 * cancellation cancel it, and its timeout ends the wait.
 *
 * Responses come from host mocks (`host_mock("hitl", kind, …)`, applied
 * right after the request is recorded), from a host (`respondHitl`, e.g.
 * `harn.hitl.respond`), or from the terminal under `harn run` (prompt.ts).
 */
import { display, HarnError, HDict, RuntimeSlot, type CallContext, type Runtime, type Value } from "@harn/vm";
import { uuidV7 } from "../../core/encoding";
import { hostMockResult } from "../../core/host";
import { isInteractive } from "../../core/interactive";
import { longRunState } from "../../longrun/index";

export type HitlKind = "question" | "approval" | "dual_control" | "escalation";

export const TOPICS: Readonly<Record<HitlKind, string>> = {
  question: "hitl.questions",
  approval: "hitl.approvals",
  dual_control: "hitl.dual_control",
  escalation: "hitl.escalations",
};

const REQUESTED: Readonly<Record<HitlKind, string>> = {
  question: "hitl.question_asked",
  approval: "hitl.approval_requested",
  dual_control: "hitl.dual_control_requested",
  escalation: "hitl.escalation_issued",
};

/** One entry of the event log. */
export interface LogEvent {
  topic: string;
  kind: string;
  requestId: string;
  at: string;
  payload: HDict;
}

export interface Response {
  answer: Value;
  approved: boolean;
  accepted: boolean;
  reviewer: string | null;
  reason: string | null;
  metadata: Value;
  respondedAt: string;
  signature: string | null;
}

/** What a kind makes of the responses so far: null while undecided. */
export type Resolver = (r: HitlRequest) => Value | null;

export interface HitlRequest {
  readonly id: string;
  readonly kind: HitlKind;
  readonly agent: string;
  readonly traceId: string;
  readonly requestedAt: string;
  readonly payload: HDict;
  readonly responses: Response[];
  /** The decided outcome (kind-specific), once there is one. */
  outcome: Value | null;
  resolved: boolean;
  readonly resolve: Resolver;
}

class HitlState {
  readonly log: LogEvent[] = [];
  readonly requests = new Map<string, HitlRequest>();
  readonly listeners = new Set<(envelope: HDict) => void>();
}

const STATE = new RuntimeSlot("agent.hitl", () => new HitlState());

export function hitlState(rt: Runtime): HitlState {
  return rt.slot(STATE);
}

export function now(rt: Runtime): string {
  return new Date(rt.clock.now()).toISOString();
}

export function record(rt: Runtime, topic: string, kind: string, requestId: string, payload: HDict): void {
  hitlState(rt).log.push({ topic, kind, requestId, at: now(rt), payload });
}

export function envelopeOf(r: HitlRequest): HDict {
  return HDict.of({ request_id: r.id, kind: r.kind, agent: r.agent, trace_id: r.traceId, requested_at: r.requestedAt, payload: r.payload });
}

/** Hosts see every new request (the `harn.hitl.requested` notification). */
export function onHitlRequested(rt: Runtime, listener: (envelope: HDict) => void): () => void {
  const s = hitlState(rt);
  s.listeners.add(listener);
  return () => s.listeners.delete(listener);
}

function str(v: Value): string | null {
  return v === null ? null : display(v);
}

function responseOf(rt: Runtime, d: HDict): Response {
  return {
    answer: d.get("answer"),
    approved: d.get("approved") === true,
    accepted: d.get("accepted") === true,
    reviewer: str(d.get("reviewer")),
    reason: str(d.get("reason")),
    metadata: d.get("metadata"),
    respondedAt: str(d.get("responded_at")) ?? now(rt),
    signature: str(d.get("signature")),
  };
}

/**
 * Apply one response to a pending request (hosts call this for
 * `harn.hitl.respond`). Returns false for an unknown or finished request.
 */
export function respondHitl(rt: Runtime, requestId: string, response: HDict): boolean {
  const r = hitlState(rt).requests.get(requestId);
  if (!r || r.resolved) return false;
  const resp = responseOf(rt, response);
  r.responses.push(resp);
  const accepted = r.kind === "escalation" && resp.accepted;
  record(rt, TOPICS[r.kind], accepted ? "hitl.escalation_accepted" : "hitl.response_received", r.id, response);
  const outcome = r.resolve(r);
  if (outcome !== null) {
    r.outcome = outcome;
    r.resolved = true;
    longRunState(rt).complete(r.id, { status: "completed", request_id: r.id });
  }
  return true;
}

/** Mocked responses for a request (§6.1 "Offline responses"). */
function applyMocks(rt: Runtime, r: HitlRequest): void {
  const params = r.payload.with("request_id", r.id);
  const found = hostMockResult(rt, "hitl", r.kind, params);
  if (found === undefined) return;
  const items = Array.isArray(found) ? found : [found];
  for (const item of items) {
    if (!(item instanceof HDict)) throw HarnError.runtime(`mocked HITL ${r.kind} response must be a dict or list<dict>`);
    respondHitl(rt, r.id, item);
  }
}

export class HitlTimeout {
  constructor(readonly request: HitlRequest) {}
}
export class HitlCancelled {
  constructor(
    readonly request: HitlRequest,
    readonly reason: string | null,
  ) {}
}

/** Starts answering a request at the terminal (prompt.ts); set by the
 * builtins module so this file does not depend on the prompts. */
export type Prompter = (ctx: CallContext, r: HitlRequest, signal: AbortSignal) => void;

export interface Ask {
  kind: HitlKind;
  payload: HDict;
  /** null: no timeout. */
  timeoutMs: number | null;
  resolve: Resolver;
  prompter: Prompter | null;
}

/**
 * Record a request, ask for answers and wait for its outcome. Throws
 * `HitlTimeout` when the timeout passes first and `HitlCancelled` when the
 * request's handle is cancelled; the caller's own cancellation propagates.
 */
export async function ask(ctx: CallContext, a: Ask): Promise<{ request: HitlRequest; outcome: Value }> {
  const rt = ctx.runtime;
  const st = hitlState(rt);
  const r: HitlRequest = {
    id: `hitl_${a.kind}_${uuidV7(rt)}`,
    kind: a.kind,
    agent: ctx.sessionId ?? "",
    traceId: `trace_${uuidV7(rt)}`,
    requestedAt: now(rt),
    payload: a.payload,
    responses: [],
    outcome: null,
    resolved: false,
    resolve: a.resolve,
  };
  st.requests.set(r.id, r);
  record(rt, TOPICS[a.kind], REQUESTED[a.kind], r.id, envelopeOf(r));
  const lr = longRunState(rt);
  lr.register({
    id: r.id,
    family: "stdlib",
    sessionId: ctx.sessionId ?? "",
    operation: `hitl.${a.kind}`,
    descriptor: display(a.payload.get("prompt") ?? a.payload.get("action") ?? a.payload.get("reason")),
    startedAtMs: rt.clock.now(),
    stop: () => undefined,
  });
  for (const l of [...st.listeners]) l(envelopeOf(r));
  applyMocks(rt, r);
  // The prompt stops reading once the wait is over, however it ends.
  const prompting = new AbortController();
  if (!r.resolved && a.prompter !== null && isInteractive(rt)) a.prompter(ctx, r, prompting.signal);
  let item;
  try {
    item = await lr.waitForPayload(r.id, a.timeoutMs, ctx.signal);
  } catch (e) {
    prompting.abort();
    lr.cancel(r.id);
    r.resolved = true;
    record(rt, TOPICS[a.kind], "hitl.cancelled", r.id, HDict.empty());
    throw e;
  }
  prompting.abort();
  if (item !== null && r.outcome !== null) return { request: r, outcome: r.outcome };
  const cancelled = lr.status(r.id) === "cancelled";
  lr.cancel(r.id);
  r.resolved = true;
  if (cancelled) {
    record(rt, TOPICS[a.kind], "hitl.cancelled", r.id, HDict.empty());
    throw new HitlCancelled(r, null);
  }
  record(rt, TOPICS[a.kind], "hitl.timeout", r.id, HDict.of({ request_id: r.id }));
  throw new HitlTimeout(r);
}
