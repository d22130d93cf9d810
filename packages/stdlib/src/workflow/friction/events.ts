/**
 * Friction events (spec/workflows.md §5.11): what slowed an agent or a
 * person down, normalised and redacted before it is stored in memory or
 * appended to a JSONL log.
 */
import { appendFileSync } from "node:fs";
import nodePath from "node:path";
import { display, float, HDict, isNumeric, RuntimeSlot, toJsNumber, type Runtime, type Value } from "@harn/vm";
import { stringifyJsonKeepingFloats, toJson } from "../../core/json";
import { osErrorText } from "../../core/oserror";
import { resolvePath } from "../../core/paths";
import { rfc3339 } from "../../core/wait";
import { fail, newId } from "../artifacts/record";
import { makeDirsSync } from "../../core/make-dirs";

/** Events recorded in this runtime, in order. */
export const FRICTION_EVENTS = new RuntimeSlot("workflow.frictionEvents", () => [] as HDict[]);

const SECRET_ASSIGNMENTS = ["token=", "password=", "api_key=", "apikey="];
/** Well-known key prefixes, at the start of a word or after punctuation. */
const KEY_PREFIX = /(^|[^A-Za-z0-9])(sk-[A-Za-z0-9]|ghp_|xoxb-|AKIA[0-9A-Z])/;
const LONG_TOKEN = /[A-Za-z0-9_-]{49,}/;
const SECRET_KEY_PARTS = ["secret", "token", "password", "api_key", "apikey"];
export const REDACTED = "[redacted]";

/** Whether one word of text looks like (or assigns) a secret. */
export function looksSecret(word: string): boolean {
  const lower = word.toLowerCase();
  return SECRET_ASSIGNMENTS.some((a) => lower.includes(a)) || KEY_PREFIX.test(word) || LONG_TOKEN.test(word);
}

/** `text` with each whitespace-separated word that looks secret replaced. */
export function redactText(text: string): string {
  return text.replace(/\S+/g, (w) => (looksSecret(w) ? REDACTED : w));
}

/** A metadata key whose value is a secret. Keys ending in `_ref`
 * (`secret_ref`) hold references to secrets, which context packs list. */
function secretKey(key: string): boolean {
  const k = key.toLowerCase();
  return k === "authorization" || (!k.endsWith("_ref") && SECRET_KEY_PARTS.some((p) => k.includes(p)));
}

/** Metadata with secret-named keys and secret-looking words redacted, nested dicts and lists included. */
function redactValue(v: Value): Value {
  if (typeof v === "string") return redactText(v);
  if (Array.isArray(v)) return v.map(redactValue);
  if (v instanceof HDict) return HDict.from(v.keys().map((k) => [k, secretKey(k) ? REDACTED : redactValue(v.get(k))]));
  return v;
}

const optStr = (v: Value): string | null => (typeof v === "string" && v !== "" ? v : null);

/** `friction_event(payload)`: the normalised, redacted event. */
export function frictionEvent(rt: Runtime, p: Value): HDict {
  if (!(p instanceof HDict)) throw fail("friction_event: missing payload");
  const summary = optStr(p.get("redacted_summary"));
  if (summary === null) throw fail("friction_event: missing redacted_summary");
  const time = p.get("estimated_time_ms");
  const cost = p.get("estimated_cost_usd");
  const hints = p.get("recurrence_hints");
  const metadata = p.get("metadata");
  return HDict.of({
    id: optStr(p.get("id")) ?? newId(rt, "friction"),
    kind: optStr(p.get("kind")) ?? "other",
    source: optStr(p.get("source")),
    actor: optStr(p.get("actor")),
    tool: optStr(p.get("tool")),
    provider: optStr(p.get("provider")),
    redacted_summary: redactText(summary),
    estimated_time_ms: isNumeric(time) ? Math.trunc(toJsNumber(time)) : null,
    estimated_cost_usd: isNumeric(cost) ? float(toJsNumber(cost)) : null,
    recurrence_hints: Array.isArray(hints) ? hints.map((h) => (typeof h === "string" ? redactText(h) : display(h))) : [],
    metadata: metadata instanceof HDict ? (redactValue(metadata) as HDict) : HDict.empty(),
    created_at: optStr(p.get("created_at")) ?? rfc3339(rt),
  });
}

/** `friction_record(event, options?)`. [TS decision] Events written to a
 * JSONL log are kept in memory as well, so `friction_events()` and
 * `context_pack_suggestions()` see every recorded event. */
export function frictionRecord(rt: Runtime, payload: Value, options: Value): HDict {
  const event = frictionEvent(rt, payload);
  const opts = options instanceof HDict ? options : HDict.empty();
  if (opts.get("enabled") === false) return HDict.of({ recorded: false, sink: "disabled", event });
  rt.slot(FRICTION_EVENTS).push(event);
  const path = optStr(opts.get("log_path")) ?? optStr(opts.get("path")) ?? optStr(rt.env.HARN_FRICTION_LOG ?? null);
  if (path === null) return HDict.of({ recorded: true, sink: "memory", event });
  const full = resolvePath(rt, path);
  try {
    makeDirsSync(nodePath.dirname(full));
    appendFileSync(full, stringifyJsonKeepingFloats(toJson(event)) + "\n");
  } catch (e) {
    throw fail(`friction_record: failed to write ${path}: ${osErrorText(e)}`);
  }
  return HDict.of({ recorded: true, sink: "jsonl", path, event });
}
