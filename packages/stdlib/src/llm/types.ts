/**
 * The plain-JSON contract of the provider layer (spec/agents.md §5,
 * spec/extensions.md §3). Nothing here knows about Harn values: the
 * `llm_call` / `agent_loop` builtins convert options into an `LlmRequest`
 * and an `LlmResponse` back into a result dict.
 *
 * Field names that mirror Harn option or result keys are snake_case so the
 * conversion is a rename-free copy; TypeScript-only knobs are camelCase.
 */

/** One message of the conversation, as a transcript holds it. Both the
 * OpenAI-style shape (`tool_calls` on assistant turns, `role: "tool"`
 * results) and the Anthropic-style shape (content blocks `tool_use` /
 * `tool_result`) are accepted; every adapter renders its own wire form. */
export interface LlmMessage {
  role: "system" | "user" | "assistant" | "tool" | (string & {});
  content?: string | LlmContentBlock[] | null;
  /** Assistant turns: calls the model made (`{id, name, arguments}` or the
   * OpenAI `{id, type: "function", function: {name, arguments}}`). */
  tool_calls?: LlmMessageToolCall[] | null;
  /** `role: "tool"` messages: the call this result answers. */
  tool_call_id?: string;
  /** `role: "tool"` messages: the tool's name (Ollama wants it). */
  name?: string;
}

export interface LlmMessageToolCall {
  id?: string;
  type?: string;
  name?: string;
  /** An object, or a JSON string as OpenAI transcripts carry it. */
  arguments?: unknown;
  function?: { name?: string; arguments?: unknown };
}

/** Content blocks the layer understands. Unknown block types are dropped
 * when a request is rendered (images and documents are P2). */
export type LlmContentBlock =
  | { type: "text" | "output_text" | "input_text"; text: string; [k: string]: unknown }
  | { type: "tool_use" | "tool_call"; id: string; name: string; input?: unknown; arguments?: unknown; [k: string]: unknown }
  | {
      type: "tool_result";
      tool_use_id?: string;
      tool_call_id?: string;
      content?: unknown;
      is_error?: boolean;
      [k: string]: unknown;
    }
  | { type: string; [k: string]: unknown };

/** A native tool definition: JSON Schema parameters. */
export interface LlmToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object (default: an empty object schema). */
  parameters?: Record<string, unknown>;
  /** Native tool search (workflows.md §3.3): loaded on demand, grouped. */
  defer_loading?: boolean;
  namespace?: string;
  /** A provider-native tool (a tool-search meta-tool): sent as it is. */
  type?: string;
}

export type LlmToolChoice = "auto" | "none" | "required" | { name: string };

/** What to ask one provider. `provider` and `model` are already resolved
 * (see `resolve.ts`). */
export interface LlmRequest {
  provider: string;
  model: string;
  system?: string | null;
  messages: readonly LlmMessage[];
  tools?: LlmToolDefinition[] | null;
  tool_choice?: LlmToolChoice | null;
  max_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  top_k?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  frequency_penalty?: number | null;
  presence_penalty?: number | null;
  /** Transport choice only: `false` makes one plain request/response; the
   * accumulated result is identical (spec §5.2). Default `true`. */
  stream?: boolean | null;
  /** Per-request timeout in milliseconds (default 120 000). For a streaming
   * request it bounds the wait for the response head and then every gap
   * between chunks, so a long answer that keeps arriving is never cut off;
   * for `stream: false` it bounds the whole exchange. */
  timeout_ms?: number | null;
  /** Provider-specific body fields merged into the wire request as is
   * (e.g. Anthropic `thinking`, OpenAI `reasoning_effort`). */
  extra?: Record<string, unknown> | null;
}

/** The normalized event stream every adapter yields (extensions.md §3.1).
 * `kind` is the key scripts see in `on_event` dicts. */
export type LlmEvent =
  | { kind: "text_delta"; text: string }
  | { kind: "reasoning_delta"; text: string }
  | { kind: "tool_call_start"; id: string; name: string }
  /** `id` is absent when the wire gave no way to tell which call the
   * fragment belongs to; the accumulator attaches it to the last opened call
   * (or to a synthesized orphan entry). */
  | { kind: "tool_call_delta"; id?: string; args_fragment: string }
  | LlmCompletedEvent;

export interface LlmCompletedEvent {
  kind: "completed";
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  /** The wire's own stop reason (`end_turn`, `tool_use`, `stop`,
   * `tool_calls`, `length`, …). */
  stop_reason?: string;
  /** A provider's summary of its reasoning, when it sends one. */
  thinking_summary?: string;
  /** The model the server reports having used. */
  model?: string;
}

/** One tool call of a response, in arrival order. `arguments` is the parsed
 * JSON object, or `{_raw: text}` when the model sent something that is not
 * a JSON object. */
export interface LlmToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** The accumulated result of one model call. */
export interface LlmResponse {
  provider: string;
  model: string;
  text: string;
  /** Reasoning / thinking text, `""` when the model sent none. */
  reasoning: string;
  tool_calls: LlmToolCall[];
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  stop_reason?: string;
  thinking_summary?: string;
}

/**
 * A provider: one wire format bound to one endpoint and key. `stream`
 * yields the normalized events of one call; for `request.stream === false`
 * it makes a single non-streaming request and yields the same events from
 * the complete body, so one accumulator serves both transports.
 *
 * The iterator must stop the HTTP exchange when `signal` aborts and when the
 * consumer stops iterating early (`return()`), and must throw `LlmError`
 * for every failure it can classify.
 */
export interface LlmProvider {
  readonly name: string;
  /** True for providers that make no network request (the mock): the kill
   * switch does not apply, retries wait 0 ms without jitter, and no
   * fallback is tried (spec §3.5, §5.4). */
  readonly offline?: boolean;
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent>;
}

/** Injectable time, so retry tests need no real waiting and no timing
 * assertions. */
export interface LlmClock {
  now(): number;
  /** Resolve after `ms`; reject with `signal.reason` if it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}
