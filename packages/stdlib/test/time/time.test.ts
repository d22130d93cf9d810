import { describe, expect, it } from "vitest";
import { display, HDict, HDuration, HFloat, type Value } from "@harn/vm";
import { raised, rig, settle } from "../core/harness";

function setup() {
  const r = rig();
  return r;
}

const f = (x: number) => new HFloat(x);
const show = (v: Value) => display(v);

async function thrownText(fn: () => Value | Promise<Value>): Promise<string> {
  const e = await raised(fn);
  expect(e.kind).toBe("thrown");
  return e.caughtValue() as string;
}

describe("clocks and mock_time", () => {
  it("timestamp is float seconds, now_ms int ms, both follow mock_time", () => {
    const r = setup();
    const before = Date.now();
    const ts = r.call("timestamp") as HFloat;
    expect(ts).toBeInstanceOf(HFloat);
    expect(ts.v * 1000).toBeGreaterThanOrEqual(before);
    r.call("mock_time", 1_700_000_000_000);
    expect(show(r.call("timestamp"))).toBe("1700000000.0");
    expect(r.call("now_ms")).toBe(1_700_000_000_000);
    expect(r.call("monotonic_ms")).toBe(0);
    expect(r.call("advance_time", 1500)).toBe(1_700_000_001_500);
    expect(r.call("elapsed")).toBe(1500);
    expect(show(r.call("timestamp"))).toBe("1700000001.5");
    expect(r.call("sleep_ms", 500)).toBeNull();
    expect(r.call("now_ms")).toBe(1_700_000_002_000);
    expect(show(r.call("date_now"))).toBe(
      "{day: 14, hour: 22, iso8601: 2023-11-14T22:13:22.000Z, minute: 13, month: 11, second: 22, timestamp: 1700000002.0, weekday: 2, year: 2023}",
    );
    expect(r.call("date_now_iso")).toBe("2023-11-14T22:13:22.000Z");
    r.call("unmock_time");
    expect(r.call("now_ms") as number).toBeGreaterThan(1_700_000_002_000);
  });
  it("rejects bad mock_time use", async () => {
    const r = setup();
    expect(await thrownText(() => r.call("advance_time", 5))).toBe("advance_time: no mock active. Call mock_time(ms) first.");
    expect(await thrownText(() => r.call("mock_time", f(1.5)))).toBe("mock_time(ms): expected an integer millisecond timestamp");
  });
  it("two runtimes have independent mocks", () => {
    const a = setup();
    const b = setup();
    a.call("mock_time", 1000);
    expect(a.call("now_ms")).toBe(1000);
    expect(b.call("now_ms") as number).toBeGreaterThan(1000);
  });
  it("sleep_ms really waits without a mock and honours cancellation", async () => {
    const r = setup();
    const p = r.callP("sleep_ms", 20);
    expect(p).toBeInstanceOf(Promise);
    expect(await settle(p)).toBeNull();
    const long = r.callP("sleep_ms", 60_000);
    r.abort.abort("cancelled");
    await expect(long).rejects.toBe("cancelled");
  });
  it("timer_end writes a [timer] line and returns the ms", async () => {
    const r = setup();
    const t = r.call("timer_start", "load");
    const ms = r.call("timer_end", t);
    expect(typeof ms).toBe("number");
    expect(r.stdout()).toBe(`[timer] load: ${ms}ms\n`);
    expect(await thrownText(() => r.call("timer_end", 3))).toBe("timer_end: argument must be a timer dict from timer_start");
    expect((r.call("timer_start") as HDict).get("name")).toBe("default");
  });
});

