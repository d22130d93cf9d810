/**
 * A daemon's configuration between script values and stored data: the
 * loop options (§4.3), what the metadata keeps of them, the tools a
 * resumed daemon finds again by name, and trigger payloads.
 */
import { join } from "node:path";
import { display, HarnError, HDict, HFloat, HSet, isCallable, isInt, typeOf, type Value } from "@harn/vm";
import { canonicalExecutor, SHORT_CIRCUIT_TOOLS } from "../tools/spec";
import { readLoopSettings } from "../loop/options";
import { SNAPSHOT_FILE } from "./files";
import { dataOnly, floatToJson, type Json, type JsonObject } from "../../core/json";

/** Config keys that are not agent-loop options (§4.3; `on_existing`,
 * `store` and `lease_ms` are extensions). */
const NOT_LOOP_OPTIONS = ["name", "prompt", "task", "system", "options", "event_queue_capacity", "queue_capacity", "state_dir", "resume_path", "on_existing", "store", "lease_ms"];

/** The loop options: the config (or its `options` dict) minus the daemon's
 * own keys, then `extra` (a resume's overrides), with daemon mode forced
 * on. The snapshot comes from the daemon's store, not from a file (`root`
 * null: a store without one). */
export function loopOptions(source: HDict, extra: HDict | null, sessionId: string, root: string | null): HDict {
  const m = new Map(source.map);
  for (const k of NOT_LOOP_OPTIONS) m.delete(k);
  if (extra) for (const k of extra.keys()) if (!NOT_LOOP_OPTIONS.includes(k)) m.set(k, extra.get(k));
  m.set("daemon", true);
  m.set("persistent", false);
  m.set("session_id", sessionId);
  if (root === null) m.delete("persist_path");
  else m.set("persist_path", join(root, SNAPSHOT_FILE));
  return new HDict(m);
}

/** The loop's `max_iterations` (counted over the daemon's life, §4.1). */
export function maxIterationsOf(options: HDict): number {
  try {
    return readLoopSettings(options).maxIterations;
  } catch {
    return 0; // the loop reports the bad option when it starts
  }
}

/** Options as stored in the metadata: data only. Closures (tool handlers,
 * callbacks) cannot be stored; a tool keeps its name and definition and a
 * resume finds its handler again (`restoreTools`). */
export function storedOptions(options: HDict): JsonObject {
  return (dataOnly(options) ?? {}) as JsonObject;
}

/**
 * The `tools` option of a resumed daemon: every stored tool that ran a
 * script handler (its handler could not be stored) gets the handler of the
 * tool of that name the resuming script declared (`tool name(…) {…}`).
 * `missing` lists the names found nowhere.
 */
export function restoreTools(tools: Value, declared: ReadonlyMap<string, Value>): { tools: Value; missing: string[] } {
  const missing: string[] = [];
  const entry = (t: HDict): HDict => {
    const name = t.get("name");
    if (typeof name !== "string" || t.get("handler") !== null || SHORT_CIRCUIT_TOOLS.has(name)) return t;
    const executor = canonicalExecutor(t.get("executor"));
    if (executor !== null && executor !== "harn") return t;
    const found = declaredEntry(declared.get(name), name);
    if (found === null) {
      if (!missing.includes(name)) missing.push(name);
      return t;
    }
    return found;
  };
  const walk = (v: Value): Value => {
    if (v instanceof HDict && v.get("_type") === "tool_registry") return v.with("tools", walk(v.get("tools")));
    if (v instanceof HDict) return entry(v);
    if (Array.isArray(v)) return v.map(walk);
    return v;
  };
  return { tools: walk(tools), missing };
}

/** The tool dict named `name` in what a declaration bound (a one-tool
 * registry), or null. */
function declaredEntry(v: Value | undefined, name: string): HDict | null {
  if (!(v instanceof HDict)) return null;
  const list = v.get("tools");
  if (!Array.isArray(list)) return null;
  for (const t of list) if (t instanceof HDict && t.get("name") === name && t.get("handler") !== null) return t;
  return null;
}

/** A trigger payload as stored and delivered. Exact: a 64-bit int stays
 * that int (a `bigint` beyond 2^53). A function has no JSON form, so it is
 * an error naming where it sits, not its display text. Sets become lists;
 * other non-JSON values (ranges, durations, …) their display text, as in
 * any agent-layer JSON. */
export function payloadJson(v: Value, where = "payload"): Json {
  if (v === null || typeof v === "string" || typeof v === "boolean" || typeof v === "number") return v;
  if (typeof v === "bigint") return v as unknown as Json;
  if (v instanceof HFloat) return floatToJson(v);
  if (Array.isArray(v)) return v.map((x, i) => payloadJson(x, `${where}[${i}]`));
  if (v instanceof HSet) return v.items.map((x, i) => payloadJson(x, `${where}[${i}]`));
  if (v instanceof HDict) {
    const o: JsonObject = {};
    for (const k of v.keys()) o[k] = payloadJson(v.get(k), /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${where}.${k}` : `${where}[${JSON.stringify(k)}]`);
    return o;
  }
  if (isCallable(v)) {
    throw HarnError.runtime(`daemon_trigger: the event payload must be data, but ${where} is a ${typeOf(v)}; pass its result or a name instead`);
  }
  return isInt(v) ? Number(v) : display(v);
}
