/**
 * Structured output (spec/agents.md §3.9): JSON extraction into `data`,
 * schema validation with corrective re-prompts (`schema_retries`,
 * `schema_retry_nudge`), `output_validation`, the `agent_trace()` record of
 * retries, and `llm_call_structured` / `_safe` / `_result`.
 */
import { display, float, HarnError, HDict, RuntimeSlot, typeOf, type Runtime, type Value } from "@harn/vm";
import { extractJsonText, fromJson, parseJson } from "../../core/json";
import { errorFromMessage } from "../../llm/classify";
import { LlmError } from "../../llm/errors";
import type { LlmMessage, LlmResponse } from "../../llm/types";
import { validate } from "../../schema/validate";
import { callModel, type ModelRequest } from "./call";
import type { LlmSettings } from "./options";

export interface StructuredSpec {
  wantsJson: boolean;
  schema: Value;
  validation: "off" | "warn" | "error";
  retries: number;
  /** `true`: the automatic corrective message; a string: that text plus
   * the errors; `false`: retry with the original messages only. */
  nudge: boolean | string;
}

export function readStructured(options: HDict, defaultRetries: number): StructuredSpec {
  const format = options.get("output_format");
  const schema =
    options.get("output_schema") ??
    options.get("json_schema") ??
    (format instanceof HDict && format.get("kind") === "json_schema" ? format.get("schema") : null);
  const v = options.get("output_validation");
  const retries = options.get("schema_retries");
  const nudge = options.get("schema_retry_nudge");
  return {
    wantsJson: options.get("response_format") === "json" || format !== null || schema !== null,
    schema,
    validation: v === "warn" || v === "error" ? v : "off",
    retries: typeof retries === "number" && retries >= 0 ? retries : defaultRetries,
    nudge: nudge === false ? false : typeof nudge === "string" ? nudge : true,
  };
}

/** The JSON in a reply (fenced block, first balanced value, or the whole
 * text), and whether it had to be extracted from surrounding prose. */
export function replyData(text: string): { data: Value; found: boolean; extracted: boolean } {
  try {
    return { data: parseJson(text.trim()), found: true, extracted: false };
  } catch {
    // not JSON as a whole
  }
  try {
    return { data: parseJson(extractJsonText(text)), found: true, extracted: true };
  } catch {
    return { data: null, found: false, extracted: false };
  }
}

/** Per-runtime agent trace (`agent_trace()`). */
const TRACE = new RuntimeSlot<Value[]>("agent.trace", () => []);

export function agentTrace(rt: Runtime): Value[] {
  return rt.slot(TRACE);
}

function schemaKeys(schema: Value): { required: string[]; allowed: string[] } {
  if (!(schema instanceof HDict)) return { required: [], allowed: [] };
  const props = schema.get("properties");
  const req = schema.get("required");
  return {
    required: Array.isArray(req) ? req.map((x) => (typeof x === "string" ? x : display(x))) : [],
    allowed: props instanceof HDict ? props.keys() : [],
  };
}

function correction(spec: StructuredSpec, errors: string[]): string | null {
  const joined = errors.join("; ");
  if (spec.nudge === false) return null;
  if (typeof spec.nudge === "string") return `${spec.nudge}\n\nValidation errors: ${joined}`;
  const { required, allowed } = schemaKeys(spec.schema);
  const lines = ["Your previous response did not match the required JSON schema.", `Validation errors: ${joined}`];
  if (required.length > 0) lines.push(`Required top-level keys: ${required.join(", ")}`);
  if (allowed.length > 0) lines.push(`Allowed top-level keys: ${allowed.join(", ")}`);
  lines.push("Respond with only valid JSON that matches the schema, with no other text.");
  return lines.join("\n");
}

export interface StructuredOutcome {
  res: LlmResponse;
  data: Value;
  found: boolean;
  extracted: boolean;
  /** Validation errors of the last attempt ([] when valid or not checked). */
  errors: string[];
  attempts: number;
  /** Tokens of every attempt (an agent loop reports its own sums, §2.10). */
  inputTokens: number;
  outputTokens: number;
}

