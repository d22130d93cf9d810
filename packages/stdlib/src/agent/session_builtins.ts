/**
 * `agent_session_*` (spec/agents-surface.md §2.2–§2.3) over the per-runtime
 * session store (sessions.ts): a stored transcript per session, lineage
 * (parent, children, branch point), forks, trims and compaction. Every
 * error is a thrown string.
 *
 * Extension kept from the TS runtime: `agent_session_close` also runs the
 * session-end cleanup of agents.md §1.15 (its in-flight handles are
 * cancelled, its queued feedback dropped, its subscribers forgotten), and
 * a fork carries a yielded loop (`agent_resume` under the new id).
 */
import { display, HarnError, HDict, isInt, isPromise, type CallContext, type Runtime, type Value } from "@harn/vm";
import { uuidV7 } from "../core/encoding";
import { longRunState } from "../longrun/index";
import { compactMessages, DEFAULT_KEEP_LAST, estimateTokens, isCallback, messageList, strategyOf, type Callback } from "./loop/compaction";
import { agentSessions, type StoredSession } from "./sessions";
import { builtinModule } from "../registry/define";
import { microcompact } from "./transcript/microcompact";
import { buildTranscript, eventKind, messagesOf, partsOf } from "./transcript/values";
import { fromJson, type Json } from "../core/json";

function fail(message: string): HarnError {
  return HarnError.thrown(message);
}

function idArg(builtin: string, v: Value | undefined, name = "id"): string {
  if (typeof v !== "string") throw fail(`${builtin}: \`${name}\` must be a string`);
  return v;
}

/** An optional id: nil or absent mints a fresh one. */
function idOrMint(rt: Runtime, builtin: string, v: Value | undefined, name: string): string {
  if (v === undefined || v === null) return `agent_session_${uuidV7(rt)}`;
  if (typeof v !== "string") throw fail(`${builtin}: \`${name}\` must be a string or nil`);
  return v;
}

function stored(rt: Runtime, builtin: string, id: string): StoredSession {
  const s = agentSessions(rt).get(id);
  if (!s) throw fail(`${builtin}: unknown session id '${id}'`);
  return s;
}

function intArg(builtin: string, v: Value | undefined, name: string): number {
  if (v === undefined || !isInt(v)) throw fail(`${builtin}: \`${name}\` must be an int`);
  const n = Number(v);
  if (n < 0) throw fail(`${builtin}: \`${name}\` must be >= 0`);
  return n;
}

/** Keep the given messages; events recomputed, runtime events dropped. */
function withMessages(rt: Runtime, s: StoredSession, messages: readonly Value[]): void {
  s.transcript = buildTranscript(rt, { ...partsOf(s.transcript, false), messages });
}

function open(args: Value[], ctx: CallContext): Value {
  const id = idOrMint(ctx.runtime, "agent_session_open", args[0], "id");
  agentSessions(ctx.runtime).open(id);
  return id;
}

function inject(args: Value[], ctx: CallContext): Value {
  const b = "agent_session_inject";
  const rt = ctx.runtime;
  const id = idArg(b, args[0]);
  const s = stored(rt, b, id);
  if (args.length < 2) throw fail(`${b}: \`message\` required`);
  const m = args[1]!;
  if (!(m instanceof HDict)) throw fail(`${b}: message must be a dict`);
  if (typeof m.get("role") !== "string") throw fail(`${b}: message must have a string \`role\` (user|assistant|tool_result|system)`);
  withMessages(rt, s, [...messagesOf(s.transcript), m]);
  return null;
}

/**
 * Copy `src` into `dst` (created or opened), link the lineage, and record
 * `parent_session_id` in the copy's metadata (agents-surface.md §2.3).
 */
export function forkSession(rt: Runtime, src: string, dst: string): StoredSession {
  const sessions = agentSessions(rt);
  const source = sessions.get(src)!;
  const d = sessions.open(dst);
  const p = partsOf(source.transcript, true);
  const meta = p.metadata instanceof HDict ? p.metadata.with("parent_session_id", src) : HDict.of({ parent_session_id: src });
  d.transcript = buildTranscript(rt, { ...p, id: dst, metadata: meta });
  d.paused = source.paused === null ? null : { ...structuredClone(source.paused), session_id: dst };
  d.branchedAt = null;
  sessions.link(src, dst);
  return d;
}

