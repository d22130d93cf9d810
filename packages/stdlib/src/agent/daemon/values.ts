/**
 * Snapshots as script values (`daemon_snapshot`). A long-lived daemon's
 * transcript is long and a script may poll its snapshot: each message
 * object is converted once (messages are never edited in place, see
 * delta.ts) and the dict is rebuilt only for a new commit.
 */
import { HDict, type Value } from "@harn/vm";
import type { Snapshot } from "./files";
import { fromJson, type Json, type JsonObject } from "../../core/json";

const MESSAGE_LISTS = new Set(["visible_messages", "recorded_messages"]);

/** Message object → its script value, for the life of one daemon. */
export type MessageValues = WeakMap<object, Value>;

export function snapshotValue(s: Snapshot, cache: MessageValues): HDict {
  const m = new Map<string, Value>();
  let shared: Value[] | null = null;
  for (const [k, v] of Object.entries(s as unknown as JsonObject)) {
    if (MESSAGE_LISTS.has(k) && Array.isArray(v)) {
      if (shared !== null && s.recorded_messages === s.visible_messages) {
        m.set(k, shared);
        continue;
      }
      const list = v.map((x: Json) => {
        if (x === null || typeof x !== "object") return fromJson(x);
        let value = cache.get(x);
        if (value === undefined) cache.set(x, (value = fromJson(x)));
        return value;
      });
      shared = list;
      m.set(k, list);
    } else m.set(k, fromJson(v));
  }
  return new HDict(m);
}