/**
 * One call, re-prompted while the reply fails validation and schema
 * retries remain. Transport errors propagate (they use the transport retry
 * budget, never schema retries).
 */
export async function completeStructured(
  rt: Runtime,
  llm: LlmSettings,
  req: ModelRequest,
  spec: StructuredSpec,
  signal: AbortSignal,
  /** Which replies are validated (all by default). An agent loop skips
   * replies that call tools: they are steps, not the answer the schema
   * describes. */
  validates: (res: LlmResponse) => boolean = () => true,
): Promise<StructuredOutcome> {
  const original = req.messages;
  let inputTokens = 0;
  let outputTokens = 0;
  for (let attempt = 1; ; attempt++) {
    const res = await callModel(rt, llm, req, signal);
    inputTokens += res.input_tokens;
    outputTokens += res.output_tokens;
    const { data, found, extracted } = replyData(res.text);
    let errors: string[] = [];
    if (spec.validation !== "off" && validates(res)) {
      if (!found) errors = ["response did not contain parseable JSON"];
      else if (spec.schema !== null) errors = validate(rt, data, spec.schema, false).errors;
    }
    if (errors.length === 0 || attempt > spec.retries) return { res, data, found, extracted, errors, attempts: attempt, inputTokens, outputTokens };
    const text = correction(spec, errors);
    agentTrace(rt).push(
      HDict.of({
        type: "schema_retry",
        attempt,
        errors: errors.slice(),
        correction_prompt: text,
        nudge_used: spec.nudge !== false,
      }),
    );
    // The original messages plus one corrective user message; no
    // assistant turn is added.
    const messages: readonly LlmMessage[] = text === null ? original : [...original, { role: "user", content: text }];
    req = { ...req, messages };
  }
}

/** The categorized `schema_validation` failure (§3.9). */
export function schemaError(llm: LlmSettings, errors: string[]): LlmError {
  const message = `LLM output failed schema validation: ${errors.join("; ")} (hint: reply with a single JSON value that matches the schema, or raise schema_retries)`;
  return errorFromMessage({ provider: llm.provider, model: llm.model }, message, { category: "schema_validation" });
}

/** The argument checks of `llm_call_structured*`. */
export function structuredArgs(args: Value[], builtin: string): { prompt: Value; schema: HDict; options: HDict } {
  if (args.length < 2) {
    throw HarnError.runtime(`${builtin}: missing required \`schema\` argument (expected (prompt, schema, options?))`);
  }
  const schema = args[1]!;
  if (!(schema instanceof HDict)) throw HarnError.runtime(`${builtin}: \`schema\` must be a dict (JSON Schema), got ${typeOf(schema)}`);
  return { prompt: args[0]!, schema, options: args[2] instanceof HDict ? args[2] : HDict.empty() };
}

/** `llm_call_structured`'s option rewrite: explicit keys win. */
export function structuredOptions(schema: HDict, options: HDict): HDict {
  const m = new Map<string, Value>([
    ["schema_retries", 3],
    ["output_schema", schema],
    ["json_schema", schema],
    ["output_format", HDict.of({ kind: "json_schema", schema, strict: true })],
    ["response_format", "json"],
    ["output_validation", "error"],
  ]);
  if (options.has("retries") && !options.has("schema_retries")) m.set("schema_retries", options.get("retries"));
  for (const k of options.keys()) if (k !== "retries") m.set(k, options.get(k));
  return new HDict(m);
}

export function usageDict(res: LlmResponse | null): HDict {
  const r = res ?? { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
  return HDict.of({
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    cache_read_tokens: r.cache_read_tokens,
    cache_write_tokens: r.cache_write_tokens,
    cache_creation_input_tokens: r.cache_write_tokens,
    cache_hit_ratio: float(0),
    cache_savings_usd: float(0),
  });
}

export function errorDict(e: LlmError): Value {
  return fromJson(e.toDict());
}