function fork(args: Value[], ctx: CallContext): Value {
  const b = "agent_session_fork";
  const rt = ctx.runtime;
  const src = idArg(b, args[0], "src");
  stored(rt, b, src);
  const dst = idOrMint(rt, b, args[1], "dst");
  forkSession(rt, src, dst);
  return dst;
}

function forkAt(args: Value[], ctx: CallContext): Value {
  const b = "agent_session_fork_at";
  const rt = ctx.runtime;
  const src = idArg(b, args[0], "src");
  const keepFirst = intArg(b, args[1], "keep_first");
  const source = stored(rt, b, src);
  const dst = idOrMint(rt, b, args[2], "dst");
  const sourceEvents = source.transcript.get("events");
  const d = forkSession(rt, src, dst);
  withMessages(rt, d, messagesOf(d.transcript).slice(0, keepFirst));
  d.branchedAt = branchIndex(sourceEvents, keepFirst);
  return dst;
}

/** The event index just after the `keep_first`-th message event of the
 * source (0 for 0; `keep_first` when the source has no event list). */
function branchIndex(events: Value, keepFirst: number): number {
  if (keepFirst === 0) return 0;
  if (!Array.isArray(events)) return keepFirst;
  let seen = 0;
  for (let i = 0; i < events.length; i++) {
    const k = eventKind(events[i]!);
    if (k === "message" || k === "tool_result") {
      if (++seen === keepFirst) return i + 1;
    }
  }
  return events.length;
}

function snapshot(rt: Runtime, id: string): Value {
  const sessions = agentSessions(rt);
  const s = sessions.get(id);
  if (!s) return null;
  return s.transcript
    .with("parent_id", s.parentId)
    .with("child_ids", s.childIds.slice())
    .with("branched_at_event_index", s.branchedAt);
}

function close(args: Value[], ctx: CallContext): Value {
  const b = "agent_session_close";
  const rt = ctx.runtime;
  const id = idArg(b, args[0]);
  stored(rt, b, id);
  const sessions = agentSessions(rt);
  sessions.delete(id);
  sessions.subscribers.delete(id);
  const lr = longRunState(rt);
  lr.cancelSession(id);
  lr.discardSession(id);
  return null;
}

const COMPACT_KEYS = [
  "keep_last",
  "token_threshold",
  "tool_output_max_chars",
  "compact_strategy",
  "hard_limit_tokens",
  "hard_limit_strategy",
  "custom_compactor",
  "mask_callback",
  "compress_callback",
];

/**
 * `agent_session_compact(id, opts?)`: the compaction step over the stored
 * messages (no LLM options, so strategy `llm` fails). Where the spec lists
 * an option without its meaning, we take the obvious one:
 * `token_threshold` skips compaction while the estimate is at or below it;
 * `tool_output_max_chars` microcompacts tool-result contents first;
 * `compress_callback` (a closure `{text -> text}`) rewrites the summary
 * message once it is built.
 */
