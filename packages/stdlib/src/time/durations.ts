/**
 * Duration builtins (spec/stdlib.md §13.3). Durations are integer
 * milliseconds (`HDuration`); overflow is checked against i64.
 */
import { HarnError, HDuration, HFloat, typeOf, type Value } from "@harn/vm";
import { roundHalfAway } from "../core/math";
import { inRange, instantArg, timestampValue } from "./instant";
import { builtinModule } from "../registry/define";

const I64_MAX_MS = 9223372036854775807;

function fail(msg: string): never {
  throw HarnError.thrown(msg);
}

function durationArg(fn: string, args: Value[], i: number): number {
  if (i >= args.length) fail(`${fn}: missing duration argument`);
  const d = args[i]!;
  if (!(d instanceof HDuration)) fail(`${fn}: expected duration, got ${typeOf(d)}`);
  return d.ms;
}

const UNITS: [string, number][] = [
  ["duration_ms", 1],
  ["duration_seconds", 1000],
  ["duration_minutes", 60_000],
  ["duration_hours", 3_600_000],
  ["duration_days", 86_400_000],
];

export const DURATIONS_BUILTINS = builtinModule("time/durations", (def) => {
  for (const [name, unit] of UNITS) {
    def(name, (args) => {
      if (args.length === 0) fail(`${name}: missing value argument`);
      const v = args[0]!;
      let ms: number;
      if (typeof v === "number") ms = v * unit;
      else if (typeof v === "bigint") ms = Number(v) * unit;
      else if (v instanceof HFloat && Number.isFinite(v.v)) ms = roundHalfAway(v.v * unit);
      else fail(`${name}: expected number, got ${typeOf(v)}`);
      if (!Number.isFinite(ms) || Math.abs(ms) > I64_MAX_MS) fail(`${name}: duration overflow`);
      return new HDuration(ms === 0 ? 0 : ms);
    });
  }

  def("duration_to_seconds", (args) => Math.trunc(durationArg("duration_to_seconds", args, 0) / 1000) || 0);

  def("duration_to_human", (args) => humanDuration(durationArg("duration_to_human", args, 0)));

  def("date_add", (args) => {
    const t = instantArg("date_add", args, 0);
    const ms = durationArg("date_add", args, 1);
    const wholeSec = Math.floor(ms / 1000);
    let sec = t.sec + wholeSec;
    let nanos = t.nanos + (ms - wholeSec * 1000) * 1e6;
    if (nanos >= 1e9) {
      sec++;
      nanos -= 1e9;
    }
    if (!inRange(sec)) fail("date_add: timestamp overflow");
    return timestampValue({ sec, nanos });
  });

  def("date_diff", (args) => {
    const a = instantArg("date_diff", args, 0);
    const b = instantArg("date_diff", args, 1);
    const ms = (a.sec - b.sec) * 1000 + Math.trunc((a.nanos - b.nanos) / 1e6);
    if (Math.abs(ms) > I64_MAX_MS) fail("date_diff: duration overflow");
    return new HDuration(ms);
  });
});

/** Up to three largest non-zero units of d h m s ms: `2h 5m`, `-1m 30s`. */
export function humanDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  let rest = Math.abs(ms);
  const parts: string[] = [];
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
    ["ms", 1],
  ] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 && parts.length < 3) parts.push(`${n}${unit}`);
  }
  return sign + parts.join(" ");
}
