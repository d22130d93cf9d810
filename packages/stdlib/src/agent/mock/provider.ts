/**
 * The mock LLM provider (spec/agents.md §3.3–§3.6). It implements the same
 * `LlmProvider` interface as the real adapters: each call yields normalized
 * events that the shared accumulator folds, and failures are classified
 * `LlmError`s that go through the shared retry logic (with 0 ms backoff,
 * because the provider is `offline`). Everything above it — `llm_call`,
 * the agent loop, retries — therefore runs offline exactly as it would
 * against a real server.
 */
import { cpArray, realClock, type Clock } from "@harn/vm";
import { errorFromMessage, retryAfterFromMessage } from "../../llm/classify";
import { isJsonObject, type Json, JsonFloat, type JsonObject, stringifyJsonKeepingFloats } from "../../core/json";
import { LlmSetupError } from "../../llm/errors";
import type { LlmCompletedEvent, LlmEvent, LlmProvider, LlmRequest, LlmToolDefinition } from "../../llm/types";
import { matchText, type MockEntry, type MockState } from "./state";

export class MockProvider implements LlmProvider {
  readonly name = "mock";
  readonly offline = true;

  /** `clock` times fixture delays and reads "now" for retry-after hints
   * (the runtime's: virtual under `harn test --deterministic`). */
  constructor(
    private readonly state: MockState,
    private readonly clock: Clock = realClock,
  ) {}

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
    signal.throwIfAborted();
    const messages = request.messages as unknown as readonly Json[];
    // Recorded before matching (§3.1), so error entries and retries show up.
    // Not copied (copying made long mocked loops quadratic in time): an
    // agent loop's next request appends to this array (RequestBuilder), so
    // the record keeps the length it had and reads that prefix.
    this.state.calls.push({
      messages,
      count: messages.length,
      system: request.system ?? null,
      tools: request.tools && request.tools.length > 0 ? (request.tools as unknown as Json[]) : null,
      thinking: thinkingOf(request),
    });
    let cached: string | undefined;
    const text = () => (cached ??= matchText(messages));
    const entry = this.state.take(text);
    if (entry?.delayMs !== undefined) await this.clock.sleep(entry.delayMs, signal);
    let events: Iterable<LlmEvent>;
    if (entry) events = this.scripted(entry, request, text);
    else if (this.state.fixtures !== null) throw unmatchedFixture(lastPromptText(request.messages as unknown[]));
    else events = defaultReply(request);
    const simulate = request.extra?.cache === true && !(entry && (entry.cacheReadTokens !== undefined || entry.cacheWriteTokens !== undefined));
    for (const ev of events) yield simulate && ev.kind === "completed" ? this.cachedUsage(ev, request) : ev;
  }

  /**
   * The prompt-cache simulation (§3.4): with `cache: true` and no explicit
   * cache tokens, the first request with a given (model, system, messages)
   * writes the cache and every identical one after it reads it.
   */
  private cachedUsage(ev: LlmCompletedEvent, request: LlmRequest): LlmCompletedEvent {
    const key = JSON.stringify([request.model, request.system ?? null, request.messages]);
    if (this.state.cached.has(key)) return { ...ev, cache_read_tokens: ev.input_tokens, cache_write_tokens: 0 };
    this.state.cached.add(key);
    return { ...ev, cache_read_tokens: 0, cache_write_tokens: ev.input_tokens };
  }

  private *scripted(entry: MockEntry, request: LlmRequest, text: () => string): Iterable<LlmEvent> {
    if (entry.error) {
      const message = errorMessage(entry.error);
      throw errorFromMessage({ provider: request.provider, model: request.model }, message, {
        category: entry.error.category,
        retryAfterMs: retryAfterFromMessage(message, this.clock.now()),
      });
    }
    if (entry.thinking) yield { kind: "reasoning_delta", text: entry.thinking };
    if (entry.text !== "") yield { kind: "text_delta", text: entry.text };
    for (let i = 0; i < entry.toolCalls.length; i++) {
      const c = entry.toolCalls[i]!;
      const id = `mock_call_${i + 1}`;
      yield { kind: "tool_call_start", id, name: c.name };
      yield { kind: "tool_call_delta", id, args_fragment: stringifyJsonKeepingFloats(c.arguments) };
    }
    yield {
      kind: "completed",
      input_tokens: entry.inputTokens ?? Buffer.byteLength(text(), "utf8"),
      output_tokens: entry.outputTokens ?? 30,
      reasoning_tokens: 0,
      cache_read_tokens: entry.cacheReadTokens ?? 0,
      cache_write_tokens: entry.cacheWriteTokens ?? 0,
      stop_reason: entry.stopReason,
      thinking_summary: entry.thinkingSummary,
      model: entry.model,
    };
  }
}

