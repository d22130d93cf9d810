/**
 * Snapshot deltas: what changed in a daemon's snapshot (spec/agents.md
 * §4.2) since the last one committed, so an idle boundary appends the
 * turn's new messages instead of rewriting the whole transcript.
 *
 * A delta is a JSON object:
 *   set     fields replaced whole (scalars, the watch stamps, a list or
 *           text that did not just grow);
 *   splice  list fields as `[at, items]`: keep the first `at` entries,
 *           then append `items` (a plain append has `at` = the old length;
 *           a compaction or a copied-on-write message gives a smaller `at`);
 *   grow    text fields that only grew: the appended text;
 *   shared  `recorded_messages` is the same list as `visible_messages`
 *           (the loop keeps one list), so it is not written twice.
 *
 * Lists are compared by identity, entry by entry: the loop appends new
 * message objects and replaces (never edits) one it changes, so an entry
 * that is the same object is the same message. That makes a diff cost
 * pointer comparisons plus the encoding of what is new.
 */
import type { Json, JsonObject } from "../json";
import { Corrupt, type Snapshot } from "./files";

const LIST_FIELDS = ["visible_messages", "recorded_messages", "transcript_events", "all_tools_used", "rejected_tools", "deferred_user_messages"] as const;
type ListField = (typeof LIST_FIELDS)[number];
const TEXT_FIELDS = ["total_text"] as const;
const SCALAR_FIELDS = ["saved_at", "daemon_state", "transcript_summary", "last_iteration_text", "total_iterations", "idle_backoff_ms", "last_run_exit_code", "stop_reason"] as const;

/** A copy that later changes to the loop's lists cannot reach (the lists
 * are copied; their entries are never edited in place). */
export function frozenSnapshot(s: Snapshot): Snapshot {
  const copy: Snapshot = { ...s };
  for (const f of LIST_FIELDS) (copy[f] as Json[]) = (s[f] as Json[]).slice();
  if (s.recorded_messages === s.visible_messages) copy.recorded_messages = copy.visible_messages;
  copy.watch_state = { ...s.watch_state };
  return copy;
}

/** The delta from `prev` (null: nothing committed yet) to `cur`. */
export function diffSnapshot(prev: Snapshot | null, cur: Snapshot): JsonObject {
  const set: JsonObject = {};
  const splice: JsonObject = {};
  const grow: JsonObject = {};
  const shared = cur.recorded_messages === cur.visible_messages;
  for (const f of LIST_FIELDS) {
    if (f === "recorded_messages" && shared) continue;
    const p = prev?.[f] as Json[] | undefined;
    const c = cur[f] as Json[];
    if (p === undefined) {
      set[f] = c;
      continue;
    }
    let at = 0;
    const n = Math.min(p.length, c.length);
    while (at < n && p[at] === c[at]) at++;
    if (at === p.length && at === c.length) continue;
    splice[f] = [at, c.slice(at)];
  }
  for (const f of TEXT_FIELDS) {
    const p = prev?.[f];
    const c = cur[f];
    if (p === c) continue;
    if (p !== undefined && c.length > p.length && c.startsWith(p)) grow[f] = c.slice(p.length);
    else set[f] = c;
  }
  for (const f of SCALAR_FIELDS) {
    const c = cur[f];
    if (prev === null ? c !== undefined : prev[f] !== c) set[f] = c ?? null;
  }
  if (prev === null || JSON.stringify(prev.watch_state) !== JSON.stringify(cur.watch_state)) set.watch_state = cur.watch_state;
  const delta: JsonObject = { set };
  if (Object.keys(splice).length > 0) delta.splice = splice;
  if (Object.keys(grow).length > 0) delta.grow = grow;
  if (shared) delta.shared = true;
  return delta;
}

/** Apply `delta` to `target` in place (a private copy: see
 * `frozenSnapshot`); a delta that does not fit is `Corrupt`. */
export function applyDelta(target: Snapshot, delta: JsonObject): void {
  const set = delta.set;
  if (set !== undefined && (set === null || typeof set !== "object" || Array.isArray(set))) throw new Corrupt("`set` must be an object");
  // Two lists from here on: they must stop being one array first.
  if (delta.shared !== true && target.recorded_messages === target.visible_messages) target.recorded_messages = target.visible_messages.slice();
  const fields = target as unknown as JsonObject;
  for (const [k, v] of Object.entries((set ?? {}) as JsonObject)) {
    if (k === "stop_reason" && v === null) delete target.stop_reason;
    else fields[k] = v;
  }
  for (const [k, v] of Object.entries((delta.splice ?? {}) as JsonObject)) {
    if (!(LIST_FIELDS as readonly string[]).includes(k)) throw new Corrupt(`\`splice\` names an unknown list \`${k}\``);
    const list = target[k as ListField] as Json[];
    if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== "number" || !Array.isArray(v[1]) || v[0] > list.length || v[0] < 0) {
      throw new Corrupt(`\`splice.${k}\` does not fit the ${list.length} entries before it`);
    }
    list.length = v[0];
    for (const x of v[1]) list.push(x);
  }
  for (const [k, v] of Object.entries((delta.grow ?? {}) as JsonObject)) {
    if (!(TEXT_FIELDS as readonly string[]).includes(k) || typeof v !== "string") throw new Corrupt(`\`grow.${k}\` must be a text field's appended text`);
    fields[k] = (fields[k] as string) + v;
  }
  if (delta.shared === true) target.recorded_messages = target.visible_messages;
}
