/**
 * Compaction builtins (spec/agents-surface.md §1.9, agents.md §2.14):
 * `estimate_tokens`, `microcompact`, `transcript_compact`,
 * `transcript_summarize` and `transcript_auto_compact`, all over the one
 * compaction step of loop/compaction.ts.
 */
import { display, HarnError, HDict, isInt, type CallContext, type Runtime, type Value } from "@harn/vm";
import { LlmSetupError } from "../../llm/errors";
import { callModel } from "../llm/call";
import { readLlmSettings, setupError, num, type LlmSettings } from "../llm/options";
import { compactMessages, DEFAULT_KEEP_LAST, estimateTokens, messageList, readCompactionSettings, strategyOf } from "../loop/compaction";
import type { Msg } from "../loop/transcript";
import { emitAgentEvent } from "../sessions";
import { microcompact, DEFAULT_MICROCOMPACT_CHARS } from "./microcompact";
import { transcriptArg } from "./builtins";
import { buildTranscript, isTranscript, mergeSummary, messagesOf, partsOf, runtimeEvent, summaryOf } from "./values";
import { uuidV7 } from "../../core/encoding";
import { builtinModule } from "../../registry/define";
import { fromJson, type Json } from "../../core/json";

/** LLM settings read only when a strategy calls the model. */
function lazyLlm(rt: Runtime, options: HDict): () => LlmSettings {
  return () => {
    try {
      return readLlmSettings(rt, options, { retries: 0, backoffMs: 250 });
    } catch (e) {
      throw e instanceof LlmSetupError ? setupError(e) : e;
    }
  };
}

function jsonMessages(v: Value[]): Msg[] {
  return messageList(v, "");
}

/** §1.9 `estimate_tokens(messages)`. */
function estimate(v: Value): number {
  if (!Array.isArray(v)) return 0;
  return estimateTokens(jsonMessages(v), null);
}

function nonBlank(v: Value): string | null {
  return typeof v === "string" && v.trim() !== "" ? v : null;
}

async function transcriptCompact(args: Value[], ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  const t = args[0];
  if (!isTranscript(t)) throw HarnError.runtime("transcript_compact: first argument must be a transcript");
  const o = args[1] instanceof HDict ? args[1] : HDict.empty();
  const strategy = strategyOf(o.get("strategy") ?? o.get("compact_strategy"), "observation_mask");
  if (strategy === "custom") {
    throw HarnError.runtime("transcript_compact: strategy 'custom' is not supported; use 'llm', 'truncate', or 'observation_mask'");
  }
  const keepLast = num(o.get("keep_last")) ?? DEFAULT_KEEP_LAST;
  if (keepLast < 0) throw HarnError.runtime("transcript_compact: keep_last must be >= 0");
  const target = num(o.get("target_tokens"));
  if (target !== undefined && target < 0) throw HarnError.runtime("transcript_compact: target_tokens must be >= 0");
  const prompt = nonBlank(o.get("summarize_prompt"));
  if (prompt !== null && strategy !== "llm") throw HarnError.runtime("transcript_compact: summarize_prompt is only supported with strategy 'llm'");
  const messages = jsonMessages(messagesOf(t));
  const before = estimateTokens(messages, null);
  if (target !== undefined && before <= target) return t;
  const done = await compactMessages(
    messages,
    { keepFirst: 0, keepLast: Math.floor(keepLast), strategy, callback: null, hardLimitTokens: target ?? null, hardLimitStrategy: strategy, summarizePrompt: prompt },
    { ctx, llm: lazyLlm(rt, o) },
  );
  if (done === null) return t;
  const after = estimateTokens(messages, null);
  const assetId = `compaction-source-${uuidV7(rt)}`;
  const stats = { strategy, archived_messages: done.archived, estimated_tokens_before: before, estimated_tokens_after: after };
  const snapshot = HDict.of({
    _type: "transcript_asset",
    id: assetId,
    kind: "compaction_source_transcript",
    title: "Pre-compaction transcript",
    visibility: "internal",
    data: t,
    metadata: HDict.of(stats),
  });
  const p = partsOf(t, true);
  const given = nonBlank(o.get("summary"));
  const event = runtimeEvent(rt, "compaction", "system", "internal", `Transcript compacted via ${strategy}`, HDict.of({
    mode: "manual",
    keep_last: Math.floor(keepLast),
    target_tokens: target === undefined ? null : o.get("target_tokens"),
    snapshot_asset_id: assetId,
    ...stats,
  }));
  const out = buildTranscript(rt, {
    ...p,
    messages: fromJson(messages as unknown as Json) as Value[],
    summary: mergeSummary(summaryOf(t), given ?? done.summary),
    assets: [...(p.assets ?? []), snapshot],
    extras: [...(p.extras ?? []), event],
  });
  const id = t.get("id");
  const sessionId = typeof id === "string" && id !== "" ? id : ctx.sessionId;
  if (sessionId) {
    await emitAgentEvent(ctx, sessionId, HDict.of({ type: "transcript_compacted", session_id: sessionId, mode: "manual", snapshot_asset_id: assetId, ...stats }));
  }
  return out;
}

const SUMMARIZE_PROMPT = "Summarize the conversation below for a follow-on agent that will continue the work from your summary alone. Keep facts, decisions and open tasks.";

/** §1.9 `transcript_summarize(t, options?)` (P2). */
async function transcriptSummarize(args: Value[], ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  const t = transcriptArg("transcript_summarize", args[0]);
  const o = args[1] instanceof HDict ? args[1] : HDict.empty();
  const messages = messagesOf(t);
  const lines = jsonMessages(messages)
    .map((m) => `${m.role.toUpperCase()}: ${typeof m.content === "string" ? m.content : ""}`)
    .join("\n");
  const prompt = nonBlank(o.get("prompt")) ?? SUMMARIZE_PROMPT;
  const res = await callModel(rt, lazyLlm(rt, o)(), { system: null, messages: [{ role: "user", content: `${prompt}\n\nConversation:\n${lines}` }], tools: null }, ctx.signal);
  const keep = Math.max(0, Math.floor(num(o.get("keep_last")) ?? 6));
  const kept = keep === 0 ? [] : messages.slice(-keep);
  return buildTranscript(rt, { ...partsOf(t, false), messages: kept, summary: res.text, more: { archived_messages: messages.length - kept.length } });
}

/** `transcript_auto_compact(messages, options)` (agents.md §2.14): one
 * compaction pass over a message list; returns the new list. */
async function transcriptAutoCompact(args: Value[], ctx: CallContext): Promise<Value> {
  const messages = messageList(args[0] ?? null, "transcript_auto_compact: messages must be a list of message dicts");
  const options = args[1] instanceof HDict ? args[1] : HDict.empty();
  const settings = readCompactionSettings(options, { first: "keep_first", last: "keep_last" });
  await compactMessages(messages, settings, { ctx, llm: lazyLlm(ctx.runtime, options) });
  return fromJson(messages as unknown as Json);
}

export const COMPACTION_BUILTINS = builtinModule("agent/transcript/compact", (def) => {
  def("estimate_tokens", (args) => estimate(args[0] ?? null));
  def("microcompact", (args) => {
    const text = display(args[0] ?? null);
    const max = args[1];
    return microcompact(text, max !== undefined && isInt(max) ? Number(max) : DEFAULT_MICROCOMPACT_CHARS);
  });
  def("transcript_compact", transcriptCompact);
  def("transcript_summarize", transcriptSummarize);
  def("transcript_auto_compact", transcriptAutoCompact);
});
