/**
 * A supervisor child's restart policy (spec/core-gaps.md §1.3): parsing
 * with its aliases and defaults, and the backoff delay.
 */
import { display, HarnError, HDict, HDuration, HFloat, typeOf, type Value } from "@harn/vm";

export interface Policy {
  mode: "never" | "on_failure" | "always";
  maxRestarts: number | null;
  windowMs: number;
  backoffMs: number;
  maxBackoffMs: number;
  factor: number;
  jitterMs: number;
  circuitOpenMs: number | null;
}

/** Trimmed, lowercased, `-` and spaces as `_` (modes and strategies). */
export function normalizeName(s: string): string {
  return s.trim().toLowerCase().replace(/[- ]/g, "_");
}

const UNITS: Record<string, number> = { "": 1, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration, int or float milliseconds (negative: 0), or `N`, `Nms`,
 * `Ns`, `Nm`, `Nh`; anything else is null (the caller's default). */
export function durationMs(v: Value): number | null {
  if (v instanceof HDuration) return Math.max(0, v.ms);
  if (typeof v === "number") return Math.max(0, v);
  if (typeof v === "bigint") return v > 0n ? Number.MAX_SAFE_INTEGER : 0;
  if (v instanceof HFloat) return Math.max(0, v.v);
  if (typeof v === "string") {
    const m = /^\s*(\d+)\s*(ms|s|m|h)?\s*$/.exec(v);
    if (m) return Number(m[1]) * UNITS[m[2] ?? ""]!;
  }
  return null;
}

function pick(d: HDict, ...keys: string[]): Value {
  for (const k of keys) if (d.has(k) && d.get(k) !== null) return d.get(k);
  return null;
}

function parseMode(v: Value): Policy["mode"] {
  const s = normalizeName(display(v));
  if (s === "never") return "never";
  if (s === "on_failure" || s === "onfailure" || s === "failure") return "on_failure";
  if (s === "always") return "always";
  throw HarnError.runtime(`supervisor_start: unknown restart mode '${display(v)}'`);
}

export function parsePolicy(v: Value): Policy {
  const p: Policy = { mode: "on_failure", maxRestarts: null, windowMs: 60_000, backoffMs: 0, maxBackoffMs: 30_000, factor: 2, jitterMs: 0, circuitOpenMs: null };
  if (v === null) return p;
  if (typeof v === "string") {
    p.mode = parseMode(v);
    return p;
  }
  if (!(v instanceof HDict)) throw HarnError.runtime(`supervisor_start: restart policy must be a string or dict, got ${typeOf(v)}`);
  const mode = pick(v, "mode", "policy");
  if (mode !== null) p.mode = parseMode(mode);
  const max = pick(v, "max_restarts", "max");
  if (typeof max === "number") p.maxRestarts = Math.max(0, max);
  else if (typeof max === "bigint") p.maxRestarts = max > 0n ? Number.MAX_SAFE_INTEGER : 0;
  p.windowMs = durationMs(pick(v, "window_ms", "window")) ?? p.windowMs;
  p.backoffMs = durationMs(pick(v, "backoff_ms", "backoff", "initial_backoff_ms")) ?? p.backoffMs;
  p.maxBackoffMs = durationMs(pick(v, "max_backoff_ms", "max_backoff")) ?? p.maxBackoffMs;
  const factor = pick(v, "factor", "backoff_factor");
  const f = typeof factor === "number" ? factor : factor instanceof HFloat ? factor.v : null;
  if (f !== null) p.factor = Math.max(1, f);
  p.jitterMs = durationMs(pick(v, "jitter_ms", "jitter")) ?? p.jitterMs;
  p.circuitOpenMs = durationMs(pick(v, "circuit_open_ms", "circuit_open"));
  return p;
}

/** `round(backoff × factor^restarts)` capped at `max(max_backoff, backoff)`,
 * plus the deterministic jitter of child `index`. */
export function restartDelay(p: Policy, restarts: number, index: number): number {
  let delay = p.backoffMs === 0 ? 0 : Math.min(Math.round(p.backoffMs * p.factor ** restarts), Math.max(p.maxBackoffMs, p.backoffMs));
  if (p.jitterMs > 0) delay += ((index + 1) * 1103 + restarts * 9176) % (p.jitterMs + 1);
  return delay;
}
