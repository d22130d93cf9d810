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
 * Lists are compared by identity, entry by entry, and only when the loop
 * did more than append to them: it appends new message objects and
 * replaces (never edits) one it changes, so an entry that is the same
 * object is the same message.
 */
import { appendedSince, markOf, prefixOf, type ListMark } from "../loop/transcript";
import { Corrupt, type Snapshot } from "./files";
import { type Json, type JsonObject } from "../../core/json";

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

/**
 * Follows the loop's snapshot from commit to commit and gives each commit
 * its frozen copy and its delta. Work per commit is what changed, not the
 * size of the snapshot: a list the loop only appended to since the last
 * commit (loop/transcript.ts `appendedSince`) is not compared again, and
 * the total text's growth is what the loop reported appending (reading it
 * back out of the long string would copy all of it).
 */
export class SnapshotTracker {
  private readonly marks = new Map<ListField, ListMark>();
  /** Per list, the array the tracker owns and only appends to: each
   * committed snapshot reads a prefix of it (`prefixView`), so a commit
   * after an append copies nothing (a copy per commit of a daemon's
   * 20,000 messages made handling slow down as history grew, mostly in
   * the garbage collector). */
  private readonly backing = new Map<ListField, Json[]>();

  /** `last`: the committed snapshot to continue from (frozen), if any. */
  constructor(private last: Snapshot | null) {}

  commit(live: Snapshot, textAppended: readonly string[] | null): { snapshot: Snapshot; delta: JsonObject } {
    const prev = this.last;
    const next: Snapshot = { ...live, watch_state: { ...live.watch_state } };
    const set: JsonObject = {};
    const splice: JsonObject = {};
    const grow: JsonObject = {};
    const shared = live.recorded_messages === live.visible_messages;
    for (const f of LIST_FIELDS) {
      if (f === "recorded_messages" && shared) continue;
      const cur = live[f] as Json[];
      const mine = prev?.[f] as Json[] | undefined;
      const mark = this.marks.get(f) ?? null;
      const tail = mine !== undefined && mark?.length === mine.length ? appendedSince(mark, cur) : null;
      if (tail !== null) {
        if (tail.length > 0) splice[f] = [mine!.length, tail];
        let back = this.backing.get(f);
        if (back === undefined || back !== mine) this.backing.set(f, (back = mine!.slice()));
        for (const x of tail) back.push(x);
        prefixView(next, f, back);
      } else {
        const copy = cur.slice();
        this.backing.set(f, copy);
        prefixView(next, f, copy);
        if (mine === undefined) set[f] = copy;
        else {
          let at = 0;
          const n = Math.min(mine.length, copy.length);
          while (at < n && mine[at] === copy[at]) at++;
          if (at !== mine.length || at !== copy.length) splice[f] = [at, copy.slice(at)];
        }
      }
      this.marks.set(f, markOf(cur));
    }
    if (shared) Object.defineProperty(next, "recorded_messages", Object.getOwnPropertyDescriptor(next, "visible_messages")!);
    const p = prev?.total_text;
    const c = live.total_text;
    const added = textAppended?.join("") ?? null;
    if (p === undefined) set.total_text = c;
    else if (p !== c) {
      if (added !== null && c.length === p.length + added.length) grow.total_text = added;
      else if (c.length > p.length && c.startsWith(p)) grow.total_text = c.slice(p.length);
      else set.total_text = c;
    }
    for (const f of SCALAR_FIELDS) {
      const v = live[f];
      if (prev === null ? v !== undefined : prev[f] !== v) set[f] = v ?? null;
    }
    if (prev === null || JSON.stringify(prev.watch_state) !== JSON.stringify(live.watch_state)) set.watch_state = next.watch_state;
    const delta: JsonObject = { set };
    if (Object.keys(splice).length > 0) delta.splice = splice;
    if (Object.keys(grow).length > 0) delta.grow = grow;
    if (shared) delta.shared = true;
    this.last = next;
    return { snapshot: next, delta };
  }
}

/**
 * `snapshot[field]` reads the first `back.length` (as of now) entries of
 * `back`: the array itself while nothing was appended since, else a copy
 * of that prefix. The entries of `back` are never changed, only appended
 * to, so an older snapshot still reads what it committed. A property
 * getter, so spreading, `JSON.stringify` and `snapshotValue` read it like
 * a plain field.
 */
function prefixView(snapshot: Snapshot, field: ListField, back: Json[]): void {
  const n = back.length;
  Object.defineProperty(snapshot, field, {
    get: () => prefixOf(back, n),
    enumerable: true,
    configurable: true,
  });
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