describe("date_parse", () => {
  const r = setup();
  it("parses RFC 3339, naive date-times and dates as UTC", () => {
    expect(r.call("date_parse", "2031-07-04T08:15:00Z")).toBe(1940919300);
    expect(r.call("date_parse", "2031-07-04T10:15:00+02:00")).toBe(1940919300);
    expect(show(r.call("date_parse", "1970-01-01T00:00:01.25Z"))).toBe("1.25");
    expect(r.call("date_parse", "2024-01-15 10:30:00")).toBe(1705314600);
    expect(r.call("date_parse", "2024-01-15T10:30")).toBe(1705314600);
    expect(r.call("date_parse", "  2024-01-15  ")).toBe(1705276800);
    expect(r.call("date_parse", "1969-12-31")).toBe(-86400);
  });
  it("falls back to digit runs", () => {
    expect(r.call("date_parse", "2024/01/15 10:30")).toBe(1705314600);
    expect(r.call("date_parse", "2024.1.5 7h")).toBe(1704438000);
  });
  it("reports the reference's errors", async () => {
    expect(await thrownText(() => r.call("date_parse", "   "))).toBe("Cannot parse date: ");
    expect(await thrownText(() => r.call("date_parse", "not a date"))).toBe("Cannot parse date: not a date");
    expect(await thrownText(() => r.call("date_parse", "2024-13-01"))).toBe("Invalid month: 13 (must be 1-12)");
    expect(await thrownText(() => r.call("date_parse", "2024-02-31"))).toBe("Invalid date: 2024-02-31");
    expect(await thrownText(() => r.call("date_parse", "2024-01-32"))).toBe("Invalid day: 32 (must be 1-31)");
    expect(await thrownText(() => r.call("date_parse", "2024-01-01 24:00"))).toBe("Invalid hour: 24 (must be 0-23)");
    expect(await thrownText(() => r.call("date_parse", "2024-01-01 10:60"))).toBe("Invalid minute: 60 (must be 0-59)");
    expect(await thrownText(() => r.call("date_parse", "2024-01-01 10:10:61"))).toBe("Invalid second: 61 (must be 0-59)");
    expect(await thrownText(() => r.call("date_parse", "999999-01-01"))).toBe("Invalid year: 999999");
    // the fallback reads digit runs as year, month, day in that order
    expect(await thrownText(() => r.call("date_parse", "on 15.01.2024?"))).toBe("Invalid day: 2024 (must be 1-31)");
    expect(await thrownText(() => r.call("date_parse", "5/6"))).toBe("Cannot parse date: 5/6");
  });
});

