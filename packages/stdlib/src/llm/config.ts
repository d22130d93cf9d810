/**
 * Provider settings from outside the script: the `[llm]` table of the
 * project's `harn.toml` (docs/providers.md), the nearest one at or above
 * the directory the host names (`useProjectLlmConfig`: the script's for
 * `harn run`, the working directory for `harn chat` and `harn repl`;
 * `harn test` names none, so tests do not depend on it). It is found and
 * read when a model call first needs it, so a script that never calls a
 * model never reads it. A script's own options win over these values.
 *
 *   [llm]
 *   fallback = ["openai"]                    # after the call's fallback_chain
 *   fallback_models = { openai = "gpt-4o-mini" }
 *   retries = 3                              # llm_retries when not given
 *   retry_budget_ms = 60000                  # retry_budget_ms when not given
 *   fallback_reprobe_turns = 5               # ask the primary again after 5 turns…
 *   fallback_reprobe_ms = 300000             # …or 5 minutes on a fallback
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";

export interface LlmConfig {
  fallback: string[];
  fallbackModels: Record<string, string>;
  retries?: number;
  retryBudgetMs?: number;
  reprobeTurns?: number;
  reprobeMs?: number;
}

export interface ConfigState {
  /** Where the search for `harn.toml` starts (null: no project config). */
  from: string | null;
  loaded: LlmConfig | null;
}

/** Kept light (no TOML parser): hosts set it at start-up; the agent layer
 * reads the table (config-read.ts) when a model call needs it. */
export const LLM_CONFIG = new RuntimeSlot<ConfigState>("llm.config", () => ({ from: null, loaded: null }));

/** Apply the `[llm]` table of the project holding `dir`. */
export function useProjectLlmConfig(rt: Runtime, dir: string): void {
  const s = rt.slot(LLM_CONFIG);
  s.from = dir;
  s.loaded = null;
}
