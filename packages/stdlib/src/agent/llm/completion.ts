/**
 * Two small mock-era helpers of spec/agents.md §3.6 (P2):
 * - `llm_completion(prefix, suffix?, system?, options?)`: fill-in-the-middle
 *   completion. The mock answers `Mock completion after <n> chars` (plus
 *   ` before <m> chars` with a non-empty suffix), model `mock`, stop reason
 *   `stop`. [TS decision] Real providers have no completion endpoint here:
 *   they get a clear runtime error instead of a request.
 * - `llm_pick_model(tier_or_model, {provider?})`: `{id, provider, tier}`
 *   from the built-in model catalog (tiers `small`, `mid`, `frontier`).
 */
import { cpArray, display, HarnError, HDict, type CallContext, type Value } from "@harn/vm";
import { BUILTIN_PROVIDERS, inferProvider } from "../../llm/resolve";
import type { LlmResponse } from "../../llm/types";
import { userMessage } from "../loop/transcript";
import { callResult } from "./builtins";
import { readLlmSettings, setupError } from "./options";
import { LlmSetupError } from "../../llm/errors";
import { builtinModule } from "../../registry/define";

function text(v: Value | undefined): string {
  return v === undefined || v === null ? "" : typeof v === "string" ? v : display(v);
}

function llmCompletion(args: Value[], ctx: CallContext): HDict {
  const prefix = text(args[0]);
  const suffix = text(args[1]);
  const options = args[3] instanceof HDict ? args[3] : HDict.empty();
  let llm;
  try {
    llm = readLlmSettings(ctx.runtime, options, { retries: 0, backoffMs: 0 });
  } catch (e) {
    throw e instanceof LlmSetupError ? setupError(e) : e;
  }
  if (!llm.intercept) {
    throw HarnError.runtime(`llm_completion: provider \`${llm.provider}\` has no completion endpoint in this implementation (only the mock provider answers completions)`);
  }
  let body = `Mock completion after ${cpArray(prefix).length} chars`;
  if (suffix !== "") body += ` before ${cpArray(suffix).length} chars`;
  const res: LlmResponse = {
    provider: "mock",
    model: "mock",
    text: body,
    reasoning: "",
    tool_calls: [],
    input_tokens: Buffer.byteLength(prefix + suffix, "utf8"),
    output_tokens: 30,
    reasoning_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    stop_reason: "stop",
  };
  return callResult(ctx.runtime, res, "mock", [userMessage(prefix)], options);
}

const TIERS = ["small", "mid", "frontier"];

function llmPickModel(args: Value[]): HDict {
  const wanted = args[0];
  if (typeof wanted !== "string" || wanted === "") throw HarnError.runtime("llm_pick_model: expected a tier (small, mid, frontier) or a model id");
  const opts = args[1] instanceof HDict ? args[1] : HDict.empty();
  const given = opts.get("provider");
  if (TIERS.includes(wanted)) {
    const provider = typeof given === "string" && given !== "" ? given : "anthropic";
    const id = BUILTIN_PROVIDERS[provider]?.tiers?.[wanted];
    if (id === undefined) throw HarnError.runtime(`llm_pick_model: provider '${provider}' has no '${wanted}' tier`);
    return HDict.of({ id, provider, tier: wanted });
  }
  const provider = typeof given === "string" && given !== "" ? given : (inferProvider(wanted) ?? "anthropic");
  const tiers = BUILTIN_PROVIDERS[provider]?.tiers ?? {};
  const tier = Object.keys(tiers).find((t) => tiers[t] === wanted) ?? null;
  return HDict.of({ id: wanted, provider, tier });
}

export const COMPLETION_BUILTINS = builtinModule("agent/llm/completion", (def) => {
  def("llm_completion", llmCompletion);
  def("llm_pick_model", llmPickModel);
});
