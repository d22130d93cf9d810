/**
 * Reading the option dicts of the long-running stdlib operations
 * (agents.md §1.4–§1.6). These builtins are lenient by contract: a
 * non-dict options argument is ignored and a key of the wrong type counts
 * as absent.
 */
import { display, HDict, type Value } from "@harn/vm";

export function optionsDict(v: Value | undefined): HDict | null {
  return v instanceof HDict ? v : null;
}

export function boolOption(opts: HDict | null, key: string): boolean | null {
  const v = opts?.get(key);
  return typeof v === "boolean" ? v : null;
}

/** A non-negative int option; anything else (wrong type, negative) is absent. */
export function countOption(opts: HDict | null, key: string): number | null {
  const v = opts?.get(key);
  if (typeof v === "number" && v >= 0) return v;
  if (typeof v === "bigint" && v >= 0n) return Number.MAX_SAFE_INTEGER;
  return null;
}

export function stringOption(opts: HDict | null, key: string): string | null {
  const v = opts?.get(key);
  return typeof v === "string" ? v : null;
}

/**
 * `long_running: true`, or its alias `background: true` consulted only when
 * `long_running` is absent, so `{long_running: false, background: true}` is
 * not long-running (§1.4).
 */
export function isLongRunning(opts: HDict | null): boolean {
  const lr = boolOption(opts, "long_running");
  if (lr !== null) return lr;
  return boolOption(opts, "background") ?? false;
}

/** A string argument as the builtins read it: strings as is, nil/absent as
 * empty, anything else by its display form. */
export function textArg(v: Value | undefined): string {
  if (v === undefined || v === null) return "";
  return typeof v === "string" ? v : display(v);
}