describe("date_format", () => {
  const r = setup();
  it("formats in UTC by default", () => {
    expect(r.call("date_format", 0)).toBe("1970-01-01 00:00:00");
    expect(r.call("date_format", -3600)).toBe("1969-12-31 23:00:00");
    expect(r.call("date_format", f(1.5), "%S.%3f")).toBe("01.500");
    expect(r.call("date_format", 1705314600, "%a %A %b %B %h %d %e %j %u %w")).toBe("Mon Monday Jan January Jan 15 15 015 1 1");
    expect(r.call("date_format", 1705314600, "%D|%F|%T|%R|%r|%c")).toBe("01/15/24|2024-01-15|10:30:00|10:30|10:30:00 AM|Mon Jan 15 10:30:00 2024");
    expect(r.call("date_format", 1705314600, "%I %l %p %P %k %C %y %s %%%n%t")).toBe("10 10 AM am 10 20 24 1705314600 %\n\t");
    expect(r.call("date_format", 1705314600, "%z %:z %Z")).toBe("+0000 +00:00 UTC");
  });
  it("handles fractions and padding modifiers", () => {
    expect(r.call("date_format", f(0.25), "%.f|%.3f|%.6f|%f|%6f")).toBe(".250|.250|.250000|250000000|250000");
    expect(r.call("date_format", 0, "%.f|")).toBe("|");
    expect(r.call("date_format", f(0.000001), "%.f")).toBe(".000001");
    expect(r.call("date_format", 1704499200, "%-d/%-m %_d %0e")).toBe("6/1  6 06");
  });
  it("computes week numbers", () => {
    // 2021-01-03 is a Sunday in ISO week 53 of 2020
    expect(r.call("date_format", 1609632000, "%G-W%V %g %U %W")).toBe("2020-W53 20 01 00");
    expect(r.call("date_format", 1704067200, "%G-W%V %U %W")).toBe("2024-W01 00 01");
  });
  it("formats in a zone with its abbreviation", () => {
    expect(r.call("date_format", 1720000000, "%Y-%m-%d %H:%M %Z %z", "America/Los_Angeles")).toBe("2024-07-03 02:46 PDT -0700");
    expect(r.call("date_format", 1705314600, "%H:%M %Z", "America/Los_Angeles")).toBe("02:30 PST");
    expect(r.call("date_format", 1705314600, "%H:%M %Z %:z", "Europe/Berlin")).toBe("11:30 CET +01:00");
    expect(r.call("date_format", 1720000000, "%Z", "Europe/Berlin")).toBe("CEST");
    expect(r.call("date_format", 1705314600, "%H:%M %Z", "Asia/Kolkata")).toBe("16:00 IST");
    expect(r.call("date_format", 1705314600, "%Z", "Asia/Dubai")).toBe("+04");
  });
  it("rejects unknown zones, bad timestamps and bad formats", async () => {
    expect(await thrownText(() => r.call("date_format", 0, "%Y", "Mars/Olympus"))).toBe("date_format: unknown timezone 'Mars/Olympus'");
    expect(await thrownText(() => r.call("date_format", 0, "%Y", "america/los_angeles"))).toBe("date_format: unknown timezone 'america/los_angeles'");
    expect(await thrownText(() => r.call("date_format"))).toBe("date_format: missing timestamp argument");
    expect(await thrownText(() => r.call("date_format", "2024-01-01"))).toBe("date_format: expected timestamp number or date dict, got string");
    expect(await thrownText(() => r.call("date_format", f(Infinity)))).toBe("date_format: timestamp must be finite");
    expect(await thrownText(() => r.call("date_format", 9_000_000_000_000))).toBe("date_format: timestamp out of range");
    expect(await thrownText(() => r.call("date_format", 0, "%Q"))).toContain("date_format: invalid format");
  });
  it("accepts a date dict", () => {
    r.call("mock_time", 86_400_000);
    expect(r.call("date_format", r.call("date_now"), "%F")).toBe("1970-01-02");
    r.call("unmock_time");
  });
});

