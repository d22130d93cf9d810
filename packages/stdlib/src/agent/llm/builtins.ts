/**
 * `llm_call(prompt, system?, options?)` and `llm_call_safe` (spec/agents.md
 * §3.8): one model call, its result dict, and the thrown error dict.
 */
import { display, float, HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { extractJsonText, parseJson } from "../../core/json";
import { LlmError, LlmInterrupted, LlmSetupError } from "../../llm/errors";
import type { LlmResponse } from "../../llm/types";
import { fromJson, toJson, uuidV7, type JsonObject } from "../json";
import { transcriptDict } from "../loop/result";
import { messagesFromJson, requestMessages, userMessage, type Msg } from "../loop/transcript";
import { nativeDefinition, specOf, toolEntries } from "../tools/spec";
import { visibleText } from "../tools/text_protocol";
import { cacheSavings } from "./budget";
import { callModel } from "./call";
import { readLlmSettings, setupError } from "./options";

export const LLM_CALL_BACKOFF_MS = 250;

function usageEntries(res: LlmResponse): [string, Value][] {
  const read = res.cache_read_tokens;
  const write = res.cache_write_tokens;
  const p = read + write > res.input_tokens ? res.input_tokens + read + write : res.input_tokens;
  return [
    ["input_tokens", res.input_tokens],
    ["output_tokens", res.output_tokens],
    ["cache_read_tokens", read],
    ["cache_write_tokens", write],
    ["cache_creation_input_tokens", write],
    ["cache_hit_ratio", float(p === 0 ? 0 : read / p)],
    ["cache_savings_usd", float(cacheSavings(res.model, read, write))],
  ];
}

function wantsJson(options: HDict): boolean {
  return (
    options.get("response_format") === "json" ||
    options.has("output_format") ||
    options.has("output_schema") ||
    options.has("json_schema")
  );
}

/** The result dict of one call. */
export function callResult(res: LlmResponse, provider: string, sent: Msg[], options: HDict): HDict {
  const m = new Map<string, Value>();
  const prose = visibleText(res.text);
  m.set("text", res.text);
  m.set("prose", prose === "" ? res.text : prose);
  m.set("visible_text", prose);
  m.set("model", res.model);
  m.set("provider", provider);
  const usage = usageEntries(res);
  for (const [k, v] of usage) m.set(k, v);
  m.set("usage", new HDict(new Map(usage)));
  const blocks: Value[] = [];
  if (res.text !== "") blocks.push(HDict.of({ type: "output_text", text: res.text, visibility: "public" }));
  for (const c of res.tool_calls) {
    blocks.push(HDict.of({ type: "tool_call", id: c.id, name: c.name, arguments: fromJson(c.arguments), visibility: "internal" }));
  }
  m.set("blocks", blocks);
  if (res.tool_calls.length > 0) {
    m.set(
      "tool_calls",
      res.tool_calls.map((c) => HDict.of({ id: c.id, type: "tool_call", name: c.name, arguments: fromJson(c.arguments) })),
    );
  }
  if (res.reasoning !== "") {
    m.set("thinking", res.reasoning);
    m.set("private_reasoning", res.reasoning);
  }
  if (res.stop_reason !== undefined) m.set("stop_reason", res.stop_reason);
  if (wantsJson(options)) {
    try {
      m.set("data", parseJson(extractJsonText(res.text)));
    } catch {
      // no parseable JSON: no `data` key (§3.9)
    }
  }
  const reply: JsonObject = { role: "assistant", content: res.text };
  if (res.tool_calls.length > 0) reply.tool_calls = res.tool_calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments as JsonObject }));
  m.set("transcript", transcriptDict(`transcript_${uuidV7()}`, [...sent, reply as Msg], "active"));
  return new HDict(m);
}

async function llmCall(args: Value[], ctx: CallContext): Promise<HDict> {
  const rt: Runtime = ctx.runtime;
  const prompt = args[0] ?? null;
  const systemArg = args[1] ?? null;
  const options = args[2] instanceof HDict ? args[2] : HDict.empty();
  const llm = readLlmSettings(rt, options, { retries: 0, backoffMs: LLM_CALL_BACKOFF_MS });
  const given = options.get("messages");
  const messages = Array.isArray(given)
    ? messagesFromJson(toJson(given))
    : [userMessage(prompt === null ? "" : typeof prompt === "string" ? prompt : display(prompt))];
  const tools = toolEntries(options.get("tools"))
    .entries.map(specOf)
    .filter((s) => s !== null)
    .map(nativeDefinition);
  const system = systemArg === null ? null : typeof systemArg === "string" ? systemArg : display(systemArg);
  const sent = requestMessages(messages);
  try {
    const res = await callModel(rt, llm, { system, messages: sent, tools }, ctx.signal);
    const intercepted = llm.provider === "mock" || res.provider === "mock";
    return callResult(res, intercepted ? "mock" : res.provider, sent as unknown as Msg[], options);
  } catch (e) {
    throw llmCallError(e, ctx);
  }
}

/** `llm_call`'s failure shapes (§3.8): a thrown dict for provider errors. */
function llmCallError(e: unknown, ctx: CallContext): unknown {
  if (e instanceof LlmError) return HarnError.thrown(fromJson(e.toDict()));
  if (e instanceof LlmSetupError) return setupError(e);
  if (e instanceof LlmInterrupted && ctx.signal.aborted) return ctx.signal.reason;
  return e;
}

export function installLlmCall(rt: Runtime): void {
  rt.defineBuiltin("llm_call", llmCall);
  rt.defineBuiltin("llm_call_safe", async (args, ctx) => {
    try {
      const response = await llmCall(args, ctx);
      return HDict.of({ ok: true, response, error: null });
    } catch (e) {
      if (e instanceof HarnError && e.kind === "thrown" && e.value instanceof HDict && e.value.has("category")) {
        return HDict.of({ ok: false, response: null, error: e.value });
      }
      throw e;
    }
  });
}
