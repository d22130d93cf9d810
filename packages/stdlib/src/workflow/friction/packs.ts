/**
 * Context packs (spec/workflows.md §5.11): recurring friction events
 * grouped into suggestions for a pack of queries, docs, capabilities and
 * output slots an agent gets up front, and the pack manifests themselves.
 *
 * [TS decision] Where the spec gives only the shape: the recurrence key's
 * query is lowercased with runs of whitespace collapsed; a suggestion's
 * id is `context_pack_suggestion_` and 12 hex digits of a SHA-256 of its
 * key; its title is "Context pack: " and the words (3+ letters, not common
 * English) of the first summary that every other summary of the group
 * shares, else the first summary's first words; `recommended_artifact` is
 * `context_pack` when the events carry queries, `tool_recipe` when they
 * name a tool, else `runbook`; confidence is n / (n + 1) for n events,
 * rounded to two places.
 */
import { createHash } from "node:crypto";
import { display, float, HDict, isNumeric, toJsNumber, type Runtime, type Value } from "@harn/vm";
import { fromJson, parseJsonKeepingFloats } from "../../core/json";
import { tomlParse } from "../../formats/toml";
import { fail } from "../artifacts/record";
import { FRICTION_EVENTS, frictionEvent } from "./events";

const str = (v: Value): string | null => (typeof v === "string" && v !== "" ? v : null);
const dicts = (v: Value): HDict[] => (Array.isArray(v) ? v.filter((x): x is HDict => x instanceof HDict) : []);
const meta = (e: HDict): HDict => (e.get("metadata") instanceof HDict ? (e.get("metadata") as HDict) : HDict.empty());

const normQuery = (q: Value): string | null => (typeof q === "string" && q.trim() !== "" ? q.trim().toLowerCase().replace(/\s+/g, " ") : null);

const STOP = new Set("the and for with from that this was were are not but into onto again have has had our out off via per its their them then than when what which while who why how all any can did does yet just".split(" "));

function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z][a-z0-9_-]*/g) ?? []).filter((w) => w.length >= 3 && !STOP.has(w));
}

function title(summaries: string[]): string {
  const [first = "", ...rest] = summaries;
  const shared = [...new Set(words(first))].filter((w) => rest.every((s) => words(s).includes(w)));
  const chosen = shared.length > 0 ? shared : first.split(/\s+/).filter(Boolean).slice(0, 6);
  return `Context pack: ${chosen.join(" ")}`;
}

/** Values of metadata key `key` over the events, each once, in order. */
function collect(events: HDict[], key: string, norm: (v: Value) => string | null = str): string[] {
  const out: string[] = [];
  for (const e of events) {
    const v = meta(e).get(key);
    for (const x of Array.isArray(v) ? v : [v]) {
      const s = norm(x);
      if (s !== null && !out.includes(s)) out.push(s);
    }
  }
  return out;
}

const num = (v: Value): number => (isNumeric(v) ? toJsNumber(v) : 0);
const sum = (events: HDict[], key: string): number => events.reduce((t, e) => t + num(e.get(key)), 0);

function suggestion(rt: Runtime, key: string, events: HDict[], owner: Value): HDict {
  const summaries = events.map((e) => display(e.get("redacted_summary")));
  const queries = collect(events, "query", normQuery);
  const first = events[0]!;
  const artifact = queries.length > 0 ? "context_pack" : str(first.get("tool")) !== null ? "tool_recipe" : "runbook";
  const name = title(summaries);
  const manifest = contextPackManifest(
    HDict.of({
      name,
      owner,
      triggers: [...new Set(events.map((e) => display(e.get("kind"))))],
      included_queries: queries,
      secrets: collect(events, "secret_ref"),
      capabilities: collect(events, "capability"),
      output_slots: collect(events, "output_slot"),
    }),
    "context_pack_suggestions",
  );
  const later = events.slice(1);
  return HDict.of({
    _type: "context_pack_suggestion",
    id: `context_pack_suggestion_${createHash("sha256").update(key).digest("hex").slice(0, 12)}`,
    title: name,
    recommended_artifact: artifact,
    confidence: float(Math.round((events.length / (events.length + 1)) * 100) / 100),
    candidate_manifest: manifest,
    evidence: events.map((e) => HDict.of({ id: e.get("id"), kind: e.get("kind"), source: e.get("source"), created_at: e.get("created_at") })),
    examples: summaries.slice(0, 3),
    estimated_savings: HDict.of({
      occurrences: events.length,
      estimated_time_saved_ms: Math.trunc(sum(later, "estimated_time_ms")),
      estimated_cost_saved_usd: float(sum(later, "estimated_cost_usd")),
    }),
  });
}

