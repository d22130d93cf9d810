/**
 * The conversation of an agent loop as plain JSON messages, the
 * runtime-feedback wrapper (spec/agents.md §2.8), tool-result messages in
 * both formats (§2.6 step 9), and transcript consolidation
 * (extensions.md §1.5).
 *
 * Stored messages may carry bookkeeping keys that never reach a model:
 * - `tool_results` on a text-format results message: one
 *   `{tool_call_id, name, text}` per call, so the message can be re-rendered
 *   with a later response for a call;
 * - `update_of`: a later response (progress or final) for a call id;
 * - `superseded`: this response was replaced by a later one (on a results
 *   entry of a text-format message, or on a native tool message).
 */
import type { LlmMessage } from "../../llm/types";
import { isJsonObject, type Json, type JsonObject } from "../../core/json";

export type Msg = JsonObject & { role: string };

const INTERNAL_KEYS = ["tool_results", "update_of", "superseded"];

export function escapeKind(kind: string): string {
  return kind.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A runtime-feedback text: `<runtime_feedback kind="K">\n…\n</runtime_feedback>`. */
export function feedbackText(kind: string, content: string): string {
  return `<runtime_feedback kind="${escapeKind(kind)}">\n${content.trim()}\n</runtime_feedback>`;
}

export function feedbackMessage(kind: string, content: string): Msg {
  return { role: "user", content: feedbackText(kind, content) };
}

export function userMessage(content: string): Msg {
  return { role: "user", content };
}

export interface CallResult {
  tool_call_id: string;
  name: string;
  text: string;
  superseded?: boolean;
}

function resultBlock(r: { name: string; text: string }): string {
  return `[result of ${r.name}]\n${r.text}\n[end of ${r.name} result]`;
}

/**
 * The text-format message answering a turn's calls. The per-call
 * bookkeeping (`tool_results`) is kept only when some call of the batch is
 * pending (`trackCalls`): only those receive later responses, and a loop
 * without long-running tools shows the reference's plain `{role, content}`.
 */
export function textResultsMessage(results: CallResult[], trackCalls: boolean): Msg {
  const m: Msg = { role: "user", content: feedbackText("tool_results", results.map(resultBlock).join("\n\n")) };
  if (trackCalls) m.tool_results = results.map((r) => ({ tool_call_id: r.tool_call_id, name: r.name, text: r.text }));
  return m;
}

/**
 * How a native-format tool result is stored (spec/agents.md §2.6 step 9):
 * the OpenAI-compatible `{role: "tool", tool_call_id, content}` for the
 * mock and OpenAI-style providers, the Anthropic-style
 * `{role: "user", content: [{type: "tool_result", tool_use_id, content}]}`
 * when the turn was answered by an Anthropic provider. Scripts see the
 * shape in `result.transcript` and session messages; every adapter renders
 * either shape in its own wire format, so a session may mix them.
 */
export type ResultShape = "openai" | "anthropic";

/** The native-format message answering one call. A failed call is marked
 * `is_error: true` in the Anthropic shape, the field Anthropic reads; the
 * OpenAI shape has no such field, so it is left as the reference has it. */
export function toolMessage(id: string, text: string, shape: ResultShape = "openai", failed = false): Msg {
  if (shape === "anthropic") {
    return { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text, ...(failed ? { is_error: true } : {}) }] };
  }
  return { role: "tool", tool_call_id: id, content: text };
}

/** The call id and text (null when not a string: left as given) of a
 * native-format result message of either shape, else undefined. */
export function toolResultOf(m: Msg): { id: string; text: string | null; shape: ResultShape } | undefined {
  if (m.role === "tool" && typeof m.tool_call_id === "string") {
    return { id: m.tool_call_id, text: typeof m.content === "string" ? m.content : null, shape: "openai" };
  }
  if (m.role === "user" && Array.isArray(m.content) && m.content.length === 1) {
    const b = m.content[0];
    if (isJsonObject(b) && b.type === "tool_result" && typeof b.tool_use_id === "string") {
      return { id: b.tool_use_id, text: typeof b.content === "string" ? b.content : null, shape: "anthropic" };
    }
  }
  return undefined;
}

/**
 * Record a later response for call `id`: every earlier response of that
 * call is flagged superseded and the update is appended, in the shape of
 * the call's original result. A flagged message is replaced by a flagged
 * copy, never edited: a daemon's committed snapshot shares the message
 * objects (daemon/delta.ts compares them by identity).
 */
export function appendUpdate(messages: Msg[], id: string, text: string): void {
  let shape: ResultShape = "openai";
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const r = toolResultOf(m);
    if (r !== undefined && r.id === id) {
      messages[i] = { ...m, superseded: true };
      shape = r.shape;
    }
    if (Array.isArray(m.tool_results) && m.tool_results.some((r) => isJsonObject(r) && r.tool_call_id === id)) {
      const results = m.tool_results.map((r) => (isJsonObject(r) && r.tool_call_id === id ? { ...r, superseded: true } : r));
      messages[i] = { ...messages[i]!, tool_results: results };
    }
  }
  noteEdit(messages);
  messages.push({ ...toolMessage(id, text, shape), update_of: id });
}

/**
 * The messages sent to the model: for every call id only its latest
 * response is kept, at the position of the original result; later
 * responses are not sent on their own, and bookkeeping keys are removed.
 */
