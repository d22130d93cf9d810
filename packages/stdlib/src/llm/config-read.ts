/**
 * Reading the `[llm]` table of harn.toml (config.ts says where it comes
 * from and what it holds); loaded with the agent layer, which is where the
 * TOML parser's cost belongs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Runtime } from "@harn/vm";
import { parse as parseToml } from "smol-toml";
import { findProjectRoot } from "../core/paths";
import { LLM_CONFIG, type LlmConfig } from "./config";
import { LlmSetupError } from "./errors";

const EMPTY: LlmConfig = { fallback: [], fallbackModels: {} };

/** The runtime's `[llm]` settings, read on first use. A manifest that
 * cannot be read, or whose `[llm]` values have the wrong shape, fails the
 * model call (a runtime error naming the file and key), every time. */
export function llmConfig(rt: Runtime): LlmConfig {
  const s = rt.slot(LLM_CONFIG);
  if (s.loaded !== null) return s.loaded;
  const root = s.from === null ? null : findProjectRoot(s.from);
  s.loaded = root === null ? EMPTY : readLlmConfig(join(root, "harn.toml"));
  return s.loaded;
}

const KEYS = ["fallback", "fallback_models", "retries", "retry_budget_ms", "fallback_reprobe_turns", "fallback_reprobe_ms"];

export function readLlmConfig(path: string): LlmConfig {
  const fail = (what: string) => new LlmSetupError(`${path}: ${what}`, "runtime");
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw fail(`cannot read the [llm] settings: ${(e instanceof Error ? e.message : String(e)).split("\n")[0]}`);
  }
  const t = doc.llm;
  if (t === undefined) return EMPTY;
  if (t === null || typeof t !== "object" || Array.isArray(t)) throw fail("[llm] must be a table");
  const llm = t as Record<string, unknown>;
  for (const k of Object.keys(llm)) {
    if (!KEYS.includes(k)) throw fail(`unknown key [llm].${k} (known: ${KEYS.join(", ")})`);
  }
  const count = (key: string, min: number): number | undefined => {
    const v = llm[key];
    if (v === undefined) return undefined;
    const n = typeof v === "bigint" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isInteger(n) || n < min) throw fail(`[llm].${key} must be an integer of at least ${min}`);
    return n;
  };
  const out: LlmConfig = { fallback: [], fallbackModels: {} };
  const fb = llm.fallback;
  if (typeof fb === "string") out.fallback = fb.split(",").map((x) => x.trim()).filter((x) => x !== "");
  else if (Array.isArray(fb) && fb.every((x) => typeof x === "string")) out.fallback = fb as string[];
  else if (fb !== undefined) throw fail('[llm].fallback must be a list of provider names (fallback = ["openai"])');
  const models = llm.fallback_models;
  if (models !== undefined) {
    const ok = models !== null && typeof models === "object" && !Array.isArray(models) && Object.values(models).every((m) => typeof m === "string");
    if (!ok) throw fail('[llm].fallback_models must be a table of model names (fallback_models = { openai = "gpt-4o-mini" })');
    out.fallbackModels = models as Record<string, string>;
  }
  out.retries = count("retries", 0);
  out.retryBudgetMs = count("retry_budget_ms", 0);
  out.reprobeTurns = count("fallback_reprobe_turns", 1);
  out.reprobeMs = count("fallback_reprobe_ms", 1);
  return out;
}
