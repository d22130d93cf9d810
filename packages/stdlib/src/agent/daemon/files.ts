/**
 * The two state files of a daemon and their JSON shapes: the snapshot
 * (`daemon.json`, spec/agents.md §4.2) written by the loop at idle
 * boundaries, and the metadata (`daemon.meta.json`, §4.4) holding the
 * trigger queue. Parsing is strict about types (a corrupt file is an error
 * naming it, never silently treated as empty) and lenient about missing
 * keys (they load with the spec's defaults).
 */
import { isJsonObject, type Json, JsonError, JsonFloat, jsonNumber, type JsonObject, parseJsonKeepingFloats, stringifyJsonKeepingFloats } from "../../core/json";
import { fileError, type FileLabel } from "./durable";

export const SNAPSHOT_FILE = "daemon.json";
export const META_FILE = "daemon.meta.json";
export const DEFAULT_QUEUE_CAPACITY = 1024;

/** RFC 3339 UTC (§1.3). */
export function nowRfc3339(): string {
  return new Date().toISOString();
}

/** The §4.2 snapshot, keys in file order. */
export interface Snapshot {
  _type: "daemon_snapshot";
  saved_at: string;
  daemon_state: string;
  visible_messages: JsonObject[];
  recorded_messages: JsonObject[];
  transcript_summary: string | null;
  transcript_events: Json[];
  total_text: string;
  last_iteration_text: string;
  all_tools_used: string[];
  rejected_tools: string[];
  deferred_user_messages: string[];
  total_iterations: number;
  idle_backoff_ms: number;
  last_run_exit_code: number | null;
  watch_state: { [path: string]: number };
  /** [extension] Why a daemon stopped by itself (`budget_exhausted`,
   * `watchdog`, `error: <text>`); absent while it runs or after
   * `daemon_stop`. */
  stop_reason?: string;
}

export function defaultSnapshot(): Snapshot {
  return {
    _type: "daemon_snapshot",
    saved_at: nowRfc3339(),
    daemon_state: "active",
    visible_messages: [],
    recorded_messages: [],
    transcript_summary: null,
    transcript_events: [],
    total_text: "",
    last_iteration_text: "",
    all_tools_used: [],
    rejected_tools: [],
    deferred_user_messages: [],
    total_iterations: 0,
    idle_backoff_ms: 100,
    last_run_exit_code: null,
    watch_state: {},
  };
}

/** One trigger event in the queue (§4.3 step 4). */
export interface QueuedEvent {
  seq: number;
  enqueued_at: string;
  payload: Json;
}

/** The §4.4 metadata, keys in file order. */
export interface Meta {
  _type: "daemon_meta";
  id: string;
  name: string;
  prompt: string;
  system: string | null;
  session_id: string;
  options: JsonObject;
  event_queue_capacity: number;
  next_event_seq: number;
  pending_events: QueuedEvent[];
  inflight_event: QueuedEvent | null;
}

/** The metadata without the queue: who the daemon is and how it runs. */
export type MetaHeader = Omit<Meta, "next_event_seq" | "pending_events" | "inflight_event">;

/** Pretty-printed, as the reference writes both files. */
export function encodeState(v: Snapshot | Meta): string {
  if (v._type === "daemon_snapshot" && v.recorded_messages === v.visible_messages) return encodeSharedSnapshot(v);
  return stringifyJsonKeepingFloats(v, 2) + "\n";
}

/** A snapshot whose two message lists are one list (the usual case): the
 * list, the bulk of the file, is encoded once and placed twice. The text is
 * exactly `JSON.stringify(v, null, 2)`'s, except that integral floats (a
 * tool call's `2.0`) keep their `.0` (`stringifyJsonKeepingFloats`). */
