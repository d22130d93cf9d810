/**
 * Ollama `POST /api/chat`: newline-delimited JSON objects
 * `{model, message: {role, content, thinking?, tool_calls?}, done}` ending
 * with one `done: true` object carrying `done_reason`, `prompt_eval_count`
 * and `eval_count`. Tool calls arrive whole (arguments as an object) and
 * usually without ids; ids `call_<n>` are synthesized in arrival order, the
 * same way for the streaming and the single-object transport.
 */

import { argumentsObject, canonicalize, chatFunctionTools, hasTools, imageParts, partsText, setDefined, stopList } from "../messages";
import { stringifyJsonKeepingFloats } from "../../core/json";
import { parseFrame, type HttpExchange } from "../transport";
import type { LlmEvent, LlmRequest } from "../types";
import { arr, HttpProvider, num, obj, str, type Json } from "./http";

export class OllamaProvider extends HttpProvider {
  protected body(req: LlmRequest, streaming: boolean): Record<string, unknown> {
    const messages: Json[] = [];
    if (req.system) messages.push({ role: "system", content: req.system });
    const toolNames = new Map<string, string>();
    for (const m of canonicalize(req.messages)) {
      if (m.role === "assistant") {
        const calls: Json[] = [];
        for (const p of m.parts) {
          if (p.type !== "tool_call") continue;
          toolNames.set(p.id, p.name);
          calls.push({ function: { name: p.name, arguments: argumentsObject(p.arguments) } });
        }
        messages.push({ role: "assistant", content: partsText(m.parts), ...(calls.length ? { tool_calls: calls } : {}) });
        continue;
      }
      for (const p of m.parts) {
        if (p.type !== "tool_result") continue;
        const name = p.name ?? toolNames.get(p.tool_call_id);
        messages.push({ role: "tool", content: p.content, ...(name !== undefined ? { tool_name: name } : {}) });
      }
      const text = partsText(m.parts);
      // url images are refused before the request (agent/llm/gates.ts)
      const images = imageParts(m.parts).flatMap((p) => (p.base64 !== undefined ? [p.base64] : []));
      if (images.length > 0) messages.push({ role: m.role, content: text, images });
      else if (text !== "" || m.parts.length === 0) messages.push({ role: m.role, content: text });
    }
    const body: Record<string, unknown> = { model: req.model, messages, stream: streaming };
    // Ollama has no tool_choice; "none" means: do not offer the tools.
    if (hasTools(req.tools) && req.tool_choice !== "none") {
      body.tools = chatFunctionTools(req.tools);
    }
    const options: Record<string, unknown> = {};
    setDefined(options, {
      num_predict: req.max_tokens,
      temperature: req.temperature,
      top_p: req.top_p,
      top_k: req.top_k,
      stop: stopList(req.stop),
      seed: req.seed,
      frequency_penalty: req.frequency_penalty,
      presence_penalty: req.presence_penalty,
    });
    if (Object.keys(options).length > 0) body.options = options;
    return body;
  }

  protected async *readStream(ex: HttpExchange, res: Response): AsyncGenerator<LlmEvent> {
    const reader = new ChunkReader(ex);
    for await (const line of ex.lines(res)) {
      if (reader.done) continue;
      yield* reader.read(obj(parseFrame(ex, line)));
      if (reader.done) ex.endOfMessage();
    }
    if (!reader.done) throw ex.truncated();
  }

  protected *readBody(ex: HttpExchange, body: unknown): Iterable<LlmEvent> {
    const reader = new ChunkReader(ex);
    yield* reader.read(obj(body));
    if (!reader.done) throw ex.truncated();
  }
}

class ChunkReader {
  done = false;
  private calls = 0;

  constructor(private readonly ex: HttpExchange) {}

  *read(chunk: Json): Generator<LlmEvent> {
    if (chunk.error !== undefined) throw this.ex.apiError(chunk.error);
    const message = obj(chunk.message);
    const thinking = str(message.thinking);
    if (thinking) yield { kind: "reasoning_delta", text: thinking };
    const content = str(message.content);
    if (content) yield { kind: "text_delta", text: content };
    for (const t of arr(message.tool_calls)) {
      const call = obj(t);
      const fn = obj(call.function);
      this.calls++;
      const id = str(call.id) || `call_${this.calls}`;
      yield { kind: "tool_call_start", id, name: str(fn.name) ?? "" };
      const args = typeof fn.arguments === "string" ? fn.arguments : stringifyJsonKeepingFloats(fn.arguments ?? {});
      yield { kind: "tool_call_delta", id, args_fragment: args };
    }
    if (chunk.done === true) {
      this.done = true;
      const reason = str(chunk.done_reason);
      const model = str(chunk.model);
      yield {
        kind: "completed",
        input_tokens: num(chunk.prompt_eval_count),
        output_tokens: num(chunk.eval_count),
        reasoning_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        ...(reason !== undefined ? { stop_reason: reason } : {}),
        ...(model !== undefined ? { model } : {}),
      };
    }
  }
}
