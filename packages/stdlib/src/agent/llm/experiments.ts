/**
 * `llm_call`'s `structural_experiment` option (spec/workflows.md §5.8):
 * the request's prompt reshaped before it is sent (paragraphs permuted,
 * the prompt doubled, system and prompt swapped, a chain-of-draft
 * instruction, or a script's own transform), for A/B runs of one prompt.
 * std/experiments builds the descriptors.
 *
 * [TS decision] The doubled prompt's acknowledgement and the
 * chain-of-draft instruction are Harn-TS's wording; without a system
 * prompt `inverted_system` sends the request unchanged; a permutation
 * without a seed uses seed 0.
 */
import { display, HarnError, HClosure, HBuiltinRef, HDict, isNumeric, Sfc32, toJsNumber, type CallContext, type Value } from "@harn/vm";
import { fromJson, toJson, type Json } from "../../core/json";
import type { LlmMessage } from "../../llm/types";

export const DOUBLED_ACK = "Understood. I have read the request and will answer it when you repeat it.";
export const DRAFT_INSTRUCTION =
  "Think step by step, but keep only a minimal draft of each step, five words at most, inside <draft></draft> tags. Then give the final answer after the drafts.";

const BUILT_IN = ["prompt_order_permutation", "doubled_prompt", "chain_of_draft", "inverted_system"];

interface Experiment {
  name: string;
  label: string;
  seed: number;
  transform: Value;
  args: Value;
}

const fail = (text: string) => HarnError.runtime(`llm_call: structural_experiment ${text}`);

/** The experiment an option value names, or null when there is none. */
export function parseExperiment(v: Value): Experiment | null {
  if (v === null) return null;
  if (typeof v === "string") {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$/.exec(v);
    if (!m || !BUILT_IN.includes(m[1]!)) throw fail(`'${v}' is not one of ${BUILT_IN.join(", ")}`);
    const seed = /seed\s*:\s*(-?\d+)/.exec(m[2] ?? "");
    return descriptor(m[1]!, null, seed ? Number(seed[1]) : 0, null, null);
  }
  if (!(v instanceof HDict)) throw fail(`must be a string or a dict, got ${display(v)}`);
  const transform = v.get("transform");
  const name = v.get("name");
  const label = v.get("label");
  if (transform !== null) {
    if (!(transform instanceof HClosure || transform instanceof HBuiltinRef)) throw fail("transform must be a closure");
    const shown = typeof label === "string" ? label : typeof name === "string" ? name : "custom";
    return { name: typeof name === "string" ? name : shown, label: shown, seed: 0, transform, args: v.get("args") ?? HDict.empty() };
  }
  if (typeof name !== "string" || !BUILT_IN.includes(name)) throw fail(`name must be one of ${BUILT_IN.join(", ")} (or give a transform), got ${display(name)}`);
  const seed = v.get("seed");
  return descriptor(name, typeof label === "string" ? label : null, isNumeric(seed) ? Math.trunc(toJsNumber(seed)) : 0, null, null);
}

function descriptor(name: string, label: string | null, seed: number, transform: Value, args: Value): Experiment {
  const shown = label ?? (name === "prompt_order_permutation" ? `prompt_order_permutation(seed: ${seed})` : name);
  return { name, label: shown, seed, transform, args };
}

/** What the transcript's `provider_payload` records of the experiment. */
export function experimentRecord(e: Experiment): HDict {
  const d = HDict.of({ name: e.name, label: e.label });
  if (e.name === "prompt_order_permutation" && e.transform === null) return d.with("seed", e.seed);
  return e.transform === null ? d : d.with("args", e.args);
}

/** A seeded shuffle that never leaves more than one item in place. */
function permute<T>(items: T[], seed: number): T[] {
  const out = items.slice();
  const rng = new Sfc32(BigInt(seed));
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.float() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  if (out.length > 1 && out.every((x, i) => x === items[i])) out.push(out.shift()!);
  return out;
}

const lastUser = (messages: LlmMessage[]): number => messages.findLastIndex((m) => m.role === "user" && typeof m.content === "string");

/** The request after the experiment: `messages` and `system` reshaped. */
export async function applyExperiment(ctx: CallContext, e: Experiment, system: string | null, messages: readonly LlmMessage[]): Promise<{ system: string | null; messages: LlmMessage[] }> {
  const msgs = messages.slice();
  if (e.transform !== null) {
    const input = HDict.of({ messages: fromJson(msgs as unknown as Json), system, label: e.label, args: e.args });
    const out = await ctx.call(e.transform, [input]);
    if (!(out instanceof HDict)) throw fail(`transform must return a dict with messages, got ${display(out)}`);
    const given = out.get("messages");
    if (!Array.isArray(given)) throw fail("transform must return a dict with messages");
    const sys = out.has("system") ? out.get("system") : system;
    return { system: sys === null ? null : display(sys), messages: toJson(given) as unknown as LlmMessage[] };
  }
  const i = lastUser(msgs);
  if (i < 0) return { system, messages: msgs };
  const prompt = msgs[i]!.content as string;
  switch (e.name) {
    case "prompt_order_permutation":
      msgs[i] = { ...msgs[i]!, content: permute(prompt.split(/\n[ \t]*\n/), e.seed).join("\n\n") };
      return { system, messages: msgs };
    case "doubled_prompt":
      msgs.splice(i + 1, 0, { role: "assistant", content: DOUBLED_ACK }, { role: "user", content: prompt });
      return { system, messages: msgs };
    case "chain_of_draft":
      msgs[i] = { ...msgs[i]!, content: `${prompt}\n\n${DRAFT_INSTRUCTION}` };
      return { system, messages: msgs };
    default:
      // inverted_system
      if (system === null) return { system, messages: msgs };
      msgs[i] = { ...msgs[i]!, content: system };
      return { system: prompt, messages: msgs };
  }
}