export function requestMessages(messages: readonly Msg[]): LlmMessage[] {
  // One pass in order: originals precede their updates, so the last
  // response seen for an id is the latest.
  const latest = new Map<string, string>();
  for (const m of messages) {
    const r = toolResultOf(m);
    if (r !== undefined && r.text !== null) latest.set(r.id, r.text);
    if (Array.isArray(m.tool_results)) {
      for (const r of m.tool_results) {
        if (isJsonObject(r) && typeof r.tool_call_id === "string" && typeof r.text === "string") latest.set(r.tool_call_id, r.text);
      }
    }
  }
  const out: LlmMessage[] = [];
  for (const m of messages) {
    if (typeof m.update_of === "string") continue;
    const copy: JsonObject = {};
    for (const [k, v] of Object.entries(m)) if (!INTERNAL_KEYS.includes(k)) copy[k] = v as Json;
    const result = toolResultOf(m);
    if (result !== undefined) {
      // A result whose content is not text has no latest text: sent as given.
      const text = latest.get(result.id);
      if (text !== undefined) copy.content = result.shape === "openai" ? text : [{ ...(m.content as JsonObject[])[0]!, content: text }];
    } else if (Array.isArray(m.tool_results)) {
      const rs = m.tool_results.filter(isJsonObject).map((r) => ({
        name: String(r.name),
        text: latest.get(String(r.tool_call_id)) ?? String(r.text),
      }));
      copy.content = feedbackText("tool_results", rs.map(resultBlock).join("\n\n"));
    }
    out.push(copy as unknown as LlmMessage);
  }
  return out;
}

/** The call ids `m` answers (a native result, or text-protocol results). */
function resultIds(m: Msg): string[] {
  const r = toolResultOf(m);
  const ids = r !== undefined ? [r.id] : [];
  if (Array.isArray(m.tool_results)) for (const x of m.tool_results) if (isJsonObject(x) && typeof x.tool_call_id === "string") ids.push(x.tool_call_id);
  return ids;
}

/**
 * In-place edits of a message list. A loop's transcript only grows, except
 * where an entry is replaced (a superseded result) or a range is replaced
 * (compaction); those places call `noteEdit`. Code that follows a list
 * turn after turn (`RequestBuilder`, a daemon's snapshot deltas) then takes
 * what was appended since it last looked (`appendedSince`) without
 * comparing the whole list, and starts over after an edit.
 */
const EDITS = Symbol("harn.listEdits");

type Counted = { [EDITS]?: number };

export function noteEdit(list: unknown[]): void {
  (list as Counted)[EDITS] = editsOf(list) + 1;
}

export function editsOf(list: readonly unknown[]): number {
  return (list as Counted)[EDITS] ?? 0;
}

/** Where a follower last saw a list. */
export interface ListMark {
  readonly list: readonly unknown[];
  readonly length: number;
  readonly edits: number;
}

export function markOf(list: readonly unknown[]): ListMark {
  return { list, length: list.length, edits: editsOf(list) };
}

/** What was appended to `list` since `mark`, or null when it is another
 * list or was edited (or shortened) since. */
export function appendedSince<T>(mark: ListMark | null, list: readonly T[]): T[] | null {
  if (mark === null || mark.list !== list || mark.edits !== editsOf(list) || list.length < mark.length) return null;
  return list.slice(mark.length);
}

/** The first `n` entries of a list that has only been appended to since
 * it held `n`: the list itself while it still does, else a copy of that
 * prefix. How a holder of a growing list (a mock call record, a committed
 * daemon snapshot) reads the entries it was given. */
export function prefixOf<T>(list: readonly T[], n: number): readonly T[] {
  return list.length === n ? list : list.slice(0, n);
}

/**
 * `requestMessages` for a loop, turn after turn: the messages appended
 * since the last turn are copied and added to the last request, so a
 * daemon's thousands of messages cost one array copy per turn, not a copy
 * of each message. It builds the whole request again after an edit of the
 * list or when a new message answers a call answered before (an update
 * changes what an earlier result sends).
 */
export class RequestBuilder {
  private mark: ListMark | null = null;
  private out: LlmMessage[] = [];
  private readonly answered = new Set<string>();

  /** The request's messages. Not a copy, so a turn costs what was
   * appended: until the next rebuild this array only grows, so whoever
   * keeps it (the mock's call log) keeps its length with it and reads that
   * prefix (see `prefixOf`). */
  build(messages: readonly Msg[]): readonly LlmMessage[] {
    const tail = appendedSince(this.mark, messages);
    const ids = tail === null ? [] : tail.flatMap(resultIds);
    if (tail !== null && !ids.some((id) => this.answered.has(id)) && !tail.some((m) => typeof m.update_of === "string")) {
      for (const m of requestMessages(tail)) this.out.push(m);
      for (const id of ids) this.answered.add(id);
    } else {
      this.out = requestMessages(messages);
      this.answered.clear();
      for (const m of messages) for (const id of resultIds(m)) this.answered.add(id);
    }
    this.mark = markOf(messages);
    return this.out;
  }
}

function firstKey(o: object): string | undefined {
  for (const k in o) return k;
  return undefined;
}

/** Messages from a script value (`messages` option, a transcript). */
export function messagesFromJson(x: Json): Msg[] {
  if (!Array.isArray(x)) return [];
  const out: Msg[] = [];
  for (const m of x) {
    if (!isJsonObject(m)) continue;
    // Already role-first (a daemon's own snapshot): the same object, which
    // lets the daemon see that these messages are the ones it stored.
    if (typeof m.role === "string" && firstKey(m) === "role") {
      out.push(m as Msg);
      continue;
    }
    const { role: given, ...rest } = m;
    const role = typeof given === "string" ? given : "user";
    // Role first: the mock's match text walks keys in document order (§3.3).
    out.push({ role, ...rest } as Msg);
  }
  return out;
}
