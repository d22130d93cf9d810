/**
 * Date builtins (spec/stdlib.md §13.2): parsing, strftime formatting, zone
 * conversion, components. Timestamps are Unix seconds (int when whole,
 * float otherwise) or a dict with a `timestamp` key; all errors are thrown
 * strings.
 */
import { HarnError, HDict, HFloat, typeOf, type Runtime, type Value } from "@harn/vm";
import { strArg } from "../core/args";
import { nowMs } from "./clock";
import {
  civilFromSeconds,
  daysInMonth,
  instantArg,
  localSeconds,
  pad,
  rfc3339,
  timestampValue,
  yearRepresentable,
  ymd,
  type Civil,
  type Instant,
} from "./instant";
import { parseDate } from "./parse";
import { FormatError, monthName, strftime, weekdayName } from "./strftime";
import { lookupZone, UTC, type Zone } from "./zones";
import { builtinModule } from "../registry/define";

function fail(msg: string): never {
  throw HarnError.thrown(msg);
}

/** The zone argument at `i`: absent or nil means UTC. */
function zoneArg(rt: Runtime, fn: string, args: Value[], i: number): Zone {
  if (i >= args.length || args[i] === null) return UTC;
  const name = strArg(args, i);
  const z = lookupZone(rt, name);
  if (!z) fail(`${fn}: unknown timezone '${name}'`);
  return z;
}

/** A required zone argument. */
function requiredZoneArg(rt: Runtime, fn: string, args: Value[], i: number): Zone {
  if (i >= args.length || args[i] === null) fail(`${fn}: missing timezone argument`);
  return zoneArg(rt, fn, args, i);
}

interface Local {
  civil: Civil;
  offset: number;
}

function toLocal(t: Instant, z: Zone): Local {
  const offset = z.offsetAt(t.sec);
  return { civil: civilFromSeconds(t.sec + offset, t.nanos), offset };
}

/** `YYYY-MM-DDTHH:MM:SS.mmmZ` of Unix milliseconds. */
function isoMillis(ms: number): string {
  const sec = Math.floor(ms / 1000);
  const c = civilFromSeconds(sec, 0);
  return `${pad(c.year, 4)}-${pad(c.month, 2)}-${pad(c.day, 2)}T${pad(c.hour, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)}.${pad(ms - sec * 1000, 3)}Z`;
}

export const DATES_BUILTINS = builtinModule("time/dates", (def) => {
  def("date_now", (_args, ctx) => {
    const ms = nowMs(ctx.runtime);
    const c = civilFromSeconds(Math.floor(ms / 1000), 0);
    return HDict.of({
      year: c.year,
      month: c.month,
      day: c.day,
      hour: c.hour,
      minute: c.minute,
      second: c.second,
      weekday: c.weekday,
      timestamp: new HFloat(ms / 1000),
      iso8601: isoMillis(ms),
    });
  });

  const nowIso = (_args: Value[], ctx: { runtime: Runtime }) => isoMillis(nowMs(ctx.runtime));
  def("date_now_iso", nowIso);
  def("date_iso", nowIso);

  def("date_parse", (args) => timestampValue(parseDate(strArg(args, 0))));

  def("date_format", (args, ctx) => {
    const t = instantArg("date_format", args, 0);
    const format = args.length > 1 && args[1] !== null ? strArg(args, 1) : "%Y-%m-%d %H:%M:%S";
    const z = zoneArg(ctx.runtime, "date_format", args, 2);
    const local = toLocal(t, z);
    try {
      return strftime(format, { civil: local.civil, unix: t.sec, offset: local.offset, abbreviation: z.abbreviationAt(t.sec) });
    } catch (e) {
      if (e instanceof FormatError) fail(`date_format: invalid format specifier '${e.spec}'`);
      throw e;
    }
  });

  def("date_to_zone", (args, ctx) => {
    const t = instantArg("date_to_zone", args, 0);
    const z = requiredZoneArg(ctx.runtime, "date_to_zone", args, 1);
    const local = toLocal(t, z);
    return rfc3339(local.civil, local.offset);
  });

  def("date_in_zone", (args, ctx) => {
    const t = instantArg("date_in_zone", args, 0);
    const z = requiredZoneArg(ctx.runtime, "date_in_zone", args, 1);
    const { civil: c, offset } = toLocal(t, z);
    return HDict.of({
      year: c.year,
      month: c.month,
      day: c.day,
      hour: c.hour,
      minute: c.minute,
      second: c.second,
      weekday: c.weekday,
      offset_seconds: offset,
      timestamp: timestampValue(t),
      iso8601: rfc3339(c, offset),
      zone: strArg(args, 1),
    });
  });

  def("date_from_components", (args, ctx) => {
    const fn = "date_from_components";
    if (args.length === 0) fail(`${fn}: missing components argument`);
    const parts = args[0]!;
    if (!(parts instanceof HDict)) fail(`${fn}: expected dict, got ${typeOf(parts)}`);
    const z = zoneArg(ctx.runtime, fn, args, 1);
    const component = (key: string, required: boolean): number => {
      if (!parts.has(key) || parts.get(key) === null) {
        if (required) fail(`${fn}: missing ${key}`);
        return 0;
      }
      const v = parts.get(key);
      if (typeof v === "number") return v;
      if (v instanceof HFloat && Number.isInteger(v.v)) return v.v;
      fail(`${fn}: ${key} must be an integer, got ${typeOf(v)}`);
    };
    const year = component("year", true);
    const month = component("month", true);
    const day = component("day", true);
    const hour = component("hour", false);
    const minute = component("minute", false);
    const second = component("second", false);
    if (month < 1 || month > 12) fail(`Invalid month: ${month} (must be 1-12)`);
    if (day < 1 || day > 31) fail(`Invalid day: ${day} (must be 1-31)`);
    if (hour < 0 || hour > 23) fail(`Invalid hour: ${hour} (must be 0-23)`);
    if (minute < 0 || minute > 59) fail(`Invalid minute: ${minute} (must be 0-59)`);
    if (second < 0 || second > 59) fail(`Invalid second: ${second} (must be 0-59)`);
    if (day > daysInMonth(year, month)) fail(`Invalid date: ${ymd(year, month, day)}`);
    if (!yearRepresentable(year)) fail(`Invalid year: ${year}`);
    const local = localSeconds(year, month, day, hour, minute, second);
    const sec = resolveLocal(z, local);
    if (sec === null) fail(`${fn}: local time does not exist in that timezone`);
    return sec;
  });

  def("weekday_name", (args, ctx) => {
    const t = instantArg("weekday_name", args, 0);
    return weekdayName(toLocal(t, zoneArg(ctx.runtime, "weekday_name", args, 1)).civil.weekday);
  });

  def("month_name", (args, ctx) => {
    const t = instantArg("month_name", args, 0);
    return monthName(toLocal(t, zoneArg(ctx.runtime, "month_name", args, 1)).civil.month);
  });
});

/**
 * The instant of a local wall-clock time in `z`: the earlier one when the
 * time is ambiguous (DST fall-back), null when it does not exist (spring
 * forward). Candidate offsets come from a day before and a day after.
 */
function resolveLocal(z: Zone, local: number): number | null {
  const offsets = new Set([z.offsetAt(local - 86400), z.offsetAt(local), z.offsetAt(local + 86400)]);
  let best: number | null = null;
  for (const o of offsets) {
    const t = local - o;
    if (z.offsetAt(t) === o && (best === null || t < best)) best = t;
  }
  return best;
}