describe("zones", () => {
  const r = setup();
  it("date_to_zone gives RFC 3339 with a numeric offset", () => {
    expect(r.call("date_to_zone", 0, "UTC")).toBe("1970-01-01T00:00:00+00:00");
    expect(r.call("date_to_zone", 1705314600, "America/New_York")).toBe("2024-01-15T05:30:00-05:00");
    expect(r.call("date_to_zone", f(1705314600.5), "Asia/Kolkata")).toBe("2024-01-15T16:00:00.500+05:30");
  });
  it("switches offsets exactly at DST transitions (offsets are cached per bucket)", () => {
    expect(r.call("date_to_zone", 1710054000 - 1, "America/New_York")).toBe("2024-03-10T01:59:59-05:00");
    expect(r.call("date_to_zone", 1710054000, "America/New_York")).toBe("2024-03-10T03:00:00-04:00");
    // a historical LMT offset with seconds, mid-bucket
    expect(r.call("date_to_zone", -2717650800 - 3600, "America/New_York")).toBe("1883-11-18T11:03:58-04:56");
    expect(r.call("date_to_zone", -2717650800, "America/New_York")).toBe("1883-11-18T12:00:00-05:00");
  });
  it("date_to_zone needs a zone", async () => {
    expect(await thrownText(() => r.call("date_to_zone", 0))).toBe("date_to_zone: missing timezone argument");
  });
  it("date_in_zone breaks a timestamp down locally", () => {
    expect(show(r.call("date_in_zone", 1705314600, "America/New_York"))).toBe(
      "{day: 15, hour: 5, iso8601: 2024-01-15T05:30:00-05:00, minute: 30, month: 1, offset_seconds: -18000, second: 0, timestamp: 1705314600, weekday: 1, year: 2024, zone: America/New_York}",
    );
  });
  it("date_from_components resolves local times, DST included", async () => {
    expect(r.call("date_from_components", HDict.of({ year: 2024, month: 1, day: 15, hour: 10, minute: 30 }))).toBe(1705314600);
    expect(r.call("date_from_components", HDict.of({ year: 2024, month: 1, day: 15, hour: 5, minute: 30 }), "America/New_York")).toBe(1705314600);
    // 2024-11-03 01:30 happens twice in New York: the earlier (EDT) wins
    expect(r.call("date_from_components", HDict.of({ year: 2024, month: 11, day: 3, hour: 1, minute: 30 }), "America/New_York")).toBe(1730611800);
    expect(await thrownText(() => r.call("date_from_components", HDict.of({ year: 2024, month: 3, day: 10, hour: 2, minute: 30 }), "America/New_York"))).toBe(
      "date_from_components: local time does not exist in that timezone",
    );
    expect(await thrownText(() => r.call("date_from_components", HDict.of({ year: 2024, month: 3 })))).toBe("date_from_components: missing day");
    expect(await thrownText(() => r.call("date_from_components", HDict.of({ year: 2024, month: f(1.5), day: 1 })))).toBe(
      "date_from_components: month must be an integer, got float",
    );
    expect(await thrownText(() => r.call("date_from_components", [1]))).toBe("date_from_components: expected dict, got list");
    expect(await thrownText(() => r.call("date_from_components"))).toBe("date_from_components: missing components argument");
    expect(await thrownText(() => r.call("date_from_components", HDict.of({ year: 2023, month: 2, day: 29 })))).toBe("Invalid date: 2023-02-29");
  });
  it("names weekdays and months", () => {
    expect(r.call("weekday_name", 1705314600)).toBe("Monday");
    expect(r.call("month_name", 1705314600)).toBe("January");
    expect(r.call("weekday_name", 1705276800, "America/Los_Angeles")).toBe("Sunday");
  });
});

describe("durations", () => {
  const r = setup();
  it("builds durations from numbers", async () => {
    expect(show(r.call("duration_seconds", 90))).toBe("90s");
    expect(show(r.call("duration_minutes", f(1.5)))).toBe("90s");
    expect(show(r.call("duration_hours", 2))).toBe("2h");
    expect(show(r.call("duration_days", 1))).toBe("24h");
    expect(show(r.call("duration_ms", f(2.6)))).toBe("3ms");
    expect(await thrownText(() => r.call("duration_ms"))).toBe("duration_ms: missing value argument");
    expect(await thrownText(() => r.call("duration_ms", "5"))).toBe("duration_ms: expected number, got string");
    expect(await thrownText(() => r.call("duration_days", 999_999_999_999))).toBe("duration_days: duration overflow");
  });
  it("converts and humanizes", () => {
    expect(r.call("duration_to_seconds", new HDuration(-1500))).toBe(-1);
    expect(r.call("duration_to_human", new HDuration(125 * 60_000))).toBe("2h 5m");
    expect(r.call("duration_to_human", new HDuration(-90_000))).toBe("-1m 30s");
    expect(r.call("duration_to_human", new HDuration(90_061_001))).toBe("1d 1h 1m");
    expect(r.call("duration_to_human", new HDuration(0))).toBe("0s");
  });
  it("adds and diffs dates", async () => {
    expect(r.call("date_add", 100, new HDuration(5000))).toBe(105);
    expect(show(r.call("date_add", 100, new HDuration(1500)))).toBe("101.5");
    expect(show(r.call("date_add", f(0.75), new HDuration(250)))).toBe("1");
    expect(show(r.call("date_diff", 200, 100))).toBe("100s");
    expect(show(r.call("date_diff", f(1.25), 2))).toBe("-750ms");
    expect(await thrownText(() => r.call("date_add", 1, 5))).toBe("date_add: expected duration, got int");
    expect(await thrownText(() => r.call("date_add", 1))).toBe("date_add: missing duration argument");
  });
});
