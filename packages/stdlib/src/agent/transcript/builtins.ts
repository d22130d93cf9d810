/**
 * The transcript builtins (spec/agents-surface.md §1.3–§1.8): constructors
 * and accessors, `transcript_stats`, message helpers, lifecycle changes,
 * rendering, export/import and assets. Compaction is in compact.ts. All
 * argument errors are thrown strings.
 */
import { display, HarnError, HDict, type Runtime, type Value } from "@harn/vm";
import { JsonError, parseJson } from "../../core/json";
import { toJson as prettyJson } from "../../template/json";
import {
  assetsOf,
  buildTranscript,
  eventsOf,
  isTranscript,
  messagesOf,
  newTranscriptId,
  partsOf,
  runtimeEvent,
  summaryOf,
} from "./values";
import { uuidV7 } from "../../core/encoding";
import { builtinModule } from "../../registry/define";

function fail(message: string): HarnError {
  return HarnError.thrown(message);
}

export function transcriptArg(builtin: string, v: Value | undefined): HDict {
  if (!isTranscript(v)) throw fail(`${builtin}: argument must be a transcript`);
  return v;
}

function listOrThrow(t: HDict, key: "messages" | "assets"): Value[] {
  if (!t.has(key) || t.get(key) === null) return [];
  const v = t.get(key);
  if (!Array.isArray(v)) throw fail(`transcript.${key} must be a list`);
  return v;
}

/** §1.4: counts over the messages and events; never throws. */
function stats(t: Value): HDict {
  const c = {
    message_count: 0,
    user_message_count: 0,
    assistant_message_count: 0,
    user_facing_message_count: 0,
    tool_result_message_count: 0,
    tool_call_count: 0,
    visible_event_count: 0,
  };
  if (t instanceof HDict) {
    const messages = t.get("messages");
    for (const m of Array.isArray(messages) ? messages : []) {
      if (!(m instanceof HDict)) continue;
      c.message_count++;
      const role = m.get("role");
      if (role === "assistant") {
        c.assistant_message_count++;
        c.user_facing_message_count++;
      } else if (role === "user") {
        c.user_message_count++;
        c.user_facing_message_count++;
      } else if (role === "tool" || role === "tool_result") c.tool_result_message_count++;
      const calls = m.get("tool_calls");
      if (Array.isArray(calls)) c.tool_call_count += calls.length;
    }
    for (const e of eventsOf(t)) if (e instanceof HDict && e.get("visibility") === "visible") c.visible_event_count++;
  }
  return HDict.of(c);
}

/** `add_*` on a list or a transcript (§1.5). */
function addMessage(rt: Runtime, builtin: string, x: Value | undefined, message: HDict, keepExtras: boolean): Value {
  if (Array.isArray(x)) return [...x, message];
  if (isTranscript(x)) {
    const p = partsOf(x, keepExtras);
    return buildTranscript(rt, { ...p, messages: [...p.messages, message] });
  }
  throw fail(`${builtin}: first argument must be a message list or transcript`);
}

function roleMessage(role: Value, content: Value | undefined): HDict {
  return HDict.of({ role: typeof role === "string" ? role : display(role), content: content === undefined ? "" : content });
}

/** §1.6: a lifecycle change keeps everything and adds one event. */
function lifecycle(rt: Runtime, t: HDict, kind: string, text: string, state: string, change?: (p: ReturnType<typeof partsOf>) => void): HDict {
  const p = partsOf(t, true);
  change?.(p);
  return buildTranscript(rt, { ...p, extras: [...(p.extras ?? []), runtimeEvent(rt, kind, "system", "internal", text)], state });
}

function eventLines(t: HDict, visibleOnly: boolean): string {
  const lines: string[] = [];
  for (const e of eventsOf(t)) {
    if (!(e instanceof HDict)) continue;
    const vis = display(e.get("visibility"));
    const text = e.get("text") === null ? "" : display(e.get("text"));
    const role = display(e.get("role"));
    if (visibleOnly) {
      if (vis === "public" && text !== "") lines.push(`${role}: ${text}`);
    } else lines.push(`[${vis}] ${role}: ${text}`);
  }
  return lines.join("\n");
}

/** §1.8: a copy with `_type`, and `id`, `kind`, `visibility` filled. */
export function normaliseAsset(rt: Runtime, v: Value): HDict {
  let d = v instanceof HDict ? v : HDict.of({ storage: HDict.of({ path: display(v) }) });
  d = d.with("_type", "transcript_asset");
  if (d.get("id") === null) d = d.with("id", uuidV7(rt));
  if (d.get("kind") === null) d = d.with("kind", "blob");
  if (d.get("visibility") === null) d = d.with("visibility", "internal");
  return d;
}

