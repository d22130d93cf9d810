/**
 * `harn test --deterministic`, `--seed N`, `--explore K` (spec/extensions.md
 * §5): which scheduler seeds each test runs with, and how a run on them is
 * reported. The clock itself is the vm's VirtualClock.
 *
 * Options (TS decisions; the spec names the flags only):
 *   --deterministic  each test runs on a virtual clock; tasks started
 *                    together and timers due together run in FIFO order.
 *   --seed N         the scheduler picks those orders with a PRNG seeded
 *                    with N (an integer 0 … 2^53-1); implies --deterministic.
 *   --explore K      each test runs K times, with seeds N, N+1, … N+K-1
 *                    (N = --seed, default 1), stopping at the first seed
 *                    that fails; implies --deterministic.
 * `--timeout` stays real time (it guards the run, whatever the clock).
 * Tests run one at a time (`--jobs` and `--parallel` are ignored): the
 * clock tells idleness from the process's event loop, which concurrent
 * tests would share.
 * The unseeded random builtins (`random`, `random_int`, …) and retry
 * jitter replay with the seed too (seed 0 without `--seed`).
 *
 * Report additions (user tests, cli.md §5.1):
 *   PASS  {name} [{file}] ({ms} ms; virtual {v} ms)             one run
 *   PASS  {name} [{file}] ({ms} ms; virtual {v} ms; {K} seeds)  --explore
 * `{ms}` is real time over all runs, `{v}` the largest virtual time a run
 * reached. A failing test prints, after its error lines (indented like them):
 *   seed: {N}
 *   replay: harn test --deterministic --seed {N} --filter {name} {file}
 * (without a seed, `seed: none (FIFO order)` and no `--seed`). Golden-file
 * and conformance tests append the same two lines, indented by two spaces,
 * to their failure message; their replay names the test's path.
 */

export interface Determinism {
  /** The seeds to run each test with; `null` is the FIFO order. */
  readonly seeds: readonly (number | null)[];
}

export interface DeterminismFlags {
  deterministic?: boolean;
  seed?: string;
  explore?: string;
}

/** Null without any of the flags; a usage error text for a bad value. */
export function determinismFrom(flags: DeterminismFlags): Determinism | null | { error: string } {
  if (!flags.deterministic && flags.seed === undefined && flags.explore === undefined) return null;
  let base: number | null = null;
  if (flags.seed !== undefined) {
    base = parseCount(flags.seed, 0);
    if (base === null) return { error: `error: invalid --seed value '${flags.seed}'` };
  }
  if (flags.explore === undefined) return { seeds: [base] };
  const k = parseCount(flags.explore, 1);
  if (k === null) return { error: `error: invalid --explore value '${flags.explore}'` };
  const first = base ?? 1;
  if (first + k - 1 > Number.MAX_SAFE_INTEGER) return { error: `error: invalid --explore value '${flags.explore}'` };
  return { seeds: Array.from({ length: k }, (_, i) => first + i) };
}

function parseCount(text: string, min: number): number | null {
  if (!/^\d+$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return Number.isSafeInteger(n) && n >= min ? n : null;
}

/** The `seed:` and `replay:` lines of a failing run. `target` is what the
 * replay command runs (`--filter NAME FILE`, `conformance REL`, …). */
export function replayLines(seed: number | null, target: string): string[] {
  if (seed === null) return ["seed: none (FIFO order)", `replay: harn test --deterministic ${target}`];
  return [`seed: ${seed}`, `replay: harn test --deterministic --seed ${seed} ${target}`];
}

/** ` ; virtual …` inside a PASS line's parentheses. */
export function virtualNote(virtualMs: number, runs: number): string {
  return `; virtual ${virtualMs} ms${runs > 1 ? `; ${runs} seeds` : ""}`;
}

/** Quote a path or name for the replay command when a shell would split it. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
