/**
 * `date_parse` (spec/stdlib.md §13.2): RFC 3339, then naive date-times read
 * as UTC, then a bare date, then a lenient fallback over the runs of digits
 * in the text. Errors are thrown strings with the reference's texts.
 */
import { HarnError } from "@harn/vm";
import { daysInMonth, localSeconds, ymd, yearRepresentable, type Instant } from "./instant";

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const NAIVE = /^([+-]?\d{1,6})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(\.\d+)?)?$/;
const DATE_ONLY = /^([+-]?\d{1,6})-(\d{1,2})-(\d{1,2})$/;

function fail(msg: string): never {
  throw HarnError.thrown(msg);
}

/** Nanoseconds of a `.123` fraction (digits beyond 9 are dropped). */
function fractionNanos(frac: string | undefined): number {
  if (!frac) return 0;
  return Number((frac.slice(1) + "000000000").slice(0, 9));
}

/** A valid calendar time, or null (the structured formats then fall through
 * to the lenient parser, which reports what is wrong). */
function build(y: number, mo: number, d: number, h: number, mi: number, s: number, nanos: number, offset: number): Instant | null {
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return null;
  if (!yearRepresentable(y)) return null;
  return { sec: localSeconds(y, mo, d, h, mi, s) - offset, nanos };
}

export function parseDate(input: string): Instant {
  const text = input.trim();
  if (text === "") fail("Cannot parse date: ");

  let m = RFC3339.exec(text);
  if (m) {
    let offset = 0;
    const z = m[8]!;
    if (z !== "Z" && z !== "z") {
      const sign = z[0] === "-" ? -1 : 1;
      const oh = Number(z.slice(1, 3));
      const om = Number(z.slice(4, 6));
      offset = oh <= 23 && om <= 59 ? sign * (oh * 3600 + om * 60) : NaN;
    }
    if (!Number.isNaN(offset)) {
      const t = build(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!, fractionNanos(m[7]), offset);
      if (t) return t;
    }
  }
  m = NAIVE.exec(text);
  if (m) {
    const t = build(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, m[6] === undefined ? 0 : +m[6], fractionNanos(m[7]), 0);
    if (t) return t;
  }
  m = DATE_ONLY.exec(text);
  if (m) {
    const t = build(+m[1]!, +m[2]!, +m[3]!, 0, 0, 0, 0, 0);
    if (t) return t;
  }
  return lenient(input, text);
}

function lenient(original: string, text: string): Instant {
  const runs = text.match(/[0-9]+/g) ?? [];
  if (runs.length < 3) fail(`Cannot parse date: ${original}`);
  const num = (i: number): number => (i < runs.length ? Number(runs[i]) : 0);
  const year = num(0);
  const month = num(1);
  const day = num(2);
  const hour = num(3);
  const minute = num(4);
  const second = num(5);
  if (month < 1 || month > 12) fail(`Invalid month: ${month} (must be 1-12)`);
  if (day < 1 || day > 31) fail(`Invalid day: ${day} (must be 1-31)`);
  if (hour > 23) fail(`Invalid hour: ${hour} (must be 0-23)`);
  if (minute > 59) fail(`Invalid minute: ${minute} (must be 0-59)`);
  if (second > 59) fail(`Invalid second: ${second} (must be 0-59)`);
  if (day > daysInMonth(year, month)) fail(`Invalid date: ${ymd(year, month, day)}`);
  if (!yearRepresentable(year)) fail(`Invalid year: ${year}`);
  return { sec: localSeconds(year, month, day, hour, minute, second), nanos: 0 };
}
