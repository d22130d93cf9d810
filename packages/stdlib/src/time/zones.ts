/**
 * IANA time zones through `Intl` (offsets) plus the tz database's
 * abbreviations for `%Z` (spec/stdlib.md §13.2, Appendix A.8). `Intl` names
 * abbreviations only for some locale/zone pairs ("GMT+2" for Berlin in
 * en-US), so the abbreviations of well-known zones come from a table and
 * the rest use the tz database's numeric style (`+03`, `+0530`, `-03`).
 * Formatters are cached per runtime.
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";

export interface Zone {
  readonly name: string;
  /** Offset from UTC in seconds at the instant `sec` (Unix seconds). */
  offsetAt(sec: number): number;
  /** The abbreviation `%Z` prints at the instant `sec`. */
  abbreviationAt(sec: number): string;
}

const UTC_NAMES = new Set(["UTC", "Etc/UTC", "Etc/UCT", "UCT", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu"]);

export const UTC: Zone = {
  name: "UTC",
  offsetAt: () => 0,
  abbreviationAt: () => "UTC",
};

const BUCKET = 900;

const zoneSlot = new RuntimeSlot<Map<string, Zone | null>>("time.zones", () => new Map());

/** The zone named `name` (case-sensitive, as chrono-tz), or null. */
export function lookupZone(rt: Runtime, name: string): Zone | null {
  const cache = rt.slot(zoneSlot);
  let z = cache.get(name);
  if (z === undefined) {
    z = makeZone(name);
    cache.set(name, z);
  }
  return z;
}

function makeZone(name: string): Zone | null {
  if (UTC_NAMES.has(name)) return { ...UTC, name };
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      era: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  } catch {
    return null;
  }
  // Intl matches names case-insensitively; the tz database does not.
  const resolved = fmt.resolvedOptions().timeZone;
  if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) return null;
  if (name !== name.trim() || name === "") return null;

  const exactOffset = (sec: number): number => {
    const parts = fmt.formatToParts(new Date(sec * 1000));
    let year = 0;
    let month = 1;
    let day = 1;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let bc = false;
    for (const p of parts) {
      switch (p.type) {
        case "year":
          year = Number(p.value);
          break;
        case "month":
          month = Number(p.value);
          break;
        case "day":
          day = Number(p.value);
          break;
        case "hour":
          hour = Number(p.value);
          break;
        case "minute":
          minute = Number(p.value);
          break;
        case "second":
          second = Number(p.value);
          break;
        case "era":
          bc = p.value === "BC" || p.value === "B";
          break;
      }
    }
    if (bc) year = 1 - year;
    const d = new Date(0);
    d.setUTCFullYear(year, month - 1, day);
    d.setUTCHours(hour, minute, second, 0);
    return Math.round(d.getTime() / 1000) - sec;
  };

  // Intl is slow (~50 µs a call). Offsets only change at transitions, so
  // cache them per 15-minute bucket: when the offsets at both ends of a
  // bucket agree, every instant inside has that offset.
  const buckets = new Map<number, number | null>();
  const offsetAt = (sec: number): number => {
    const b = Math.floor(sec / BUCKET);
    let o = buckets.get(b);
    if (o === undefined) {
      const start = exactOffset(b * BUCKET);
      o = start === exactOffset(b * BUCKET + BUCKET - 1) ? start : null;
      if (buckets.size >= 4096) buckets.clear();
      buckets.set(b, o);
    }
    return o ?? exactOffset(sec);
  };
  const standardByYear = new Map<number, number>();

  const abbreviationAt = (sec: number): string => {
    const offset = offsetAt(sec);
    const names = ABBREVIATIONS[name] ?? ABBREVIATIONS[resolved];
    if (names) {
      if (names.length === 1) return names[0]!;
      const year = new Date(sec * 1000).getUTCFullYear();
      let standard = standardByYear.get(year);
      if (standard === undefined) {
        standard = Math.min(offsetAt(Date.UTC(year, 0, 1) / 1000), offsetAt(Date.UTC(year, 6, 1) / 1000));
        standardByYear.set(year, standard);
      }
      return offset > standard ? names[1]! : names[0]!;
    }
    if ((name === "GMT" || name === "Etc/GMT") && offset === 0) return "GMT";
    return numericAbbreviation(offset);
  };

  return { name, offsetAt, abbreviationAt };
}

/** The tz database's numeric abbreviation: `+03`, `+0530`, `-03`. */
function numericAbbreviation(offset: number): string {
  const sign = offset < 0 ? "-" : "+";
  const a = Math.abs(offset);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  return sign + String(h).padStart(2, "0") + (m ? String(m).padStart(2, "0") : "");
}

