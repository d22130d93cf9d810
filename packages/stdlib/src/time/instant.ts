/**
 * Instants and civil (calendar) date arithmetic for the date builtins
 * (spec/stdlib.md §13.2). An instant is whole Unix seconds plus nanoseconds;
 * the civil breakdown uses JS `Date` in UTC, whose range (±100,000,000 days)
 * covers chrono's (years −262143 … 262142).
 */
import { HarnError, HDict, HFloat, typeOf, type Value } from "@harn/vm";
import { roundHalfAway } from "../core/math";

export interface Instant {
  /** Whole seconds since the Unix epoch (floor). */
  sec: number;
  /** 0 … 999,999,999 */
  nanos: number;
}

/** A local calendar time. */
export interface Civil {
  year: number;
  /** 1 … 12 */
  month: number;
  /** 1 … 31 */
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanos: number;
  /** 0 = Sunday … 6 = Saturday */
  weekday: number;
  /** 1 … 366 */
  yday: number;
}

// chrono's NaiveDate range
const MIN_YEAR = -262143;
const MAX_YEAR = 262142;
const MIN_SEC = daysFromCivil(MIN_YEAR, 1, 1) * 86400;
const MAX_SEC = daysFromCivil(MAX_YEAR, 12, 31) * 86400 + 86399;

function fail(msg: string): never {
  throw HarnError.thrown(msg);
}

/**
 * A date argument: int or float Unix seconds, or a dict with a `timestamp`
 * key. Errors are the shared texts of §13.2.
 */
export function instantArg(fn: string, args: Value[], i: number): Instant {
  if (i >= args.length) fail(`${fn}: missing timestamp argument`);
  return toInstant(fn, args[i]!);
}

export function toInstant(fn: string, v: Value): Instant {
  if (v instanceof HDict && v.has("timestamp")) v = v.get("timestamp");
  if (typeof v === "number") {
    if (v < MIN_SEC || v > MAX_SEC) fail(`${fn}: timestamp out of range`);
    return { sec: v, nanos: 0 };
  }
  if (typeof v === "bigint") fail(`${fn}: timestamp out of range`);
  if (v instanceof HFloat) {
    if (!Number.isFinite(v.v)) fail(`${fn}: timestamp must be finite`);
    // rounded to the nearest microsecond
    const micros = roundHalfAway(v.v * 1e6);
    const sec = Math.floor(micros / 1e6);
    if (sec < MIN_SEC || sec > MAX_SEC) fail(`${fn}: timestamp out of range`);
    return { sec, nanos: Math.round(micros - sec * 1e6) * 1000 };
  }
  fail(`${fn}: expected timestamp number or date dict, got ${typeOf(v)}`);
}

export function inRange(sec: number): boolean {
  return sec >= MIN_SEC && sec <= MAX_SEC;
}

/** Unix seconds as Harn returns them: an int when whole, else a float. */
export function timestampValue(t: Instant): Value {
  return t.nanos === 0 ? t.sec : new HFloat(t.sec + t.nanos / 1e9);
}

/** Break local seconds (Unix seconds shifted by the zone offset) into a
 * calendar time. */
export function civilFromSeconds(localSec: number, nanos: number): Civil {
  const d = new Date(localSec * 1000);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth() + 1;
  const day = d.getUTCDate();
  return {
    year,
    month,
    day,
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    nanos,
    weekday: d.getUTCDay(),
    yday: daysFromCivil(year, month, day) - daysFromCivil(year, 1, 1) + 1,
  };
}

/** Days since 1970-01-01 of a proleptic Gregorian date (any year). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  return [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

export function yearRepresentable(y: number): boolean {
  return y >= MIN_YEAR && y <= MAX_YEAR;
}

/** Seconds of a local calendar time read as if it were UTC. */
export function localSeconds(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  return daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}

export function pad(n: number, width: number, fill = "0"): string {
  const neg = n < 0;
  let s = String(Math.abs(n));
  while (s.length < width) s = fill + s;
  return neg ? "-" + s : s;
}

/** `YYYY-MM-DD`, zero-padded (error texts). */
export function ymd(y: number, m: number, d: number): string {
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

/** RFC 3339 fraction: nothing when zero, else 3, 6 or 9 digits as needed. */
export function autoFraction(nanos: number): string {
  if (nanos === 0) return "";
  if (nanos % 1_000_000 === 0) return "." + pad(nanos / 1_000_000, 3);
  if (nanos % 1000 === 0) return "." + pad(nanos / 1000, 6);
  return "." + pad(nanos, 9);
}

/** `+hh:mm` / `-hh:mm` (with `:ss` when the offset has seconds). */
export function formatOffset(offsetSec: number, colon: boolean): string {
  const sign = offsetSec < 0 ? "-" : "+";
  const a = Math.abs(offsetSec);
  const h = pad(Math.floor(a / 3600), 2);
  const m = pad(Math.floor((a % 3600) / 60), 2);
  return sign + h + (colon ? ":" : "") + m;
}

/** RFC 3339 with a numeric offset (`+00:00` for UTC, never `Z`). */
export function rfc3339(c: Civil, offsetSec: number): string {
  const base = `${formatYear(c.year)}-${pad(c.month, 2)}-${pad(c.day, 2)}T${pad(c.hour, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)}`;
  return base + autoFraction(c.nanos) + formatOffset(offsetSec, true);
}

/** chrono's `%Y`: at least 4 digits, a sign outside 0 … 9999. */
export function formatYear(y: number): string {
  if (y >= 0 && y <= 9999) return pad(y, 4);
  return (y < 0 ? "-" : "+") + pad(Math.abs(y), 4);
}
