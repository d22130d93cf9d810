/**
 * `hitl_pending(filters?)` (spec/agents-surface.md §6.6): the requests of
 * the event log still waiting for a person, newest first.
 */
import { display, HarnError, HDict, isInt, type CallContext, type Value } from "@harn/vm";
import { hitlState, type HitlKind, type HitlRequest } from "./requests";

const KINDS: readonly HitlKind[] = ["question", "approval", "dual_control", "escalation"];
const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 5000;

function fail(message: string): HarnError {
  return HarnError.runtime(message);
}

function time(filters: HDict, field: string): number | null {
  const v = filters.get(field);
  if (v === null) return null;
  const text = typeof v === "string" ? v : display(v);
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw fail(`hitl_pending: invalid ${field}: '${text}' is not an RFC 3339 timestamp`);
  return ms;
}

function entry(r: HitlRequest): HDict {
  const p = r.payload;
  const prompt = p.get("prompt") ?? p.get("action") ?? p.get("reason");
  const approvers = r.kind === "question" ? [] : (p.get("approvers") ?? p.get("reviewers") ?? []);
  return HDict.of({
    request_id: r.id,
    request_kind: r.kind,
    agent: r.agent,
    prompt,
    trace_id: r.traceId,
    timestamp: r.requestedAt,
    approvers,
    metadata: p,
  });
}

export function hitlPending(args: Value[], ctx: CallContext): Value {
  const f = args[0] ?? null;
  if (f !== null && !(f instanceof HDict)) throw fail("hitl_pending: filters must be a dict or nil");
  const filters = f ?? HDict.empty();
  const since = time(filters, "since");
  const until = time(filters, "until");
  let kinds: string[] | null = null;
  const k = filters.get("kinds");
  if (k !== null) {
    if (!Array.isArray(k) || k.some((x) => typeof x !== "string")) throw fail("hitl_pending: kinds must be a list<string>");
    for (const x of k as string[]) if (!(KINDS as readonly string[]).includes(x)) throw fail(`hitl_pending: unsupported kind '${x}'`);
    kinds = k as string[];
  }
  const agent = filters.get("agent");
  if (agent !== null && (typeof agent !== "string" || agent === "")) throw fail("hitl_pending: agent must be a string");
  const l = filters.get("limit");
  if (l !== null && !(isInt(l) && Number(l) > 0)) throw fail("hitl_pending: limit must be a positive int");
  const limit = Math.min(l === null ? DEFAULT_LIMIT : Number(l), MAX_LIMIT);
  const out: Value[] = [];
  const requests = [...hitlState(ctx.runtime).requests.values()].reverse();
  for (const r of requests) {
    if (r.resolved) continue;
    if (kinds !== null && !kinds.includes(r.kind)) continue;
    if (agent !== null && r.agent !== agent) continue;
    const at = Date.parse(r.requestedAt);
    if ((since !== null && at < since) || (until !== null && at > until)) continue;
    out.push(entry(r));
    if (out.length >= limit) break;
  }
  return out;
}
