/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`) and every server
 * that speaks it (`openrouter`, `huggingface`, `local`): SSE of
 * `chat.completion.chunk` objects whose `delta.tool_calls[]` fragments are
 * keyed by `index`, a usage chunk (`stream_options.include_usage`), then
 * `data: [DONE]`.
 */

import { argumentsString, canonicalize, chatFunctionTools, hasTools, imageParts, imageUrl, partsText, setDefined } from "../messages";
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
      const images = imageParts(m.parts);
      if (images.length > 0) {
        const content: Json[] = text === "" ? [] : [{ type: "text", text }];
        for (const p of images) content.push({ type: "image_url", image_url: { url: imageUrl(p), ...(p.detail ? { detail: p.detail } : {}) } });
        messages.push({ role: m.role, content });
      } else if (text !== "" || m.parts.length === 0) messages.push({ role: m.role, content: text });
    }
    const body: Record<string, unknown> = { model: req.model, messages };
    if (hasTools(req.tools)) {
      body.tools = chatFunctionTools(req.tools);
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
      if (chunk.error !== undefined) throw ex.apiError(chunk.error);
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
    if (body.error !== undefined) throw ex.apiError(body.error);
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
 * Turns the tool-call fragments of one response into calls, none lost and
 * none merged. OpenAI sends a call's first fragment with its `index`, `id`
 * and function name, later ones with the index and an `arguments` piece.
 * Compatible servers (local ones above all) differ, so a fragment starts a
 * new call when there is no open call at its index (its position in the
 * chunk's list when it has none), when it carries an id other than that
 * call's, or when it names a function and the open call already has a
 * name; otherwise it continues the open call at its index, or the last one
 * opened. Every call gets an id of its own: a missing id is synthesized
 * (`call_<n>`), and an id the response already used (`call_0` for every
 * call) becomes `<id>_2`, `<id>_3`, … so the results sent back name each
 * call unambiguously.
 */
class ToolCallIndex {
  private readonly byIndex = new Map<number, OpenCall>();
  private last: OpenCall | undefined;
  private readonly ids = new Set<string>();

  *fragment(t: Json, position: number): Generator<LlmEvent> {
    const index = jsonNumber(t.index) ?? position;
    const fn = obj(t.function);
    const wireId = str(t.id) || undefined;
    const name = str(fn.name) || undefined;
    const args = typeof fn.arguments === "string" ? fn.arguments : fn.arguments !== undefined ? stringifyJsonKeepingFloats(fn.arguments) : "";
    const anonymous = wireId === undefined && name === undefined;
    let call = this.byIndex.get(index) ?? (anonymous ? this.last : undefined);
    if (call === undefined && anonymous) {
      // Arguments before any call: the accumulator keeps them as an orphan entry.
      if (args !== "") yield { kind: "tool_call_delta", args_fragment: args };
      return;
    }
    const starts = call === undefined || (wireId !== undefined ? wireId !== call.wireId : name !== undefined && call.name !== "");
    if (starts) {
      call = { id: this.unique(wireId ?? `call_${this.ids.size}`), wireId, name: name ?? "" };
      this.byIndex.set(index, call);
      this.last = call;
      yield { kind: "tool_call_start", id: call.id, name: call.name };
    } else if (call !== undefined && name !== undefined && call.name === "") {
      // The name arrived after the id (the accumulator fills it in).
      call.name = name;
      yield { kind: "tool_call_start", id: call.id, name };
    }
    if (args !== "") yield { kind: "tool_call_delta", id: call!.id, args_fragment: args };
  }

  private unique(id: string): string {
    let out = id;
    for (let k = 2; this.ids.has(out); k++) out = `${id}_${k}`;
    this.ids.add(out);
    return out;
  }
}

interface OpenCall {
  /** The id the call is known by from here on (transcript, results). */
  id: string;
  /** The id the server sent, if any. */
  wireId: string | undefined;
  name: string;
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