/** `context_pack_suggestions(events?, options?)`. */
export function suggestions(rt: Runtime, eventsArg: Value, options: Value): HDict[] {
  const b = "context_pack_suggestions";
  if (eventsArg !== null && !Array.isArray(eventsArg)) throw fail(`${b}: events must be a list, got ${display(eventsArg)}`);
  const events = eventsArg === null ? rt.slot(FRICTION_EVENTS).slice() : eventsArg.map((e) => (e instanceof HDict && e.has("id") && e.has("created_at") ? e : frictionEvent(rt, e)));
  const opts = options instanceof HDict ? options : HDict.empty();
  const min = opts.get("min_occurrences");
  if (min !== null && !isNumeric(min)) throw fail(`${b}: min_occurrences must be an int, got ${display(min)}`);
  const groups = new Map<string, HDict[]>();
  for (const e of events) {
    const key = JSON.stringify([e.get("kind"), e.get("source"), e.get("tool") ?? e.get("provider"), normQuery(meta(e).get("query"))]);
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const threshold = min === null ? 2 : toJsNumber(min);
  return [...groups]
    .filter(([, es]) => es.length >= threshold)
    .sort((x, y) => y[1].length - x[1].length)
    .map(([key, es]) => suggestion(rt, key, es, opts.get("owner")));
}

/** A secret given as a reference (`scheme:path`, e.g. `env:GITHUB_TOKEN`,
 * `secret://ci/deploy`) or a `{ref}`/`{capability}` dict, not its value. */
function isSecretRef(v: Value): boolean {
  if (v instanceof HDict) return str(v.get("ref")) !== null || str(v.get("capability")) !== null;
  return typeof v === "string" && /^[a-z][a-z0-9_.-]*:(\/\/)?[^\s=]+$/.test(v);
}

function strings(b: string, p: HDict, key: string): string[] {
  const v = p.get(key);
  if (v === null) return [];
  if (!Array.isArray(v)) throw fail(`${b}: ${key} must be a list, got ${display(v)}`);
  return v.map((x) => (typeof x === "string" ? x : display(x)));
}

export const slug = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");

/** `context_pack_manifest(payload)`. */
export function contextPackManifest(p: Value, b = "context_pack_manifest"): HDict {
  if (!(p instanceof HDict)) throw fail(`${b}: missing payload`);
  const name = str(p.get("name"));
  if (name === null) throw fail(`${b}: missing name`);
  const secrets = p.get("secrets");
  if (secrets !== null && !Array.isArray(secrets)) throw fail(`${b}: secrets must be a list, got ${display(secrets)}`);
  if ((secrets ?? []).some((s) => !isSecretRef(s))) throw fail(`${b}: secrets must be capability references, not raw secret values`);
  const refresh = p.get("refresh_policy");
  const metadata = p.get("metadata");
  return HDict.of({
    id: str(p.get("id")) ?? slug(name),
    name,
    description: str(p.get("description")),
    owner: str(p.get("owner")),
    triggers: strings(b, p, "triggers"),
    included_queries: strings(b, p, "included_queries"),
    included_docs: strings(b, p, "included_docs"),
    secrets: (secrets ?? []).slice(),
    capabilities: strings(b, p, "capabilities"),
    output_slots: strings(b, p, "output_slots"),
    refresh_policy: refresh instanceof HDict ? (refresh.get("mode") === null ? refresh.with("mode", "on_demand") : refresh) : HDict.of({ mode: "on_demand" }),
    privacy_notes: strings(b, p, "privacy_notes"),
    metadata: metadata instanceof HDict ? metadata : HDict.empty(),
  });
}

/** `context_pack_manifest_parse(src)`: JSON (text starting with `{`) or TOML. */
export function parseContextPack(src: Value): HDict {
  const b = "context_pack_manifest_parse";
  if (typeof src !== "string") throw fail(`${b}: source must be a string, got ${display(src)}`);
  let v: Value;
  try {
    v = src.trimStart().startsWith("{") ? fromJson(parseJsonKeepingFloats(src)) : tomlParse(src);
  } catch (e) {
    const why = e instanceof Error ? e.message : display((e as { value?: Value }).value ?? String(e));
    throw fail(`${b}: ${why}`);
  }
  return contextPackManifest(v, b);
}

/** `friction_eval_fixture(fixture)`. */
export function evalFixture(rt: Runtime, f: Value): HDict {
  const b = "friction_eval_fixture";
  if (!(f instanceof HDict)) throw fail(`${b}: missing fixture`);
  const events = f.get("events");
  if (!Array.isArray(events)) throw fail(`${b}: events must be a list`);
  const found = suggestions(rt, events.map((e) => frictionEvent(rt, e)), f.get("options"));
  const failures: string[] = [];
  for (const x of dicts(f.get("expected_suggestions"))) {
    const min = x.get("min_suggestions") === null ? 1 : num(x.get("min_suggestions"));
    const want: [string, (s: HDict) => boolean][] = [];
    const artifact = str(x.get("recommended_artifact"));
    if (artifact !== null) want.push([`recommended_artifact ${artifact}`, (s) => s.get("recommended_artifact") === artifact]);
    const inTitle = str(x.get("title_contains"));
    if (inTitle !== null) want.push([`a title containing ${JSON.stringify(inTitle)}`, (s) => display(s.get("title")).toLowerCase().includes(inTitle.toLowerCase())]);
    const listed = (field: string, key: string, label: string) => {
      const v = str(x.get(key));
      if (v !== null) want.push([`${label} ${v}`, (s) => strings(b, s.get("candidate_manifest") as HDict, field).includes(v)]);
    };
    listed("capabilities", "required_capability", "capability");
    listed("output_slots", "required_output_slot", "output slot");
    const n = found.filter((s) => want.every(([, ok]) => ok(s))).length;
    if (n < min) failures.push(`expected at least ${min} suggestion${min === 1 ? "" : "s"}${want.length > 0 ? " with " + want.map(([l]) => l).join(", ") : ""}, found ${n}`);
  }
  return HDict.of({ pass: failures.length === 0, failures, event_count: events.length, suggestion_count: found.length, suggestions: found });
}
