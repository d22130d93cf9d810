/**
 * Anthropic Messages API (`POST /v1/messages`), streaming over SSE:
 * `message_start`, `content_block_start` / `content_block_delta`
 * (`text_delta`, `input_json_delta`, `thinking_delta`) /
 * `content_block_stop`, `message_delta`, `message_stop`, `ping`, `error`.
 */

import { argumentsObject, canonicalize, hasTools, isNativeTool, partsText, setDefined, stopList, toolSchema, type Part } from "../messages";
import { jsonNumber, stringifyJsonKeepingFloats } from "../../core/json";
import { parseFrame, type HttpExchange } from "../transport";
import type { LlmEvent, LlmRequest } from "../types";
import { arr, HttpProvider, num, obj, str, type Json } from "./http";

export const ANTHROPIC_VERSION = "2023-06-01";
/** Anthropic requires `max_tokens`; the spec default (§2.2). */
const DEFAULT_MAX_TOKENS = 16384;

export class AnthropicProvider extends HttpProvider {
  protected body(req: LlmRequest, streaming: boolean): Record<string, unknown> {
    const canonical = canonicalize(req.messages);
    const systemTexts = req.system ? [req.system] : [];
    const messages: Array<{ role: string; content: Json[] }> = [];
    for (const m of canonical) {
      if (m.role === "system") {
        const t = partsText(m.parts);
        if (t !== "") systemTexts.push(t);
        continue;
      }
      // Tool results must lead a user turn's content.
      const parts = m.role === "user" ? [...m.parts].sort(resultsFirst) : m.parts;
      const blocks = parts.map(toBlock);
      if (blocks.length === 0) continue;
      const last = messages[messages.length - 1];
      if (last && last.role === m.role) last.content.push(...blocks);
      else messages.push({ role: m.role, content: blocks });
    }
    const body: Record<string, unknown> = {
      model: req.model,
      max_tokens: req.max_tokens ?? DEFAULT_MAX_TOKENS,
      messages,
    };
    if (systemTexts.length > 0) body.system = systemTexts.join("\n\n");
    if (hasTools(req.tools)) {
      body.tools = req.tools.map((t) =>
        isNativeTool(t)
          ? t
          : {
              name: t.name,
              ...(t.description !== undefined ? { description: t.description } : {}),
              input_schema: toolSchema(t),
              ...(t.defer_loading ? { defer_loading: true } : {}),
            },
      );
      const choice = req.tool_choice;
      if (choice === "auto") body.tool_choice = { type: "auto" };
      else if (choice === "required") body.tool_choice = { type: "any" };
      else if (choice === "none") body.tool_choice = { type: "none" };
      else if (choice && typeof choice === "object") body.tool_choice = { type: "tool", name: choice.name };
    }
    setDefined(body, {
      temperature: req.temperature,
      top_p: req.top_p,
      top_k: req.top_k,
      stop_sequences: stopList(req.stop),
    });
    if (streaming) body.stream = true;
    return body;
  }