/** [standard, daylight] (or a single name) of well-known zones. */
const ABBREVIATIONS: Record<string, string[]> = {};
function zones(names: string, abbrevs: string[]): void {
  for (const n of names.split(/\s+/)) if (n) ABBREVIATIONS[n] = abbrevs;
}
zones(
  "America/New_York America/Detroit America/Toronto America/Montreal America/Nassau America/Indiana/Indianapolis America/Indianapolis America/Kentucky/Louisville America/Louisville US/Eastern EST5EDT America/Iqaluit",
  ["EST", "EDT"],
);
zones("America/Chicago America/Winnipeg America/Indiana/Knox America/Menominee America/North_Dakota/Center US/Central CST6CDT", ["CST", "CDT"]);
zones("America/Mexico_City America/Regina America/Costa_Rica America/Guatemala America/El_Salvador America/Tegucigalpa", ["CST", "CDT"]);
zones("America/Denver America/Edmonton America/Boise US/Mountain MST7MDT", ["MST", "MDT"]);
zones("America/Phoenix US/Arizona", ["MST"]);
zones("America/Los_Angeles America/Vancouver America/Tijuana US/Pacific PST8PDT", ["PST", "PDT"]);
zones("America/Anchorage America/Juneau US/Alaska", ["AKST", "AKDT"]);
zones("Pacific/Honolulu US/Hawaii", ["HST"]);
zones("America/Halifax America/Moncton Atlantic/Bermuda America/Glace_Bay", ["AST", "ADT"]);
zones("America/Puerto_Rico America/Santo_Domingo America/Barbados", ["AST"]);
zones("America/St_Johns", ["NST", "NDT"]);
zones("Europe/London Europe/Belfast GB Europe/Guernsey Europe/Isle_of_Man Europe/Jersey", ["GMT", "BST"]);
zones("Europe/Dublin Eire", ["GMT", "IST"]);
zones("Europe/Lisbon Atlantic/Canary Atlantic/Madeira Atlantic/Faroe Portugal WET", ["WET", "WEST"]);
zones(
  "Europe/Berlin Europe/Paris Europe/Madrid Europe/Rome Europe/Amsterdam Europe/Brussels Europe/Vienna Europe/Zurich Europe/Stockholm Europe/Oslo Europe/Copenhagen Europe/Prague Europe/Warsaw Europe/Budapest Europe/Belgrade Europe/Zagreb Europe/Ljubljana Europe/Bratislava Europe/Luxembourg Europe/Monaco Europe/Malta Europe/Andorra Europe/Tirane Europe/Sarajevo Europe/Skopje Europe/Podgorica Europe/San_Marino Europe/Vatican Europe/Vaduz Europe/Gibraltar Europe/Busingen Arctic/Longyearbyen Africa/Ceuta CET MET",
  ["CET", "CEST"],
);
zones("Africa/Algiers Africa/Tunis", ["CET"]);
zones(
  "Europe/Athens Europe/Helsinki Europe/Kiev Europe/Kyiv Europe/Bucharest Europe/Sofia Europe/Riga Europe/Tallinn Europe/Vilnius Europe/Chisinau Europe/Mariehamn Africa/Cairo Asia/Beirut Asia/Nicosia Europe/Nicosia Asia/Famagusta EET",
  ["EET", "EEST"],
);
zones("Africa/Tripoli Europe/Kaliningrad", ["EET"]);
zones("Europe/Moscow Europe/Simferopol Europe/Kirov Europe/Volgograd W-SU", ["MSK"]);
zones("Asia/Tokyo Japan", ["JST"]);
zones("Asia/Seoul ROK", ["KST"]);
zones("Asia/Pyongyang", ["KST"]);
zones("Asia/Shanghai Asia/Chongqing Asia/Harbin Asia/Taipei Asia/Macau PRC ROC", ["CST"]);
zones("Asia/Hong_Kong Hongkong", ["HKT"]);
zones("Asia/Kolkata Asia/Calcutta", ["IST"]);
zones("Asia/Karachi", ["PKT"]);
zones("Asia/Jakarta Asia/Pontianak", ["WIB"]);
zones("Asia/Makassar", ["WITA"]);
zones("Asia/Jayapura", ["WIT"]);
zones("Asia/Manila", ["PST"]);
zones("Asia/Jerusalem Asia/Tel_Aviv Israel", ["IST", "IDT"]);
zones("Australia/Sydney Australia/Melbourne Australia/Hobart Australia/Canberra Australia/ACT Australia/NSW Australia/Victoria Australia/Tasmania Australia/Currie", ["AEST", "AEDT"]);
zones("Australia/Brisbane Australia/Lindeman Australia/Queensland", ["AEST"]);
zones("Australia/Adelaide Australia/Broken_Hill Australia/South", ["ACST", "ACDT"]);
zones("Australia/Darwin Australia/North", ["ACST"]);
zones("Australia/Perth Australia/West", ["AWST"]);
zones("Pacific/Auckland Antarctica/McMurdo NZ", ["NZST", "NZDT"]);
zones("Africa/Johannesburg Africa/Maseru Africa/Mbabane", ["SAST"]);
zones("Africa/Nairobi Africa/Addis_Ababa Africa/Dar_es_Salaam Africa/Kampala Africa/Mogadishu Africa/Djibouti Africa/Asmara Indian/Comoro Indian/Antananarivo Indian/Mayotte", ["EAT"]);
zones("Africa/Lagos Africa/Kinshasa Africa/Luanda Africa/Douala Africa/Libreville Africa/Malabo Africa/Niamey Africa/Porto-Novo Africa/Bangui Africa/Brazzaville Africa/Ndjamena", ["WAT"]);
zones("Africa/Maputo Africa/Harare Africa/Lusaka Africa/Lubumbashi Africa/Blantyre Africa/Bujumbura Africa/Gaborone Africa/Kigali Africa/Windhoek Africa/Juba Africa/Khartoum", ["CAT"]);
zones("Africa/Abidjan Africa/Accra Africa/Dakar Africa/Bamako Africa/Monrovia Atlantic/Reykjavik Iceland Africa/Banjul Africa/Conakry Africa/Freetown Africa/Lome Africa/Nouakchott Africa/Ouagadougou Africa/Bissau Africa/Sao_Tome Atlantic/St_Helena", ["GMT"]);
zones("GMT Etc/GMT Etc/GMT0 Etc/GMT+0 Etc/GMT-0 Etc/Greenwich GMT0 GMT+0 GMT-0 Greenwich", ["GMT"]);
