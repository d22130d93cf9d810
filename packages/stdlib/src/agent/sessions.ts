/**
 * Per-runtime agent bookkeeping: named sessions (spec/agents.md §2.11)
 * and the sessions whose loops are running now.
 */
import { isPromise, RuntimeSlot, type CallContext, type HDict, type Runtime, type Value } from "@harn/vm";
import type { JsonObject } from "./json";
import type { Msg } from "./loop/transcript";

export interface StoredSession {
  messages: Msg[];
  /** The yielded state of a loop that stopped with `input_required`, so
   * `agent_resume(session_id, …)` can continue it. */
  paused: JsonObject | null;
}

export class AgentSessions {
  readonly named = new Map<string, StoredSession>();
  /** Session ids of loops running now (a loop may nest inside another's
   * tool handler, and background sub-agents run beside them). */
  readonly active = new Set<string>();
  /** `agent_subscribe` callbacks by session id (§2.12). */
  readonly subscribers = new Map<string, Value[]>();
}

const SESSIONS = new RuntimeSlot<AgentSessions>("agent.sessions", () => new AgentSessions());

export function agentSessions(rt: Runtime): AgentSessions {
  return rt.slot(SESSIONS);
}

/** Deliver an agent event to the session's `agent_subscribe` callbacks
 * (agents.md §2.12), in registration order; what a callback throws
 * propagates to the caller. */
export async function emitAgentEvent(ctx: CallContext, sessionId: string, event: HDict): Promise<void> {
  const subs = agentSessions(ctx.runtime).subscribers.get(sessionId);
  if (!subs || subs.length === 0) return;
  for (const fn of subs.slice()) {
    const r = ctx.call(fn, [event]);
    if (isPromise<Value>(r)) await r;
  }
}
