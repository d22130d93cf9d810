/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`) and every server
 * that speaks it (`openrouter`, `huggingface`, `local`): SSE of
 * `chat.completion.chunk` objects whose `delta.tool_calls[]` fragments are
 * keyed by `index`, a usage chunk (`stream_options.include_usage`), then
 * `data: [DONE]`.
 */

import { argumentsString, canonicalize, hasTools, partsText, setDefined, toolSchema } from "../messages";
import { jsonNumber, stringifyJsonKeepingFloats } from "../../core/json";
import { parseFrame, type HttpExchange } from "../transport";
import type { LlmEvent, LlmRequest } from "../types";
import { arr, HttpProvider, num, obj, str, type HttpProviderConfig, type Json } from "./http";

export interface OpenAiChatOptions {
  /** OpenAI itself wants `max_completion_tokens` (o-series models reject
   * `max_tokens`); compatible servers know `max_tokens`. */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** Whether the server accepts `top_k` (OpenAI rejects unknown fields). */
  acceptsTopK: boolean;
}

export class OpenAiChatProvider extends HttpProvider {
  constructor(
    config: HttpProviderConfig,
    private readonly options: OpenAiChatOptions,
  ) {
    super(config);
  }

  protected body(req: LlmRequest, streaming: boolean): Record<string, unknown> {
    const messages: Json[] = [];
    if (req.system) messages.push({ role: "system", content: req.system });
    for (const m of canonicalize(req.messages)) {
      if (m.role === "assistant") {
        const calls = m.parts.flatMap((p) =>
          p.type === "tool_call"
            ? [{ id: p.id, type: "function", function: { name: p.name, arguments: argumentsString(p.arguments) } }]
            : [],
        );
        const text = partsText(m.parts);
        if (text === "" && calls.length === 0) continue;
        messages.push({ role: "assistant", content: text === "" ? null : text, ...(calls.length ? { tool_calls: calls } : {}) });
        continue;
      }
      for (const p of m.parts) {
        if (p.type === "tool_result") messages.push({ role: "tool", tool_call_id: p.tool_call_id, content: p.content });
      }
      const text = partsText(m.parts);
      if (text !== "" || m.parts.length === 0) messages.push({ role: m.role, content: text });
    }
    const body: Record<string, unknown> = { model: req.model, messages };
    if (hasTools(req.tools)) {
      body.tools = req.tools.map((t) => ({
        type: "function",
        function: {
          name: t.name,
          ...(t.description !== undefined ? { description: t.description } : {}),
          parameters: toolSchema(t),
        },
      }));
      const choice = req.tool_choice;
      if (typeof choice === "string") body.tool_choice = choice;
      else if (choice && typeof choice === "object") body.tool_choice = { type: "function", function: { name: choice.name } };
    }
    setDefined(body, {
      [this.options.maxTokensField]: req.max_tokens,
      temperature: req.temperature,
      top_p: req.top_p,
      top_k: this.options.acceptsTopK ? req.top_k : undefined,
      stop: req.stop,
      seed: req.seed,
      frequency_penalty: req.frequency_penalty,
      presence_penalty: req.presence_penalty,
    });
    if (streaming) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    return body;
  }

  protected async *readStream(ex: HttpExchange, res: Response): AsyncGenerator<LlmEvent> {
    const calls = new ToolCallIndex();
    const end = new Completion();
    let finished = false;
    let sawDone = false;
    for await (const msg of ex.sse(res)) {
      if (sawDone) continue;
      const data = msg.data.trim();
      if (data === "[DONE]") {
        sawDone = true;
        ex.endOfMessage();
        continue;
      }
      if (data === "") continue;
      const chunk = obj(parseFrame(ex, data));
      if (chunk.error !== undefined) throw ex.fail("body", JSON.stringify(chunk.error));
      end.read(chunk);
      for (const c of arr(chunk.choices)) {
        const choice = obj(c);
        const delta = obj(choice.delta);
        const reasoning = str(delta.reasoning_content) ?? str(delta.reasoning);
        if (reasoning) yield { kind: "reasoning_delta", text: reasoning };
        const content = str(delta.content);
        if (content) yield { kind: "text_delta", text: content };
        for (const [position, t] of arr(delta.tool_calls).entries()) yield* calls.fragment(obj(t), position);
        const reason = str(choice.finish_reason);
        if (reason) {
          end.stopReason = reason;
          finished = true;
        }
      }
    }
    // Some compatible servers end the body after the last choice without
    // `[DONE]`; that is a complete answer. Without a finish reason it is not.
    if (!finished && !sawDone) throw ex.truncated();
    yield end.event();
  }

  protected *readBody(ex: HttpExchange, raw: unknown): Iterable<LlmEvent> {
    const body = obj(raw);
    if (body.error !== undefined) throw ex.fail("body", JSON.stringify(body.error));
    const end = new Completion();
    end.read(body);
    const choice = obj(arr(body.choices)[0]);
    const message = obj(choice.message);
    const reasoning = str(message.reasoning_content) ?? str(message.reasoning);
    if (reasoning) yield { kind: "reasoning_delta", text: reasoning };
    const content = str(message.content);
    if (content) yield { kind: "text_delta", text: content };
    const calls = new ToolCallIndex();
    for (const [position, t] of arr(message.tool_calls).entries()) yield* calls.fragment(obj(t), position);
    end.stopReason = str(choice.finish_reason);
    yield end.event();
  }
}

/**
 * Maps the per-index fragments of streamed tool calls to call ids. The
 * first fragment of a call carries its id and name, later ones only
 * `index` and an `arguments` piece. Servers differ: some omit `index`
 * (position in the list counts), some omit ids (one is synthesized from the
 * index), some reuse index 0 for every call but send a fresh id.
 */
class ToolCallIndex {
  private readonly ids = new Map<number, string>();

  *fragment(t: Json, position: number): Generator<LlmEvent> {
    const index = jsonNumber(t.index) ?? position;
    const fn = obj(t.function);
    const id = str(t.id);
    const name = str(fn.name);
    const current = this.ids.get(index);
    if ((id && id !== current) || (current === undefined && name)) {
      const callId = id || `call_${index}`;
      this.ids.set(index, callId);
      yield { kind: "tool_call_start", id: callId, name: name ?? "" };
    } else if (current !== undefined && name) {
      // A name that arrives after the id (start again; the accumulator
      // fills in a missing name and never duplicates a call).
      yield { kind: "tool_call_start", id: current, name };
    }
    const args = typeof fn.arguments === "string" ? fn.arguments : fn.arguments !== undefined ? stringifyJsonKeepingFloats(fn.arguments) : "";
    if (args !== "") {
      const target = this.ids.get(index);
      yield target !== undefined
        ? { kind: "tool_call_delta", id: target, args_fragment: args }
        : { kind: "tool_call_delta", args_fragment: args };
    }
  }
}

class Completion {
  stopReason: string | undefined;
  private model: string | undefined;
  private usage: Json | undefined;

  read(chunk: Json): void {
    const model = str(chunk.model);
    if (model) this.model = model;
    if (chunk.usage !== null && typeof chunk.usage === "object") this.usage = obj(chunk.usage);
  }

  event(): LlmEvent {
    const u = this.usage ?? {};
    return {
      kind: "completed",
      input_tokens: num(u.prompt_tokens),
      output_tokens: num(u.completion_tokens),
      reasoning_tokens: num(obj(u.completion_tokens_details).reasoning_tokens),
      cache_read_tokens: num(obj(u.prompt_tokens_details).cached_tokens),
      cache_write_tokens: 0,
      ...(this.stopReason !== undefined ? { stop_reason: this.stopReason } : {}),
      ...(this.model !== undefined ? { model: this.model } : {}),
    };
  }
}