function encodeSharedSnapshot(v: Snapshot): string {
  const indent = (text: string) => text.replace(/\n/g, "\n  ");
  // Encoded as a member, the list comes out already indented one level.
  const member = stringifyJsonKeepingFloats({ m: v.visible_messages }, 2);
  const messages = member.slice('{\n  "m": '.length, -"\n}".length);
  const fields = Object.entries(v).map(([k, value]) => {
    const text = k === "visible_messages" || k === "recorded_messages" ? messages : indent(stringifyJsonKeepingFloats(value, 2));
    return `  ${JSON.stringify(k)}: ${text}`;
  });
  return `{\n${fields.join(",\n")}\n}\n`;
}

/** A well-formed JSON value of the wrong shape; callers turn it into the
 * parse error naming the file. */
export class Corrupt {
  constructor(readonly detail: string) {}
}

/** JSON text → object, or the §6.4 parse error naming `path`. The detail
 * comes from the stdlib's JSON parser (serde-style line/column texts). */
export function parseObject(text: string, path: string, label: FileLabel): JsonObject {
  let v: unknown;
  try {
    v = parseJsonKeepingFloats(text, { exactInts: true });
  } catch (e) {
    throw fileError(label, "parse", `${path}: ${e instanceof JsonError ? e.message : "invalid JSON"}`);
  }
  if (!isJsonObject(v)) throw fileError(label, "parse", `${path}: expected a JSON object, found ${kindOf(v)}`);
  return v;
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (v instanceof JsonFloat) return "a number";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function field<T extends Json, F>(o: JsonObject, key: string, check: (v: Json) => v is T, what: string, fallback: F): T | F {
  if (!(key in o) || o[key] === null) return fallback;
  const v = o[key]!;
  if (!check(v)) throw new Corrupt(`\`${key}\` must be ${what}, found ${kindOf(v)}`);
  return v;
}

const isString = (v: Json): v is string => typeof v === "string";
const isInt = (v: Json): v is number => typeof v === "number" && Number.isInteger(v);
const isList = (v: Json): v is Json[] => Array.isArray(v);
const isDict = (v: Json): v is JsonObject => isJsonObject(v);
const isStringList = (v: Json): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const isMessageList = (v: Json): v is JsonObject[] => Array.isArray(v) && v.every((x) => isJsonObject(x) && typeof x.role === "string");

export function parseSnapshot(text: string, path: string): Snapshot {
  return snapshotFromObject(parseObject(text, path, "snapshot"), path);
}

/** A parsed snapshot object, checked (errors name `path`). */
export function snapshotFromObject(o: JsonObject, path: string): Snapshot {
  try {
    const d = defaultSnapshot();
    const str = (k: string, fb: string) => field(o, k, isString, "a string", fb);
    const watch = field(o, "watch_state", isDict, "an object", {} as JsonObject);
    const stamps: { [path: string]: number } = Object.fromEntries(
      Object.entries(watch).map(([p, stamp]) => {
        const n = jsonNumber(stamp);
        if (n === undefined) throw new Corrupt(`\`watch_state\` entry '${p}' must be a number, found ${kindOf(stamp)}`);
        return [p, n];
      }),
    );
    return {
      _type: "daemon_snapshot",
      saved_at: str("saved_at", "") || d.saved_at,
      daemon_state: str("daemon_state", "") || "active",
      visible_messages: field(o, "visible_messages", isMessageList, "a list of messages", [] as JsonObject[]),
      recorded_messages: field(o, "recorded_messages", isMessageList, "a list of messages", [] as JsonObject[]),
      transcript_summary: field(o, "transcript_summary", isString, "a string", null),
      transcript_events: field(o, "transcript_events", isList, "a list", [] as Json[]),
      total_text: str("total_text", ""),
      last_iteration_text: str("last_iteration_text", ""),
      all_tools_used: field(o, "all_tools_used", isStringList, "a list of strings", [] as string[]),
      rejected_tools: field(o, "rejected_tools", isStringList, "a list of strings", [] as string[]),
      deferred_user_messages: field(o, "deferred_user_messages", isStringList, "a list of strings", [] as string[]),
      total_iterations: Math.max(0, field(o, "total_iterations", isInt, "an integer", 0)),
      idle_backoff_ms: Math.max(0, field(o, "idle_backoff_ms", isInt, "an integer", 100)),
      last_run_exit_code: field(o, "last_run_exit_code", isInt, "an integer", null),
      watch_state: stamps,
      ...(typeof o.stop_reason === "string" ? { stop_reason: o.stop_reason } : {}),
    };
  } catch (e) {
    if (e instanceof Corrupt) throw fileError("snapshot", "parse", `${path}: ${e.detail}`);
    throw e;
  }
}

/** One queue entry; `after` is the sequence number it must exceed (the
 * queue is in strictly increasing order: a duplicate or a step back means
 * the file was damaged or edited, and delivering from it could repeat or
 * reorder events). */
export function parseEvent(v: Json, where: string, after = 0): QueuedEvent {
  if (!isJsonObject(v)) throw new Corrupt(`${where} must be an object, found ${kindOf(v)}`);
  if (!isInt(v.seq ?? null) || (v.seq as number) < 1) throw new Corrupt(`${where} needs a positive integer \`seq\``);
  const seq = v.seq as number;
  if (seq <= after) throw new Corrupt(`${where} has ${seq === after ? "duplicate" : "out-of-order"} sequence number ${seq} (after ${after})`);
  if (!("payload" in v)) throw new Corrupt(`${where} (seq ${seq}) has no \`payload\``);
  return {
    seq,
    enqueued_at: typeof v.enqueued_at === "string" ? v.enqueued_at : "",
    payload: v.payload ?? null,
  };
}

/** Metadata text → Meta. A JSON value that is not an object is the
 * `daemon_resume: metadata at '<path>' is not a dict` error (§6.4), which
 * the caller raises; here it comes back as `null`. */
export function parseMeta(text: string, path: string): Meta | null {
  let o: JsonObject;
  try {
    o = parseObject(text, path, "meta");
  } catch (e) {
    // Valid JSON of the wrong kind: the caller's dedicated error.
    try {
      JSON.parse(text);
      return null;
    } catch {
      throw e;
    }
  }
  return metaFromObject(o, path);
}

/** A parsed metadata object, checked (errors name `path`). */
export function metaFromObject(o: JsonObject, path: string): Meta {
  try {
    // The in-flight event was the head of the queue when it was handed over.
    const inflightRaw = o.inflight_event ?? null;
    const inflight = inflightRaw === null ? null : parseEvent(inflightRaw, "`inflight_event`");
    let last = inflight?.seq ?? 0;
    const pending = field(o, "pending_events", isList, "a list", [] as Json[]).map((e, i) => {
      const event = parseEvent(e, `\`pending_events[${i}]\``, last);
      last = event.seq;
      return event;
    });
    const capacity = field(o, "event_queue_capacity", isInt, "an integer", DEFAULT_QUEUE_CAPACITY);
    return {
      _type: "daemon_meta",
      id: field(o, "id", isString, "a string", ""),
      name: field(o, "name", isString, "a string", ""),
      prompt: field(o, "prompt", isString, "a string", ""),
      system: field(o, "system", isString, "a string", null),
      session_id: field(o, "session_id", isString, "a string", ""),
      options: field(o, "options", isDict, "an object", {} as JsonObject),
      event_queue_capacity: capacity > 0 ? capacity : DEFAULT_QUEUE_CAPACITY,
      // Never reuse a sequence number, even if the counter was lost.
      next_event_seq: Math.max(field(o, "next_event_seq", isInt, "an integer", 1), 1, last + 1),
      pending_events: pending,
      inflight_event: inflight,
    };
  } catch (e) {
    if (e instanceof Corrupt) throw fileError("meta", "parse", `${path}: ${e.detail}`);
    throw e;
  }
}
