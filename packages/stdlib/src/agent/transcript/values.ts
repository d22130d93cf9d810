/**
 * Transcripts as values (spec/agents-surface.md §1.1–§1.2): the one place
 * that builds a transcript dict and its events, used by `llm_call`,
 * `agent_loop`, sessions, sub-agents, compaction and the `transcript_*`
 * builtins alike, so every producer derives events the same way.
 *
 * A transcript is a plain dict. Every construction recomputes `events` as
 * one event per message, in message order, followed by the "extra" events
 * the caller keeps (runtime events such as `provider_payload`, lifecycle
 * changes, permission decisions).
 */
import { display, HDict, type Runtime, type Value } from "@harn/vm";
import { uuidV7 } from "../../core/encoding";

/** A dict whose `_type`, display-converted, is `"transcript"`. */
export function isTranscript(v: Value | undefined): v is HDict {
  return v instanceof HDict && v.has("_type") && display(v.get("_type")) === "transcript";
}

function defaultVisibility(role: string): string {
  return role === "tool_result" ? "internal" : "public";
}

function normaliseItem(item: Value, visibility: string): HDict {
  if (item instanceof HDict) {
    let d = item;
    if (d.get("type") === null) d = d.with("type", "text");
    if (d.get("visibility") === null) d = d.with("visibility", visibility);
    return d;
  }
  return HDict.of({ text: display(item), type: "text", visibility });
}

/** The normalised content blocks of a message content. */
export function contentBlocks(content: Value, visibility: string): HDict[] {
  if (Array.isArray(content)) return content.map((i) => normaliseItem(i, visibility));
  if (content instanceof HDict) return [normaliseItem(content, visibility)];
  if (content === null) return [];
  return [HDict.of({ type: "text", text: display(content), visibility })];
}

function str(v: Value): string | null {
  return v === null ? null : display(v);
}

function label(b: HDict, fallback: string): string {
  for (const k of ["name", "title", "path", "asset_id"]) {
    const v = str(b.get(k));
    if (v !== null) return v;
  }
  return fallback;
}

function blockText(b: HDict): string {
  const type = display(b.get("type"));
  switch (type) {
    case "text":
    case "output_text":
      return str(b.get("text")) ?? str(b.get("content")) ?? "";
    case "reasoning":
      return "";
    case "tool_call":
    case "tool_result":
      return `<${type}:${str(b.get("name")) ?? "tool"}>`;
    case "image":
    case "input_image":
      return `<image:${label(b, "image")}>`;
    case "file":
    case "document":
    case "attachment":
      return `<${type}:${label(b, type)}>`;
    default:
      return `<${type}>`;
  }
}

/** The event of one message (§1.2). */
export function messageEvent(rt: Runtime, m: Value): HDict {
  const d = m instanceof HDict ? m : HDict.empty();
  const role = d.get("role") === null ? "user" : display(d.get("role"));
  const vis = defaultVisibility(role);
  const blocks = contentBlocks(d.get("content"), vis);
  const visOf = (b: HDict) => b.get("visibility");
  const visibility = blocks.some((b) => visOf(b) === "public") ? "public" : blocks.some((b) => visOf(b) === "internal") ? "internal" : vis;
  const text = blocks
    .map(blockText)
    .filter((t) => t !== "")
    .join(" ");
  return HDict.of({ id: uuidV7(rt), kind: role === "tool_result" ? "tool_result" : "message", role, visibility, text, blocks });
}

/** An event built by the runtime (lifecycle, permissions, payloads). */
export function runtimeEvent(rt: Runtime, kind: string, role: string, visibility: string, text: string, metadata?: Value): HDict {
  const m = new Map<string, Value>([
    ["id", uuidV7(rt)],
    ["kind", kind],
    ["role", role],
    ["visibility", visibility],
    ["text", text],
    ["blocks", [HDict.of({ type: "text", text, visibility })]],
  ]);
  if (metadata !== undefined) m.set("metadata", metadata);
  return new HDict(m);
}

/** What a transcript is built from. `undefined` leaves a key out. */
export interface TranscriptParts {
  id: string;
  messages: readonly Value[];
  /** Events after the message events, in order. */
  extras?: readonly Value[];
  assets?: readonly Value[];
  summary?: string | null;
  metadata?: Value;
  state?: string | null;
  /** Further top-level keys (session snapshots, `archived_messages`). */
  more?: Readonly<Record<string, Value>>;
}

export function buildTranscript(rt: Runtime, p: TranscriptParts): HDict {
  const m = new Map<string, Value>([
    ["_type", "transcript"],
    ["version", 2],
    ["id", p.id],
    ["messages", p.messages.slice()],
    ["events", [...p.messages.map((x) => messageEvent(rt, x)), ...(p.extras ?? [])]],
    ["assets", (p.assets ?? []).slice()],
  ]);
  if (p.summary !== undefined && p.summary !== null) m.set("summary", p.summary);
  if (p.metadata !== undefined && p.metadata !== null) m.set("metadata", p.metadata);
  if (p.state !== undefined && p.state !== null) m.set("state", p.state);
  for (const [k, v] of Object.entries(p.more ?? {})) m.set(k, v);
  return new HDict(m);
}

/** A fresh transcript id (ids are opaque). */
export function newTranscriptId(rt: Runtime): string {
  return uuidV7(rt);
}

/** `t.messages` as a list (absent or not a list: empty). */
export function messagesOf(t: HDict): Value[] {
  const m = t.get("messages");
  return Array.isArray(m) ? m : [];
}

export function assetsOf(t: HDict): Value[] {
  const a = t.get("assets");
  return Array.isArray(a) ? a : [];
}

export function eventsOf(t: HDict): Value[] {
  const e = t.get("events");
  return Array.isArray(e) ? e : [];
}

export function eventKind(e: Value): string | null {
  if (!(e instanceof HDict)) return null;
  const k = e.get("kind");
  return typeof k === "string" ? k : null;
}

/** The old events that survive a rebuild ("keeps extras"): every event
 * whose kind is neither `message` nor `tool_result`. */
export function keptExtras(t: HDict): Value[] {
  return eventsOf(t).filter((e) => {
    const k = eventKind(e);
    return k !== "message" && k !== "tool_result";
  });
}

export function summaryOf(t: HDict): string | null {
  const s = t.get("summary");
  return typeof s === "string" ? s : null;
}

function stateOf(t: HDict): string | null {
  const s = t.get("state");
  return typeof s === "string" ? s : null;
}

/** The parts of `t` (id, summary, metadata, assets, state) for a rebuild
 * with new messages; extras kept or dropped as the builtin says. */
export function partsOf(t: HDict, keepExtras: boolean): TranscriptParts {
  const id = t.get("id");
  return {
    id: typeof id === "string" ? id : display(id),
    messages: messagesOf(t),
    extras: keepExtras ? keptExtras(t) : [],
    assets: assetsOf(t),
    summary: summaryOf(t),
    metadata: t.has("metadata") ? t.get("metadata") : undefined,
    state: stateOf(t),
  };
}

/** The event of a new summary merged into an older one (§1.9): the new
 * one when there was none, the old one when they are equal after
 * trimming, else both with a blank line between. */
export function mergeSummary(old: string | null, next: string): string {
  if (old === null || old === "") return next;
  if (old.trim() === next.trim()) return old;
  return `${old}\n\n${next}`;
}
