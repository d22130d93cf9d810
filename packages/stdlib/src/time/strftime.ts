/**
 * chrono-compatible `strftime` (spec/stdlib.md §13.2 `date_format`).
 * Numeric specifiers take the padding modifiers `-` (none), `_` (spaces)
 * and `0` (zeros). An unknown specifier is an error, as in chrono (whose
 * formatter fails on it).
 */
import { autoFraction, formatOffset, formatYear, pad, type Civil } from "./instant";

export interface FormatInput {
  civil: Civil;
  /** Unix seconds of the instant (for `%s`). */
  unix: number;
  offset: number;
  abbreviation: string;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export class FormatError {
  constructor(readonly spec: string) {}
}

export function monthName(m: number): string {
  return MONTHS[m - 1]!;
}

export function weekdayName(w: number): string {
  return WEEKDAYS[w]!;
}

export function strftime(format: string, t: FormatInput): string {
  const c = t.civil;
  let out = "";
  let i = 0;
  while (i < format.length) {
    const ch = format[i]!;
    if (ch !== "%") {
      const next = format.indexOf("%", i);
      const end = next < 0 ? format.length : next;
      out += format.slice(i, end);
      i = end;
      continue;
    }
    const start = i;
    i++;
    let padMode: "-" | "_" | "0" | null = null;
    if (format[i] === "-" || format[i] === "_" || format[i] === "0") {
      // `%0e`, `%-d`, `%_m`; but `%.3f`-style specs start with `.`
      padMode = format[i] as "-" | "_" | "0";
      i++;
    }
    // `%.f`, `%.3f`, `%3f`, `%:z`, `%::z`, `%:::z`
    let spec = format[i];
    if (spec === undefined) throw new FormatError(format.slice(start));
    if (spec === "." || spec === "3" || spec === "6" || spec === "9") {
      const m = /^(\.?)([369]?)f/.exec(format.slice(i));
      if (!m) throw new FormatError(format.slice(start, i + 1));
      i += m[0].length;
      const digits = m[2] === "" ? null : Number(m[2]);
      if (m[1] === "." && digits === null) out += autoFraction(c.nanos);
      else if (m[1] === ".") out += "." + fraction(c.nanos, digits!);
      else if (digits !== null) out += fraction(c.nanos, digits);
      else throw new FormatError(format.slice(start, i));
      continue;
    }
    if (spec === ":") {
      const m = /^(:{1,3})z/.exec(format.slice(i));
      if (!m) throw new FormatError(format.slice(start, i + 1));
      i += m[0].length;
      const colons = m[1]!.length;
      const o = t.offset;
      if (colons === 1) out += formatOffset(o, true);
      else if (colons === 2) out += formatOffset(o, true) + ":" + pad(Math.abs(o) % 60, 2);
      else out += formatOffset(o, true).slice(0, 3);
      continue;
    }
    i++;
    const num = (n: number, width: number, defaultFill: "0" | " " = "0"): string => {
      if (padMode === "-") return String(n);
      const fill = padMode === "_" ? " " : padMode === "0" ? "0" : defaultFill;
      // Rust `{:0w}` / `{:w}`: the sign counts toward the width (`%C` of
      // year -29 is `-1`, not `-01`)
      if (n < 0) return fill === "0" ? "-" + pad(-n, width - 1) : String(n).padStart(width, " ");
      return pad(n, width, fill);
    };
    const hour12 = c.hour % 12 === 0 ? 12 : c.hour % 12;
    switch (spec) {
      case "Y":
        out += padMode ? num(c.year, 4) : formatYear(c.year);
        break;
      case "C":
        out += num(Math.floor(c.year / 100), 2);
        break;
      case "y":
        out += num(((c.year % 100) + 100) % 100, 2);
        break;
      case "m":
        out += num(c.month, 2);
        break;
      case "b":
      case "h":
        out += MONTHS[c.month - 1]!.slice(0, 3);
        break;
      case "B":
        out += MONTHS[c.month - 1]!;
        break;
      case "d":
        out += num(c.day, 2);
        break;
      case "e":
        out += num(c.day, 2, " ");
        break;
      case "a":
        out += WEEKDAYS[c.weekday]!.slice(0, 3);
        break;
      case "A":
        out += WEEKDAYS[c.weekday]!;
        break;
      case "w":
        out += String(c.weekday);
        break;
      case "u":
        out += String(c.weekday === 0 ? 7 : c.weekday);
        break;
      case "U":
        out += num(Math.floor((c.yday - 1 - c.weekday + 7) / 7), 2);
        break;
      case "W":
        out += num(Math.floor((c.yday - 1 - ((c.weekday + 6) % 7) + 7) / 7), 2);
        break;
      case "V":
        out += num(isoWeek(c).week, 2);
        break;
      case "G": {
        const y = isoWeek(c).year;
        out += padMode ? num(y, 4) : formatYear(y);
        break;
      }
      case "g":
        out += num(((isoWeek(c).year % 100) + 100) % 100, 2);
        break;
      case "j":
        out += num(c.yday, 3);
        break;
      case "D":
      case "x":
        out += `${pad(c.month, 2)}/${pad(c.day, 2)}/${pad(((c.year % 100) + 100) % 100, 2)}`;
        break;
      case "F":
        out += `${formatYear(c.year)}-${pad(c.month, 2)}-${pad(c.day, 2)}`;
        break;
      case "v":
        out += `${pad(c.day, 2, " ")}-${MONTHS[c.month - 1]!.slice(0, 3)}-${formatYear(c.year)}`;
        break;
      case "H":
        out += num(c.hour, 2);
        break;
      case "k":
        out += num(c.hour, 2, " ");
        break;
      case "I":
        out += num(hour12, 2);
        break;
      case "l":
        out += num(hour12, 2, " ");
        break;
      case "P":
        out += c.hour < 12 ? "am" : "pm";
        break;
      case "p":
        out += c.hour < 12 ? "AM" : "PM";
        break;
      case "M":
        out += num(c.minute, 2);
        break;
      case "S":
        out += num(c.second, 2);
        break;
      case "f":
        out += pad(c.nanos, 9);
        break;
      case "R":
        out += `${pad(c.hour, 2)}:${pad(c.minute, 2)}`;
        break;
      case "T":
      case "X":
        out += `${pad(c.hour, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)}`;
        break;
      case "r":
        out += `${pad(hour12, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)} ${c.hour < 12 ? "AM" : "PM"}`;
        break;
      case "c":
        out += `${WEEKDAYS[c.weekday]!.slice(0, 3)} ${MONTHS[c.month - 1]!.slice(0, 3)} ${pad(c.day, 2, " ")} ${pad(c.hour, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)} ${formatYear(c.year)}`;
        break;
      case "+":
        out += `${formatYear(c.year)}-${pad(c.month, 2)}-${pad(c.day, 2)}T${pad(c.hour, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)}${autoFraction(c.nanos)}${formatOffset(t.offset, true)}`;
        break;
      case "s":
        out += String(t.unix);
        break;
      case "z":
        out += formatOffset(t.offset, false);
        break;
      case "Z":
        out += t.abbreviation;
        break;
      case "t":
        out += "\t";
        break;
      case "n":
        out += "\n";
        break;
      case "%":
        out += "%";
        break;
      default:
        throw new FormatError(format.slice(start, i));
    }
  }
  return out;
}

function fraction(nanos: number, digits: number): string {
  return pad(nanos, 9).slice(0, digits);
}

/** ISO 8601 week number and week-based year. */
function isoWeek(c: Civil): { week: number; year: number } {
  const isoWeekday = c.weekday === 0 ? 7 : c.weekday;
  const week = Math.floor((c.yday - isoWeekday + 10) / 7);
  if (week < 1) {
    const prev = c.year - 1;
    return { week: weeksInYear(prev), year: prev };
  }
  if (week > weeksInYear(c.year)) return { week: 1, year: c.year + 1 };
  return { week, year: c.year };
}

function weeksInYear(y: number): number {
  // A year has 53 ISO weeks when Jan 1 is a Thursday, or a Wednesday in a leap year.
  const p = (n: number) => (((n + Math.floor(n / 4) - Math.floor(n / 100) + Math.floor(n / 400)) % 7) + 7) % 7;
  return p(y) === 4 || p(y - 1) === 3 ? 53 : 52;
}