async function compact(args: Value[], ctx: CallContext): Promise<Value> {
  const b = "agent_session_compact";
  const rt = ctx.runtime;
  const id = idArg(b, args[0]);
  const s = stored(rt, b, id);
  const o = args[1] ?? null;
  if (o !== null && !(o instanceof HDict)) throw fail(`${b}: \`opts\` must be a dict or nil`);
  const opts = o ?? HDict.empty();
  for (const k of opts.keys()) {
    if (!COMPACT_KEYS.includes(k)) throw fail(`${b}: unknown option key '${k}' (expected one of: ${COMPACT_KEYS.join(", ")})`);
  }
  const keepLastV = opts.get("keep_last");
  const keepLast = keepLastV === null ? DEFAULT_KEEP_LAST : Number(keepLastV);
  if (isInt(keepLastV) && keepLast < 0) throw fail(`${b}: \`keep_last\` must be >= 0`);
  const callbacks: Record<string, Callback | null> = {};
  for (const name of ["custom_compactor", "mask_callback", "compress_callback"]) {
    const v = opts.get(name);
    if (v !== null && !isCallback(v)) throw fail(`${b}: \`${name}\` must be a closure`);
    callbacks[name] = v === null ? null : v;
  }
  const strategy = strategyOf(opts.get("compact_strategy"), "observation_mask");
  if (strategy === "custom" && callbacks.custom_compactor === null) throw HarnError.runtime("compact_callback is required when compact_strategy is 'custom'");
  const messages = messageList(messagesOf(s.transcript), "");
  const maxChars = opts.get("tool_output_max_chars");
  if (isInt(maxChars)) {
    for (const m of messages) if ((m.role === "tool" || m.role === "tool_result") && typeof m.content === "string") m.content = microcompact(m.content, Number(maxChars));
  }
  const threshold = opts.get("token_threshold");
  const hard = opts.get("hard_limit_tokens");
  if (!(isInt(threshold) && estimateTokens(messages, null) <= Number(threshold))) {
    const noLlm = () => {
      throw HarnError.runtime("LLM transcript compaction requires active LLM call options");
    };
    const done = await compactMessages(
      messages,
      {
        keepFirst: 0,
        keepLast: Number.isFinite(keepLast) ? Math.max(0, keepLast) : DEFAULT_KEEP_LAST,
        strategy,
        callback: callbacks.custom_compactor ?? null,
        maskCallback: callbacks.mask_callback ?? null,
        hardLimitTokens: isInt(hard) ? Number(hard) : null,
        hardLimitStrategy: strategyOf(opts.get("hard_limit_strategy"), "llm"),
      },
      { ctx, llm: noLlm },
    );
    const compress = callbacks.compress_callback;
    if (done !== null && compress) {
      let r = ctx.call(compress, [done.summary]);
      if (isPromise<Value>(r)) r = await r;
      const at = messages.findIndex((m) => m.content === done.summary);
      if (at >= 0) messages[at] = { role: "user", content: typeof r === "string" ? r : display(r) };
    }
  }
  withMessages(rt, s, fromJson(messages as unknown as Json) as Value[]);
  return messages.length;
}

export const SESSION_BUILTINS = builtinModule("agent/session_builtins", (def) => {
  def("agent_session_open", open);
  def("agent_session_exists", (args, ctx) => agentSessions(ctx.runtime).has(idArg("agent_session_exists", args[0])));
  def("agent_session_length", (args, ctx) => {
    const b = "agent_session_length";
    return messagesOf(stored(ctx.runtime, b, idArg(b, args[0])).transcript).length;
  });
  def("agent_session_snapshot", (args, ctx) => snapshot(ctx.runtime, idArg("agent_session_snapshot", args[0])));
  def("agent_session_inject", inject);
  def("agent_session_fork", fork);
  def("agent_session_fork_at", forkAt);
  def("agent_session_reset", (args, ctx) => {
    const b = "agent_session_reset";
    const id = idArg(b, args[0]);
    const s = stored(ctx.runtime, b, id);
    s.transcript = buildTranscript(ctx.runtime, { id, messages: [] });
    s.paused = null;
    return null;
  });
  def("agent_session_close", close);
  def("agent_session_trim", (args, ctx) => {
    const b = "agent_session_trim";
    const id = idArg(b, args[0]);
    const keep = intArg(b, args[1], "keep_last");
    const s = stored(ctx.runtime, b, id);
    const messages = messagesOf(s.transcript);
    const kept = keep === 0 ? [] : messages.slice(-keep);
    withMessages(ctx.runtime, s, kept);
    return kept.length;
  });
  def("agent_session_ancestry", (args, ctx) => {
    const id = idArg("agent_session_ancestry", args[0]);
    const sessions = agentSessions(ctx.runtime);
    const s = sessions.get(id);
    if (!s) return null;
    return HDict.of({ parent_id: s.parentId, child_ids: s.childIds.slice(), root_id: sessions.rootOf(id) });
  });
  def("agent_session_compact", compact);
});
