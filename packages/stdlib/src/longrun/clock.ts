/** Time stamps of handles and payloads (agents.md §1.3). */

/** RFC 3339 UTC with milliseconds, e.g. `2026-01-05T09:00:00.412Z`. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

/** Whole milliseconds elapsed since `startMs` (never negative). */
export function elapsedMs(startMs: number, endMs: number): number {
  return Math.max(0, Math.round(endMs - startMs));
}
