/**
 * Per-runtime state of the mock LLM (spec/agents.md §3): the queue of
 * scripted responses, the log of intercepted calls and the saved scopes.
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";
import { type Json, type JsonObject } from "../../core/json";

export interface MockToolCall {
  name: string;
  arguments: JsonObject;
}

export interface MockError {
  category: string;
  message: string;
  retryAfterMs?: number;
}

/** One `llm_mock(...)` entry. */
export interface MockEntry {
  text: string;
  toolCalls: MockToolCall[];
  /** Glob pattern; null = FIFO entry. */
  match: string | null;
  consumeMatch: boolean;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  thinking?: string;
  thinkingSummary?: string;
  stopReason?: string;
  model: string;
  error?: MockError;
  /** [extension, P2] Resolve after this many milliseconds (agents.md §8):
   * stands in for model latency so background work can progress. */
  delayMs?: number;
}

/** One intercepted call as `llm_mock_calls()` reports it. */
export interface MockCallRecord {
  /** The request's messages are the first `count` entries: the array may
   * have grown since (see provider.ts). */
  messages: readonly Json[];
  count: number;
  system: string | null;
  tools: Json[] | null;
  thinking: JsonObject;
}

interface Saved {
  queue: MockEntry[];
  calls: MockCallRecord[];
  cached: Set<string>;
}

export class MockState {
  queue: MockEntry[] = [];
  calls: MockCallRecord[] = [];
  /** Requests seen with `cache: true` (the prompt-cache simulation). */
  cached = new Set<string>();
  private readonly scopes: Saved[] = [];

  /** CLI fixtures (`--llm-mock`, a conformance `.llm-mock.jsonl`): while
   * set, every call is answered from them or the queue, or fails. */
  fixtures: MockEntry[] | null = null;

  /** Any provider is intercepted while entries are queued or fixtures
   * replay (§3.1). */
  get intercepting(): boolean {
    return this.queue.length > 0 || this.fixtures !== null;
  }

  /**
   * The entry answering a call whose match text `text()` gives (§3.3; only
   * computed when a pattern has to be tried): fixtures
   * first, then the queue; in each, the first FIFO entry anywhere, else the
   * first pattern entry that matches (removed only with `consume_match`).
   */
  take(text: () => string): MockEntry | null {
    return (this.fixtures && takeFrom(this.fixtures, text)) ?? takeFrom(this.queue, text);
  }

  clear(): void {
    this.fixtures = null;
    this.queue = [];
    this.calls = [];
    this.cached = new Set();
    this.scopes.length = 0;
  }

  pushScope(): void {
    this.scopes.push({ queue: this.queue.slice(), calls: this.calls.slice(), cached: new Set(this.cached) });
  }

  /** False when there is no saved scope. */
  popScope(): boolean {
    const s = this.scopes.pop();
    if (!s) return false;
    this.queue = s.queue;
    this.calls = s.calls;
    this.cached = s.cached;
    return true;
  }
}

function takeFrom(list: MockEntry[], text: () => string): MockEntry | null {
  const fifo = list.findIndex((e) => e.match === null);
  if (fifo >= 0) return list.splice(fifo, 1)[0]!;
  for (let i = 0; i < list.length; i++) {
    const e = list[i]!;
    if (e.match !== null && globMatch(e.match, text())) {
      if (e.consumeMatch) list.splice(i, 1);
      return e;
    }
  }
  return null;
}

export const MOCK_STATE = new RuntimeSlot<MockState>("agent.mock", () => new MockState());

export function mockState(rt: Runtime): MockState {
  return rt.slot(MOCK_STATE);
}

/**
 * The mock's pattern language (§3.3): `*` is the only wildcard. Without `*`
 * the pattern must equal the whole text; otherwise the first piece is a
 * prefix (unless the pattern starts with `*`), the last a suffix (unless it
 * ends with `*`) and the middle pieces occur in order. Case-sensitive.
 */
export function globMatch(pattern: string, text: string): boolean {
  if (!pattern.includes("*")) return pattern === text;
  const pieces = pattern.split("*");
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (!text.startsWith(first)) return false;
  let pos = first.length;
  const end = text.length - last.length;
  if (end < pos || !text.endsWith(last)) return false;
  for (let i = 1; i < pieces.length - 1; i++) {
    const p = pieces[i]!;
    if (p === "") continue;
    const at = text.indexOf(p, pos);
    if (at < 0 || at + p.length > end) return false;
    pos = at + p.length;
  }
  return true;
}

/**
 * The match text of a request (§3.3): every non-empty string leaf of the
 * messages in document order (roles included), joined with newlines.
 */
export function matchText(messages: readonly unknown[]): string {
  const out: string[] = [];
  const walk = (x: unknown): void => {
    if (typeof x === "string") {
      if (x !== "") out.push(x);
    } else if (Array.isArray(x)) {
      for (const y of x) walk(y);
    } else if (x !== null && typeof x === "object") {
      for (const v of Object.values(x)) walk(v);
    }
  };
  walk(messages);
  return out.join("\n");
}