/** Fixture replay fails on a request no fixture answers (§3.7). */
function unmatchedFixture(prompt: string): LlmSetupError {
  const cps = cpArray(prompt);
  const snippet = cps.length > 200 ? cps.slice(0, 200).join("") + "..." : prompt;
  return new LlmSetupError(`No --llm-mock fixture matched prompt: ${JSON.stringify(snippet)}`, "runtime");
}


/** `message` plus the `retry-after: <seconds>` line of §3.5. */
function errorMessage(e: { message: string; retryAfterMs?: number }): string {
  if (e.retryAfterMs === undefined) return e.message;
  const sep = e.message === "" || e.message.endsWith("\n") ? "" : "\n";
  // `ms / 1000` as a plain number: 2500 → 2.5, 1000 → 1.
  return `${e.message}${sep}retry-after: ${String(e.retryAfterMs / 1000)}\n`;
}

function thinkingOf(request: LlmRequest): JsonObject {
  const t = request.extra?.thinking;
  return isJsonObject(t as Json) ? (t as JsonObject) : { mode: "disabled" };
}

/**
 * What the mock says when no entry matches (§3.6): a call to the first
 * native tool with placeholder arguments, else `Mock response to <N>-word
 * prompt: <first 100 chars>` (wrapped in the tagged protocol when the system
 * prompt asks for `<done>`).
 */
function* defaultReply(request: LlmRequest): Iterable<LlmEvent> {
  const p = lastPromptText(request.messages as unknown[]);
  const inputTokens = Buffer.byteLength(p, "utf8");
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    const tool = tools[0]!;
    yield { kind: "tool_call_start", id: "mock_call_1", name: tool.name };
    yield { kind: "tool_call_delta", id: "mock_call_1", args_fragment: stringifyJsonKeepingFloats(placeholderArgs(tool)) };
    yield { kind: "completed", input_tokens: inputTokens, output_tokens: 20, reasoning_tokens: 0, model: request.model };
    return;
  }
  const words = p.split(/\s+/).filter((w) => w !== "").length;
  const body = p.trim() === "" ? "Mock LLM response" : `Mock response to ${words}-word prompt: ${cpArray(p).slice(0, 100).join("")}`;
  const text = (request.system ?? "").includes("<done>") ? `<assistant_prose>${body}</assistant_prose>\n<done>##DONE##</done>` : body;
  yield { kind: "text_delta", text };
  yield { kind: "completed", input_tokens: inputTokens, output_tokens: 30, reasoning_tokens: 0, model: request.model };
}

/** The text of the last message whose content has non-whitespace text. */
export function lastPromptText(messages: readonly unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isJsonObject(m as Json)) continue;
    const leaves: string[] = [];
    collectStrings((m as JsonObject).content, leaves);
    const t = leaves.join("\n");
    if (t.trim() !== "") return t;
  }
  return "";
}

function collectStrings(x: unknown, out: string[]): void {
  if (typeof x === "string") {
    if (x !== "") out.push(x);
  } else if (Array.isArray(x)) {
    for (const y of x) collectStrings(y, out);
  } else if (x !== null && typeof x === "object") {
    for (const v of Object.values(x)) collectStrings(v, out);
  }
}

/** A fresh placeholder per call (the values are mutable containers). The
 * `number` one is a float, `0.0`: a plain JS `0` would reach the script as
 * the int 0. */
const PLACEHOLDERS: Readonly<Record<string, () => Json>> = {
  string: () => "",
  integer: () => 0,
  number: () => new JsonFloat(0),
  boolean: () => false,
  array: () => [],
  object: () => ({}),
};

/** Every required parameter filled with a placeholder of its type. */
function placeholderArgs(tool: LlmToolDefinition): JsonObject {
  const schema = tool.parameters ?? {};
  const props = isJsonObject(schema.properties as Json) ? (schema.properties as JsonObject) : {};
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  const out: JsonObject = {};
  for (const name of required) {
    if (typeof name !== "string") continue;
    const p = props[name];
    const type = isJsonObject(p as Json) && typeof (p as JsonObject).type === "string" ? ((p as JsonObject).type as string) : "string";
    out[name] = (PLACEHOLDERS[type] ?? PLACEHOLDERS.string!)();
  }
  return out;
}
