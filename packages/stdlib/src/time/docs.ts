/**
 * Signatures and docs of the time builtins for the builtin table
 * (registry/docs.ts): the spec's words where it documents the builtin, a
 * short summary where it only mentions it. Read by the build only.
 */
import type { BuiltinDocs } from "../registry/docs";

export const TIME_DOCS: BuiltinDocs = {
  advance_time: ["advance_time(ms)", "Advances both mock clocks; returns the new mock wall-clock ms. Without a mock throws `advance_time: no mock active`."],
  date_add: ["date_add(ts, d)", "Returns timestamp shifted by `d` (int seconds if whole, else float). `date_diff(a, b)` → duration `a − b` (millisecond precision). Non-duration throws `<fn>: expected duration, got <type>` / `<fn>: missing duration argument`; overflow throws `date_add: timestamp overflow` / `date_diff: duration overflow`."],
  date_diff: ["date_diff(a, b)", "The duration `a − b` between two timestamps (millisecond precision)."],
  date_format: ["date_format(ts, format?, tz?)", "Formats with chrono/strftime syntax (default format `%Y-%m-%d %H:%M:%S`), in UTC or in `tz` if given. Negative (pre-1970) timestamps are valid. Supported specifiers (implement at least these)."],
  date_from_components: ["date_from_components(parts, tz?)", "`parts` = `{year, month, day, hour?, minute?, second?}` (ints, or floats with no fraction) interpreted as local time in `tz` (default/nil = UTC) → Unix seconds. Ambiguous local times (DST fall-back) take the earlier instant; non-existent ones throws `date_from_components: local time does not exist in that timezone`."],
  date_in_zone: ["date_in_zone(ts, tz)", "Dict: `year month day hour minute second weekday` (local), `offset_seconds` (e.g. `-18000` for New York in winter), `timestamp` (int or float as in `date_parse`), `iso8601` (same format as `date_to_zone`), `zone` (the name passed in)."],
  date_iso: ["date_iso()", "Current UTC time as `YYYY-MM-DDTHH:MM:SS.mmmZ` (always 3 fraction digits, `Z` suffix)."],
  date_now: ["date_now()", "Dict (UTC): `year`, `month` (1–12), `day`, `hour`, `minute`, `second`, `weekday` (0 = Sunday … 6), `timestamp` (float seconds, ms precision), `iso8601` (`YYYY-MM-DDTHH:MM:SS.mmmZ`)."],
  date_now_iso: ["date_now_iso()", "Current UTC time as `YYYY-MM-DDTHH:MM:SS.mmmZ` (always 3 fraction digits, `Z` suffix)."],
  date_parse: ["date_parse(text)", "Returns Unix seconds (int when the instant has no sub-second part, else float). The input is trimmed, then tried in order."],
  date_to_zone: ["date_to_zone(ts, tz)", "RFC 3339 string in that zone with a numeric offset (`+00:00` for UTC — never `Z`); fractional seconds printed only when non-zero, using 3, 6 or 9 digits as needed. Missing tz throws `date_to_zone: missing timezone argument`."],
  duration_days: ["duration_days(n)", "Int or finite float `n` times the unit, floats rounded to the nearest ms. Throws: `<fn>: missing value argument`, `<fn>: expected number, got <type>`, `<fn>: duration overflow`."],
  duration_hours: ["duration_hours(n)", "Int or finite float `n` times the unit, floats rounded to the nearest ms. Throws: `<fn>: missing value argument`, `<fn>: expected number, got <type>`, `<fn>: duration overflow`."],
  duration_minutes: ["duration_minutes(n)", "Int or finite float `n` times the unit, floats rounded to the nearest ms. Throws: `<fn>: missing value argument`, `<fn>: expected number, got <type>`, `<fn>: duration overflow`."],
  duration_ms: ["duration_ms(n)", "Int or finite float `n` times the unit, floats rounded to the nearest ms. Throws: `<fn>: missing value argument`, `<fn>: expected number, got <type>`, `<fn>: duration overflow`."],
  duration_seconds: ["duration_seconds(n)", "Int or finite float `n` times the unit, floats rounded to the nearest ms. Throws: `<fn>: missing value argument`, `<fn>: expected number, got <type>`, `<fn>: duration overflow`."],
  duration_to_human: ["duration_to_human(d)", "Returns up to three largest non-zero units from `d h m s ms`, space separated, with a leading `-` when negative; zero → `\"0s\"`. Examples: 125 minutes → `2h 5m`; −90 s → `-1m 30s`; 90 061 001 ms → `1d 1h 1m` (the seconds/ms are dropped after three parts)."],
  duration_to_seconds: ["duration_to_seconds(d)", "Returns int, truncated toward zero."],
  elapsed: ["elapsed()", "Integer milliseconds on a monotonic clock whose zero is the first time any monotonic reading is taken in the process (so early calls return small numbers); under `mock_time` it is the milliseconds advanced since the mock was installed."],
  mock_time: ["mock_time(ms)", "Installs a mock wall clock at Unix-ms `ms` and resets the mock monotonic clock to 0. Non-int throws `mock_time(ms): expected an integer millisecond timestamp`. `advance_time(ms)` — P2. Advances both mock clocks; returns the new mock wall-clock ms. Without a mock throws `advance_time: no mock active."],
  monotonic_ms: ["monotonic_ms()", "Integer milliseconds on a monotonic clock whose zero is the first time any monotonic reading is taken in the process (so early calls return small numbers); under `mock_time` it is the milliseconds advanced since the mock was installed."],
  month_name: ["month_name(ts, tz?)", "English full names (`\"Saturday\"`, `\"April\"`)."],
  now_ms: ["now_ms()", "Unix time in integer milliseconds (mockable)."],
  sleep_ms: ["sleep_ms(ms)", "Int milliseconds; when a clock mock is active it advances the mock instead of waiting."],
  timer_end: ["timer_end(timer)", "Computes the elapsed real ms of a `timer_start` dict, writes `[timer] <name>: <ms>ms` to stdout and returns the int."],
  timer_start: ["timer_start(name?)", "Returns `{name, start_ms}` (name default `\"default\"`, start = real Unix ms). `timer_end(timer)` computes elapsed real ms, writes `[timer] <name>: <ms>ms` to stdout, and returns the int. Non-dict throws `timer_end: argument must be a timer dict from timer_start`."],
  timestamp: ["timestamp()", "Current Unix time in seconds as a float with millisecond resolution (`now_ms / 1000`). Honours `mock_time`."],
  unmock_time: ["unmock_time()", "Removes the clock mock of `mock_time`."],
  weekday_name: ["weekday_name(ts, tz?)", "English full names (`\"Saturday\"`, `\"April\"`)."],
};