export const TRANSCRIPT_BUILTINS = builtinModule("agent/transcript/builtins", (define) => {
  const def = (name: string, fn: (args: Value[], rt: Runtime) => Value) => define(name, (args, ctx) => fn(args, ctx.runtime));

  def("transcript", (args, rt) => buildTranscript(rt, { id: newTranscriptId(rt), messages: [], metadata: args[0] ?? undefined }));
  def("transcript_from_messages", (args, rt) => {
    const x = args[0];
    if (Array.isArray(x)) return buildTranscript(rt, { id: newTranscriptId(rt), messages: x });
    if (isTranscript(x)) return buildTranscript(rt, { id: newTranscriptId(rt), messages: messagesOf(x) });
    throw fail("transcript_from_messages: argument must be a message list or transcript");
  });
  def("transcript_messages", (args) => listOrThrow(transcriptArg("transcript_messages", args[0]), "messages").slice());
  def("transcript_events", (args) => eventsOf(transcriptArg("transcript_events", args[0])).slice());
  def("transcript_assets", (args) => listOrThrow(transcriptArg("transcript_assets", args[0]), "assets").slice());
  def("transcript_summary", (args) => summaryOf(transcriptArg("transcript_summary", args[0])));
  def("transcript_id", (args) => {
    const id = transcriptArg("transcript_id", args[0]).get("id");
    return typeof id === "string" ? id : "";
  });
  def("transcript_events_by_kind", (args) => {
    const t = args[0];
    const kind = display(args[1] ?? null);
    if (!(t instanceof HDict)) return [];
    return eventsOf(t).filter((e) => e instanceof HDict && e.get("kind") === kind);
  });
  def("transcript_stats", (args) => stats(args[0] ?? null));

  def("conversation", () => []);
  def("add_message", (args, rt) => addMessage(rt, "add_message", args[0], roleMessage(args[1] ?? null, args[2]), true));
  for (const role of ["user", "assistant", "system"]) {
    def(`add_${role}`, (args, rt) => addMessage(rt, `add_${role}`, args[0], roleMessage(role, args[1]), false));
  }
  def("add_tool_result", (args, rt) => {
    const message = HDict.of({ role: "tool_result", tool_use_id: display(args[1] ?? null), content: display(args[2] ?? null) });
    return addMessage(rt, "add_tool_result", args[0], message, true);
  });

  def("transcript_archive", (args, rt) => lifecycle(rt, transcriptArg("transcript_archive", args[0]), "transcript_archive", "transcript archived", "archived"));
  def("transcript_resume", (args, rt) => lifecycle(rt, transcriptArg("transcript_resume", args[0]), "transcript_resume", "transcript resumed", "active"));
  def("transcript_abandon", (args, rt) => lifecycle(rt, transcriptArg("transcript_abandon", args[0]), "transcript_abandon", "transcript abandoned", "abandoned"));
  def("transcript_fork", (args, rt) => {
    const t = transcriptArg("transcript_fork", args[0]);
    const o = args[1] instanceof HDict ? args[1] : HDict.empty();
    return lifecycle(rt, t, "transcript_fork", "transcript forked", "forked", (p) => {
      if (o.get("retain_messages") === false) p.messages = [];
      if (o.get("retain_summary") === false) p.summary = null;
    });
  });
  def("transcript_reset", (args, rt) => {
    const o = args[0] instanceof HDict ? args[0] : HDict.empty();
    return buildTranscript(rt, {
      id: newTranscriptId(rt),
      messages: [],
      metadata: o.has("metadata") ? o.get("metadata") : undefined,
      extras: [runtimeEvent(rt, "transcript_reset", "system", "internal", "transcript reset")],
      state: "active",
    });
  });

  def("transcript_render_visible", (args) => eventLines(transcriptArg("transcript_render_visible", args[0]), true));
  def("transcript_render_full", (args) => eventLines(transcriptArg("transcript_render_full", args[0]), false));
  def("transcript_export", (args) => prettyJson(transcriptArg("transcript_export", args[0]), true));
  def("transcript_import", (args) => {
    const text = args[0] === undefined || args[0] === null ? "" : display(args[0]);
    try {
      return parseJson(text);
    } catch (e) {
      if (e instanceof JsonError) throw HarnError.runtime(`transcript_import: ${e.message}`);
      throw e;
    }
  });
  def("transcript_add_asset", (args, rt) => {
    const t = transcriptArg("transcript_add_asset", args[0]);
    if (args.length < 2) throw fail("transcript_add_asset: missing asset");
    const asset = normaliseAsset(rt, args[1]!);
    const id = asset.get("id");
    const assets = assetsOf(t).filter((a) => !(a instanceof HDict && a.get("id") === id));
    return buildTranscript(rt, { ...partsOf(t, true), assets: [...assets, asset] });
  });
});
