/**
 * Fallback chains (spec/agents.md §5.4, extensions.md §3.5): which
 * providers to try, in order, after the primary has failed all its retries,
 * and which model each of them gets, and how long a fallback sticks.
 */

import { inferProvider } from "./resolve";

export interface FallbackInput {
  primary: string;
  /** `fallback_chain`: a list, or a comma-separated string. */
  chain?: readonly string[] | string | null;
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
  const out: string[] = [];
  for (const raw of names) {
    const name = String(raw).trim();
    if (name === "" || name === input.primary || out.includes(name)) continue;
    if (input.usable(name)) out.push(name);
  }
  return out;
}

/**
 * The model a fallback provider is asked for: its `fallback_models`
 * entry; else the primary's model string (the reference behaviour), unless
 * that name plainly belongs to another provider family (`claude-*` sent to
 * OpenAI, which cannot serve it): [TS decision] then the fallback's own
 * default model (`defaultModel`), when it has one.
 */
export function fallbackModel(
  provider: string,
  primaryModel: string,
  models: Readonly<Record<string, string>> | null | undefined,
  defaultModel: (provider: string) => string | undefined = () => undefined,
): string {
  const m = models?.[provider];
  if (typeof m === "string" && m.trim() !== "") return m;
  const family = inferProvider(primaryModel);
  if (family === undefined || family === provider || (provider === "openai_responses" && family === "openai")) return primaryModel;
  return defaultModel(provider) ?? primaryModel;
}

export interface ReprobePolicy {
  /** Ask the primary again after this many calls on the fallback. */
  turns?: number;
  /** … or once this many milliseconds have passed since the switch. */
  ms?: number;
}

/**
 * Fallback that sticks (extensions.md §3.5): once the primary has failed
 * and a fallback answered, the calls sharing this object (one agent loop,
 * one `harn chat` session) go straight to that fallback instead of paying
 * the primary's retries on every turn; with a `ReprobePolicy` the primary
 * is asked again after N calls or M ms (and kept if it answers). Without
 * one it stays on the fallback for the rest of the loop.
 */
export class StickyFallback {
  private current: { primary: string; provider: string; model: string; calls: number; since: number } | null = null;

  constructor(readonly reprobe: ReprobePolicy = {}) {}

  /** The fallback to ask first for a call to `primary`, or null when the
   * primary should be asked (not failed over, or time to re-probe). */
  target(primary: string, now: number): { provider: string; model: string } | null {
    const c = this.current;
    if (c === null || c.primary !== primary) return null;
    const { turns, ms } = this.reprobe;
    if ((turns !== undefined && c.calls >= turns) || (ms !== undefined && now - c.since >= ms)) return null;
    c.calls++;
    return { provider: c.provider, model: c.model };
  }

  /** The primary answered: calls go to it again. Returns the fallback it
   * replaces, if any. */
  primaryAnswered(primary: string): string | null {
    const c = this.current;
    if (c === null || c.primary !== primary) return null;
    this.current = null;
    return c.provider;
  }

  /** A fallback answered for `primary`: later calls start there. */
  fellBack(primary: string, provider: string, model: string, now: number): void {
    this.current = { primary, provider, model, calls: 0, since: now };
  }
}