  protected async *readStream(ex: HttpExchange, res: Response): AsyncGenerator<LlmEvent> {
    const ids = new Map<number, string>();
    const startInput = new Map<number, string>();
    const usage = new Usage();
    let done: LlmEvent | undefined;
    for await (const msg of ex.sse(res)) {
      if (done !== undefined || msg.data === "") continue;
      const ev = obj(parseFrame(ex, msg.data));
      switch (ev.type ?? msg.event) {
        case "message_start": {
          const message = obj(ev.message);
          usage.model = str(message.model);
          usage.add(obj(message.usage));
          break;
        }
        case "content_block_start": {
          const index = num(ev.index);
          const block = obj(ev.content_block);
          if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
            yield { kind: "text_delta", text: block.text };
          } else if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking !== "") {
            yield { kind: "reasoning_delta", text: block.thinking };
          } else if (block.type === "tool_use") {
            const id = str(block.id) ?? `toolu_${index}`;
            ids.set(index, id);
            const input = obj(block.input);
            if (Object.keys(input).length > 0) startInput.set(index, stringifyJsonKeepingFloats(input));
            yield { kind: "tool_call_start", id, name: str(block.name) ?? "" };
          }
          break;
        }
        case "content_block_delta": {
          const index = num(ev.index);
          const delta = obj(ev.delta);
          if (delta.type === "text_delta") {
            const text = str(delta.text);
            if (text) yield { kind: "text_delta", text };
          } else if (delta.type === "thinking_delta") {
            const text = str(delta.thinking);
            if (text) yield { kind: "reasoning_delta", text };
          } else if (delta.type === "input_json_delta") {
            const fragment = str(delta.partial_json);
            startInput.delete(index);
            if (fragment) {
              const id = ids.get(index);
              yield id !== undefined
                ? { kind: "tool_call_delta", id, args_fragment: fragment }
                : { kind: "tool_call_delta", args_fragment: fragment };
            }
          }
          break;
        }
        case "content_block_stop": {
          const index = num(ev.index);
          const input = startInput.get(index);
          const id = ids.get(index);
          if (input !== undefined && id !== undefined) {
            startInput.delete(index);
            yield { kind: "tool_call_delta", id, args_fragment: input };
          }
          break;
        }
        case "message_delta": {
          const stop = str(obj(ev.delta).stop_reason);
          if (stop) usage.stopReason = stop;
          usage.add(obj(ev.usage));
          break;
        }
        case "message_stop":
          done = usage.completed();
          ex.endOfMessage();
          break;
        case "error":
          throw ex.apiError(ev.error ?? msg.data);
        default:
          break; // ping and event types added after this adapter was written
      }
    }
    if (done === undefined) throw ex.truncated();
    yield done;
  }

  protected *readBody(_ex: HttpExchange, raw: unknown): Iterable<LlmEvent> {
    const body = obj(raw);
    for (const [index, b] of arr(body.content).entries()) {
      const block = obj(b);
      if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
        yield { kind: "text_delta", text: block.text };
      } else if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking !== "") {
        yield { kind: "reasoning_delta", text: block.thinking };
      } else if (block.type === "tool_use") {
        const id = str(block.id) ?? `toolu_${index}`;
        yield { kind: "tool_call_start", id, name: str(block.name) ?? "" };
        const input = obj(block.input);
        if (Object.keys(input).length > 0) yield { kind: "tool_call_delta", id, args_fragment: stringifyJsonKeepingFloats(input) };
      }
    }
    const usage = new Usage();
    usage.model = str(body.model);
    usage.stopReason = str(body.stop_reason);
    usage.add(obj(body.usage));
    yield usage.completed();
  }
}

function resultsFirst(a: Part, b: Part): number {
  return (a.type === "tool_result" ? 0 : 1) - (b.type === "tool_result" ? 0 : 1);
}

function toBlock(p: Part): Json {
  switch (p.type) {
    case "text":
      return { type: "text", text: p.text };
    case "tool_call":
      return { type: "tool_use", id: p.id, name: p.name, input: argumentsObject(p.arguments) };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: p.tool_call_id,
        content: p.content,
        ...(p.is_error ? { is_error: true } : {}),
      };
    case "image":
      return {
        type: "image",
        source: p.base64 !== undefined ? { type: "base64", media_type: p.media_type, data: p.base64 } : { type: "url", url: p.url },
      };
  }
}

/** Usage figures arrive in pieces (`message_start`, then cumulative
 * `message_delta` counts). */
class Usage {
  model: string | undefined;
  stopReason: string | undefined;
  private input = 0;
  private output = 0;
  private cacheRead = 0;
  private cacheWrite = 0;

  add(u: Json): void {
    if (jsonNumber(u.input_tokens) !== undefined) this.input = num(u.input_tokens);
    if (jsonNumber(u.output_tokens) !== undefined) this.output = num(u.output_tokens);
    if (jsonNumber(u.cache_read_input_tokens) !== undefined) this.cacheRead = num(u.cache_read_input_tokens);
    if (jsonNumber(u.cache_creation_input_tokens) !== undefined) this.cacheWrite = num(u.cache_creation_input_tokens);
  }

  completed(): LlmEvent {
    return {
      kind: "completed",
      input_tokens: this.input,
      output_tokens: this.output,
      reasoning_tokens: 0,
      cache_read_tokens: this.cacheRead,
      cache_write_tokens: this.cacheWrite,
      ...(this.stopReason !== undefined ? { stop_reason: this.stopReason } : {}),
      ...(this.model !== undefined ? { model: this.model } : {}),
    };
  }
}
