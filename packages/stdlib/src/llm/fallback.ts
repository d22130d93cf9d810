/**
 * Fallback chains (spec/agents.md §5.4, extensions.md §3.5): which
 * providers to try, in order, after the primary has failed all its retries,
 * and which model each of them gets.
 */

export interface FallbackInput {
  primary: string;
  /** `fallback_chain`: a list, or a comma-separated string. */
  chain?: readonly string[] | string | null;
  /** The primary provider's configured `fallback`, tried after the chain. */
  configured?: string | null;
  /** Whether a provider can be used now: known, key available, and not a
   * real provider while calls are disabled. */
  usable: (provider: string) => boolean;
}

/** The fallback providers in order, without duplicates, without the
 * primary and without unusable ones. Unknown names are skipped like
 * providers without a key: a fallback is best effort, and the primary's
 * error is what gets reported if everything fails. */
export function fallbackProviders(input: FallbackInput): string[] {
  const names =
    typeof input.chain === "string"
      ? input.chain.split(",")
      : Array.isArray(input.chain)
        ? [...input.chain]
        : [];
  if (input.configured) names.push(input.configured);
  const out: string[] = [];
  for (const raw of names) {
    const name = String(raw).trim();
    if (name === "" || name === input.primary || out.includes(name)) continue;
    if (input.usable(name)) out.push(name);
  }
  return out;
}

/** The model a fallback provider is asked for: its `fallback_models`
 * entry, else the primary's model string (the reference behaviour). */
export function fallbackModel(
  provider: string,
  primaryModel: string,
  models: Readonly<Record<string, string>> | null | undefined,
): string {
  const m = models?.[provider];
  return typeof m === "string" && m.trim() !== "" ? m : primaryModel;
}
