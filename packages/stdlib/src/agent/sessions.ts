/**
 * Per-runtime agent bookkeeping (spec/agents-surface.md §2.1): the session
 * store (a stored transcript per session id, with lineage, bounded to 128
 * sessions, least recently accessed evicted first), the sessions whose
 * loops are running now, and `agent_subscribe` callbacks.
 */
import { isPromise, RuntimeSlot, type CallContext, type HDict, type Runtime, type Value } from "@harn/vm";
import { messagesFromJson, type Msg } from "./loop/transcript";
import { buildTranscript, messagesOf, partsOf } from "./transcript/values";
import { type JsonObject, toJson } from "../core/json";

export const MAX_SESSIONS = 128;

export interface StoredSession {
  transcript: HDict;
  /** The yielded state of a loop that stopped with `input_required`, so
   * `agent_resume(session_id, …)` can continue it (TS extension kept
   * alongside the transcript). */
  paused: JsonObject | null;
  parentId: string | null;
  childIds: string[];
  branchedAt: number | null;
  lastAccessed: number;
}

export class AgentSessions {
  private readonly store = new Map<string, StoredSession>();
  private clock = 0;
  /** Session ids of loops running now (a loop may nest inside another's
   * tool handler, and background sub-agents run beside them). */
  readonly active = new Set<string>();
  /** `agent_subscribe` callbacks by session id (§2.12). */
  readonly subscribers = new Map<string, Value[]>();

  constructor(private readonly rt: Runtime) {}

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** The stored session (refreshing its access time), if any. */
  get(id: string): StoredSession | undefined {
    const s = this.store.get(id);
    if (s) s.lastAccessed = ++this.clock;
    return s;
  }

  /** Open `id`, creating it with an empty transcript when missing. */
  open(id: string): StoredSession {
    const found = this.get(id);
    if (found) return found;
    if (this.store.size >= MAX_SESSIONS) this.evict();
    const s: StoredSession = {
      transcript: buildTranscript(this.rt, { id, messages: [] }),
      paused: null,
      parentId: null,
      childIds: [],
      branchedAt: null,
      lastAccessed: ++this.clock,
    };
    this.store.set(id, s);
    return s;
  }

  private evict(): void {
    let oldest: [string, StoredSession] | null = null;
    for (const e of this.store) if (oldest === null || e[1].lastAccessed < oldest[1].lastAccessed) oldest = e;
    if (oldest) this.store.delete(oldest[0]);
  }

  delete(id: string): boolean {
    return this.store.delete(id);
  }

  /** The stored conversation as plain JSON messages. */
  messages(id: string): Msg[] {
    const s = this.get(id);
    return s ? messagesFromJson(toJson(messagesOf(s.transcript))) : [];
  }

  /** Replace the stored messages (events recomputed, runtime events
   * dropped), keeping the rest of the transcript. */
  setMessages(id: string, messages: readonly Value[], paused?: JsonObject | null): void {
    const s = this.open(id);
    s.transcript = buildTranscript(this.rt, { ...partsOf(s.transcript, false), messages });
    if (paused !== undefined) s.paused = paused;
  }

  /** Replace the stored transcript (a loop's final one), keeping lineage. */
  storeTranscript(id: string, t: HDict, paused: JsonObject | null): void {
    const s = this.open(id);
    s.transcript = t.get("id") === id ? t : t.with("id", id);
    s.paused = paused;
  }

  /** Link `child` under `parent` (a child with another parent leaves it). */
  link(parent: string, child: string): void {
    const c = this.open(child);
    if (c.parentId !== null && c.parentId !== parent) {
      const old = this.store.get(c.parentId);
      if (old) old.childIds = old.childIds.filter((x) => x !== child);
    }
    c.parentId = parent;
    const p = this.open(parent);
    if (!p.childIds.includes(child)) p.childIds.push(child);
  }

  /** The top of `id`'s parent chain (cycle-safe). */
  rootOf(id: string): string {
    const seen = new Set<string>([id]);
    let cur = id;
    for (;;) {
      const parent = this.store.get(cur)?.parentId ?? null;
      if (parent === null || seen.has(parent)) return cur;
      seen.add(parent);
      cur = parent;
    }
  }
}

const SESSIONS = new RuntimeSlot<AgentSessions>("agent.sessions", (rt) => new AgentSessions(rt));

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
