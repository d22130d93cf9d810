/**
 * OpenAI Responses API (`POST /v1/responses`), streaming over SSE:
 * `response.created`, `response.output_item.added`,
 * `response.output_text.delta`, `response.function_call_arguments.delta`,
 * `response.reasoning_summary_text.delta`, `response.output_item.done`,
 * then `response.completed` (or `response.incomplete` / `response.failed` /
 * `error`). Tool calls are identified by `call_id`; argument deltas name the
 * output item, so the adapter maps item ids to call ids.
 */

import { argumentsString, canonicalize, hasTools, imageParts, imageUrl, isNativeTool, searchFlags, partsText, setDefined, toolSchema } from "../messages";
import { parseFrame, type HttpExchange } from "../transport";
import type { LlmEvent, LlmRequest } from "../types";
import { arr, HttpProvider, num, obj, str, type Json } from "./http";

export class OpenAiResponsesProvider extends HttpProvider {
  protected body(req: LlmRequest, streaming: boolean): Record<string, unknown> {
    const input: Json[] = [];
    for (const m of canonicalize(req.messages)) {
      for (const p of m.parts) {
        if (p.type === "tool_result") input.push({ type: "function_call_output", call_id: p.tool_call_id, output: p.content });
      }
      const text = partsText(m.parts);
      const images = imageParts(m.parts);
      if (images.length > 0) {
        const content: Json[] = text === "" ? [] : [{ type: "input_text", text }];
        for (const p of images) content.push({ type: "input_image", image_url: imageUrl(p), ...(p.detail ? { detail: p.detail } : {}) });
        input.push({ role: m.role, content });
      } else if (text !== "" || m.parts.length === 0) input.push({ role: m.role, content: text });
      for (const p of m.parts) {
        if (p.type === "tool_call") {
          input.push({ type: "function_call", call_id: p.id, name: p.name, arguments: argumentsString(p.arguments) });
        }
      }
    }
    const body: Record<string, unknown> = { model: req.model, input, store: false };
    if (req.system) body.instructions = req.system;
    if (hasTools(req.tools)) {
      body.tools = req.tools.map((t) =>
        isNativeTool(t)
          ? t
          : {
              type: "function",
              name: t.name,
              ...(t.description !== undefined ? { description: t.description } : {}),
              parameters: toolSchema(t),
              ...searchFlags(t),
            },
      );
      const choice = req.tool_choice;
      if (typeof choice === "string") body.tool_choice = choice;
      else if (choice && typeof choice === "object") body.tool_choice = { type: "function", name: choice.name };
    }
    setDefined(body, { max_output_tokens: req.max_tokens, temperature: req.temperature, top_p: req.top_p });
    if (streaming) body.stream = true;
    return body;
  }

  protected async *readStream(ex: HttpExchange, res: Response): AsyncGenerator<LlmEvent> {
    /** output item id -> call id, and whether its arguments arrived. */
    const calls = new Map<string, { callId: string; gotArgs: boolean }>();
    let done: LlmEvent | undefined;
    for await (const msg of ex.sse(res)) {
      if (done !== undefined || msg.data === "" || msg.data === "[DONE]") continue;
      const ev = obj(parseFrame(ex, msg.data));
      switch (ev.type ?? msg.event) {
        case "response.output_item.added": {
          const item = obj(ev.item);
          if (item.type === "function_call") {
            const callId = str(item.call_id) ?? str(item.id) ?? `call_${num(ev.output_index)}`;
            calls.set(str(item.id) ?? callId, { callId, gotArgs: false });
            yield { kind: "tool_call_start", id: callId, name: str(item.name) ?? "" };
            const args = str(item.arguments);
            if (args) {
              calls.get(str(item.id) ?? callId)!.gotArgs = true;
              yield { kind: "tool_call_delta", id: callId, args_fragment: args };
            }
          }
          break;
        }
        case "response.output_text.delta": {
          const text = str(ev.delta);
          if (text) yield { kind: "text_delta", text };
          break;
        }
        case "response.reasoning_summary_text.delta":
        case "response.reasoning_text.delta": {
          const text = str(ev.delta);
          if (text) yield { kind: "reasoning_delta", text };
          break;
        }
        case "response.function_call_arguments.delta": {
          const fragment = str(ev.delta);
          if (!fragment) break;
          const call = calls.get(str(ev.item_id) ?? "");
          if (call) call.gotArgs = true;
          yield call
            ? { kind: "tool_call_delta", id: call.callId, args_fragment: fragment }
            : { kind: "tool_call_delta", args_fragment: fragment };
          break;
        }
        case "response.output_item.done": {
          // A call whose arguments were only given whole, at the end.
          const item = obj(ev.item);
          if (item.type !== "function_call") break;
          const key = str(item.id) ?? str(item.call_id) ?? "";
          let call = calls.get(key);
          if (!call) {
            call = { callId: str(item.call_id) ?? key, gotArgs: false };
            calls.set(key, call);
            yield { kind: "tool_call_start", id: call.callId, name: str(item.name) ?? "" };
          }
          const args = str(item.arguments);
          if (!call.gotArgs && args) {
            call.gotArgs = true;
            yield { kind: "tool_call_delta", id: call.callId, args_fragment: args };
          }
          break;
        }
        case "response.completed":
        case "response.incomplete":
          done = completed(obj(ev.response));
          ex.endOfMessage();
          break;
        case "response.failed":
          throw ex.apiError(obj(ev.response).error ?? msg.data);
        case "error":
          // `type` is the event's own ("error"); the failure is in `code`.
          throw ex.apiError({ code: ev.code, message: ev.message ?? msg.data });
        default:
          break;
      }
    }
    if (done === undefined) throw ex.truncated();
    yield done;
  }

  protected *readBody(ex: HttpExchange, raw: unknown): Iterable<LlmEvent> {
    const body = obj(raw);
    if (body.status === "failed" || (body.error !== null && body.error !== undefined)) {
      throw ex.apiError(body.error ?? body);
    }
    for (const [index, o] of arr(body.output).entries()) {
      const item = obj(o);
      if (item.type === "message") {
        for (const c of arr(item.content)) {
          const part = obj(c);
          if (part.type === "output_text" && typeof part.text === "string" && part.text !== "") {
            yield { kind: "text_delta", text: part.text };
          }
        }
      } else if (item.type === "reasoning") {
        for (const s of arr(item.summary)) {
          const text = str(obj(s).text);
          if (text) yield { kind: "reasoning_delta", text };
        }
      } else if (item.type === "function_call") {
        const id = str(item.call_id) ?? str(item.id) ?? `call_${index}`;
        yield { kind: "tool_call_start", id, name: str(item.name) ?? "" };
        const args = str(item.arguments);
        if (args) yield { kind: "tool_call_delta", id, args_fragment: args };
      }
    }
    yield completed(body);
  }
}

function completed(response: Json): LlmEvent {
  const u = obj(response.usage);
  const incomplete = str(obj(response.incomplete_details).reason);
  const stop = incomplete ?? str(response.status);
  const model = str(response.model);
  return {
    kind: "completed",
    input_tokens: num(u.input_tokens),
    output_tokens: num(u.output_tokens),
    reasoning_tokens: num(obj(u.output_tokens_details).reasoning_tokens),
    cache_read_tokens: num(obj(u.input_tokens_details).cached_tokens),
    cache_write_tokens: 0,
    ...(stop !== undefined ? { stop_reason: stop } : {}),
    ...(model !== undefined ? { model } : {}),
  };
}
