/**
 * `llm_call(prompt, system?, options?)` and `llm_call_safe` (spec/agents.md
 * §3.8): one model call, its result dict, and the thrown error dict.
 */
import { callTools } from "../tools/search";
import { display, float, HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { extractJsonText, fromJson, type JsonObject, parseJson, toJson } from "../../core/json";
import { LlmError, LlmInterrupted, LlmSetupError } from "../../llm/errors";
import type { LlmResponse } from "../../llm/types";
import { uuidV7 } from "../../core/encoding";
import { transcriptDict } from "../loop/result";
import { replyEvents } from "../transcript/events";
import { applyExperiment, experimentRecord, parseExperiment } from "./experiments";
import { messagesFromJson, requestMessages, userMessage, type Msg } from "../loop/transcript";
import { visibleText } from "../tools/text_protocol";
import { markInterrupted } from "../../llm/turns";
import { cacheSavings } from "./budget";
import { scriptEventHandler } from "./events";
import type { ModelRequest } from "./call";
import {
  agentTrace,
  completeStructured,
  readStructured,
  schemaError,
  structuredArgs,
  structuredOptions,
  usageDict,
  type StructuredSpec,
} from "./structured";
import { readLlmSettings, setupError, type LlmSettings } from "./options";
import { builtinModule } from "../../registry/define";

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
export function callResult(rt: Runtime, res: LlmResponse, provider: string, sent: Msg[], options: HDict): HDict {
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
  if (res.thinking_summary !== undefined) m.set("thinking_summary", res.thinking_summary);
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
  const events = replyEvents(rt, res, options).map(toJson);
  m.set("transcript", transcriptDict(rt, `transcript_${uuidV7(rt)}`, [...sent, reply as Msg], "active", null, events));
  return new HDict(m);
}

interface Prepared {
  llm: LlmSettings;
  req: ModelRequest;
  sent: Msg[];
  options: HDict;
}

function prepare(ctx: CallContext, prompt: Value, systemArg: Value, options: HDict, builtin = "llm_call"): Prepared {
  const rt = ctx.runtime;
  const llm = readLlmSettings(rt, options, { retries: 0, backoffMs: LLM_CALL_BACKOFF_MS });
  llm.onEvent = scriptEventHandler(ctx, options.get("on_event"), builtin);
  const given = options.get("messages");
  const messages = Array.isArray(given)
    ? messagesFromJson(toJson(given))
    : [userMessage(prompt === null ? "" : typeof prompt === "string" ? prompt : display(prompt))];
  const tools = callTools(options, llm.provider, llm.model);
  const system = systemArg === null ? null : typeof systemArg === "string" ? systemArg : display(systemArg);
  const sent = requestMessages(messages);
  return { llm, req: { system, messages: sent, tools }, sent: sent as unknown as Msg[], options };
}

/** The call with its `structural_experiment` applied (workflows.md §5.8):
 * the reshaped request is what is sent and what the transcript keeps. */
async function withExperiment(p: Prepared, ctx: CallContext): Promise<Prepared> {
  const e = parseExperiment(p.options.get("structural_experiment"));
  if (e === null) return p;
  const { system, messages } = await applyExperiment(ctx, e, p.req.system, p.req.messages);
  return { ...p, req: { ...p.req, system, messages }, sent: messages as unknown as Msg[], options: p.options.with("structural_experiment", experimentRecord(e)) };
}

/** One `llm_call`, with structured output when the options ask for it. */
async function call(p: Prepared, ctx: CallContext): Promise<HDict> {
  const spec = readStructured(p.options, 1);
  const out = await completeStructured(ctx.runtime, p.llm, p.req, spec, ctx.signal);
  if (out.errors.length > 0) {
    if (spec.validation === "error") throw schemaError(p.llm, out.errors);
    ctx.err(`warning: LLM output failed schema validation: ${out.errors.join("; ")}\n`);
  }
  const intercepted = p.llm.provider === "mock" || out.res.provider === "mock";
  return callResult(ctx.runtime, out.res, intercepted ? "mock" : out.res.provider, p.sent, p.options);
}

async function llmCall(args: Value[], ctx: CallContext): Promise<HDict> {
  const options = args[2] instanceof HDict ? args[2] : HDict.empty();
  let p: Prepared | undefined;
  try {
    p = await withExperiment(prepare(ctx, args[0] ?? null, args[1] ?? null, options), ctx);
    return await call(p, ctx);
  } catch (e) {
    if (e instanceof LlmInterrupted && p && !ctx.signal.aborted) return interruptedResult(ctx.runtime, e.partial, p);
    throw llmCallError(e, ctx);
  }
}

/**
 * [TS decision] A first Ctrl-C during `llm_call` ends the call like an
 * agent turn (extensions.md §3.3): the script gets the reply so far, its
 * text ending in ` [interrupted]`, with `stop_reason: "interrupted"` and
 * `interrupted: true`; tool calls that were still arriving are dropped.
 */
function interruptedResult(rt: Runtime, partial: LlmResponse, p: Prepared): HDict {
  const res: LlmResponse = { ...partial, text: markInterrupted(partial.text), tool_calls: [], stop_reason: "interrupted" };
  const provider = p.llm.provider === "mock" || partial.provider === "mock" ? "mock" : partial.provider;
  return callResult(rt, res, provider, p.sent, p.options).with("interrupted", true);
}

/** `llm_call`'s failure shapes (§3.8): a thrown dict for provider errors.
 * An interrupted call that has no partial-result form (structured output)
 * is a `cancelled` error dict. */
function llmCallError(e: unknown, ctx: CallContext): unknown {
  if (e instanceof LlmError) return HarnError.thrown(fromJson(e.toDict()));
  if (e instanceof LlmSetupError) return setupError(e);
  if (e instanceof LlmInterrupted) {
    if (ctx.signal.aborted) return ctx.signal.reason;
    return HarnError.thrown(
      HDict.of({
        category: "cancelled",
        kind: "terminal",
        reason: "unknown",
        message: "LLM call interrupted by the user",
        provider: e.partial.provider,
        model: e.partial.model,
      }),
    );
  }
  return e;
}

/** `llm_call_structured*`: the options rewritten, `system` read from them. */
function prepareStructured(ctx: CallContext, args: Value[], builtin: string): Prepared & { spec: StructuredSpec } {
  const { prompt, schema, options } = structuredArgs(args, builtin);
  const rewritten = structuredOptions(schema, options);
  const p = prepare(ctx, prompt, rewritten.get("system"), rewritten, builtin);
  return { ...p, spec: readStructured(rewritten, 3) };
}

const REPAIR_PROMPT =
  "The following text was supposed to be JSON conforming to the configured schema, but it failed validation. Return only the corrected JSON value, with no other text.";

/** `llm_call_structured_result` (§3.9): never throws; reports how the call went. */
async function structuredResult(args: Value[], ctx: CallContext): Promise<HDict> {
  const p = prepareStructured(ctx, args, "llm_call_structured_result");
  const result = (o: {
    ok: boolean;
    data: Value;
    raw: string;
    error: string;
    category: string | null;
    attempts: number;
    repaired: boolean;
    extracted: boolean;
    res: LlmResponse | null;
  }) =>
    HDict.of({
      ok: o.ok,
      data: o.ok ? o.data : null,
      raw_text: o.raw,
      error: o.error,
      error_category: o.category,
      attempts: o.attempts,
      repaired: o.repaired,
      extracted_json: o.extracted,
      usage: usageDict(o.res),
      model: o.res?.model ?? p.llm.model,
      provider: o.res ? (p.llm.provider === "mock" || o.res.provider === "mock" ? "mock" : o.res.provider) : p.llm.provider,
    });
  let main;
  try {
    main = await completeStructured(ctx.runtime, p.llm, p.req, p.spec, ctx.signal);
  } catch (e) {
    if (!(e instanceof LlmError)) throw llmCallError(e, ctx);
    return result({ ok: false, data: null, raw: "", error: e.message, category: e.category, attempts: 0, repaired: false, extracted: false, res: null });
  }
  if (main.errors.length === 0) {
    return result({ ok: true, data: main.data, raw: main.res.text, error: "", category: null, attempts: main.attempts, repaired: false, extracted: main.extracted, res: main.res });
  }
  const category = main.found ? "schema_validation" : "missing_json";
  const failed = { ok: false, data: null, raw: main.res.text, error: main.errors.join("; "), attempts: main.attempts, repaired: false, extracted: main.extracted, res: main.res };
  const repair = p.options.get("repair");
  const repairOn = repair === true || (repair instanceof HDict && repair.get("enabled") !== false);
  if (!repairOn) return result({ ...failed, category });
  const overrides = new Map(p.options.map);
  if (repair instanceof HDict) for (const k of repair.keys()) if (k !== "enabled") overrides.set(k, repair.get(k));
  overrides.set("schema_retries", 0);
  const prompt = `${REPAIR_PROMPT}\n\nValidation errors: ${main.errors.join("; ")}\n\nText:\n${main.res.text}`;
  try {
    const rp = prepare(ctx, prompt, overrides.get("system") ?? null, new HDict(overrides), "llm_call_structured_result");
    const fixed = await completeStructured(ctx.runtime, rp.llm, rp.req, readStructured(new HDict(overrides), 0), ctx.signal);
    if (fixed.errors.length === 0) {
      return result({ ok: true, data: fixed.data, raw: fixed.res.text, error: "", category: null, attempts: fixed.attempts, repaired: true, extracted: fixed.extracted, res: fixed.res });
    }
  } catch (e) {
    if (!(e instanceof LlmError)) throw llmCallError(e, ctx);
  }
  return result({ ...failed, category: "repair_failed" });
}

export const LLM_CALL_BUILTINS = builtinModule("agent/llm/builtins", (def) => {
  def("llm_call_structured", async (args, ctx) => {
    const p = prepareStructured(ctx, args, "llm_call_structured");
    try {
      return (await call(p, ctx)).get("data");
    } catch (e) {
      throw llmCallError(e, ctx);
    }
  });
  def("llm_call_structured_safe", async (args, ctx) => {
    const p = prepareStructured(ctx, args, "llm_call_structured_safe");
    try {
      return HDict.of({ ok: true, data: (await call(p, ctx)).get("data"), error: null });
    } catch (e) {
      if (e instanceof LlmError) return HDict.of({ ok: false, data: null, error: fromJson(e.toDict()) });
      throw llmCallError(e, ctx);
    }
  });
  def("llm_call_structured_result", structuredResult);
  def("agent_trace", (_args, ctx) => agentTrace(ctx.runtime).slice());
  def("llm_call", llmCall);
  def("llm_call_safe", async (args, ctx) => {
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
});
