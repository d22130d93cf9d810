/**
 * The compaction step (spec/agents-surface.md §1.9), shared by the loop's
 * `auto_compact` (agents.md §2.14), `transcript_auto_compact`,
 * `transcript_compact`, `agent_session_compact` and workers' `compact`
 * carry mode: the messages between the first `keep_first` and the last
 * `keep_last` (split moved back to a user turn) are replaced by one user
 * message holding a summary written by one of four strategies.
 *
 * [TS decision] Beyond the reference: the kept tail never starts with a
 * native tool result whose call would be archived (providers reject a
 * result without its call); Anthropic-shape tool results
 * (`{role: "user", content: [{type: "tool_result"}]}`) count as tool
 * results, not user turns. The loop's default strategy is `llm`.
 */
import { display, HarnError, HBuiltinRef, HClosure, HDict, isPromise, type CallContext, type Value } from "@harn/vm";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { osErrorText } from "../../core/oserror";
import { sourceDir } from "../../core/paths";
import { toJson as prettyJson } from "../../template/json";
import { callModel } from "../llm/call";
import { num, type LlmSettings } from "../llm/options";
import { noteEdit, toolResultOf, type Msg } from "./transcript";
import { fromJson, isJsonObject, type Json, toJson } from "../../core/json";

export type CompactStrategy = "llm" | "truncate" | "custom" | "observation_mask";

const STRATEGIES: readonly CompactStrategy[] = ["llm", "truncate", "custom", "observation_mask"];

export type Callback = HClosure | HBuiltinRef;

export interface CompactionSettings {
  keepFirst: number;
  keepLast: number;
  strategy: CompactStrategy;
  callback: Callback | null;
  /** `observation_mask`: per archived index, a replacement text. */
  maskCallback?: Callback | null;
  /** Tier 2: re-summarise the summary when still over this estimate. */
  hardLimitTokens?: number | null;
  hardLimitStrategy?: CompactStrategy;
  /** `llm`: a template file for the summarizer prompt. */
  summarizePrompt?: string | null;
}

export interface LoopCompaction extends CompactionSettings {
  /** `auto_compact: true`. */
  enabled: boolean;
  threshold: number;
  /** Daemon mode: compact at idle points too (`consolidate_on_idle`). */
  onIdle: boolean;
}

export const DEFAULT_COMPACT_THRESHOLD = 80_000;
export const DEFAULT_KEEP_LAST = 12;
const TRUNCATE_LINES = 15;
const LONG_BYTES = 500;

const SUMMARIZER_INSTRUCTION =
  "Summarize the archived conversation below for a follow-on agent that will continue the work from your summary alone. Keep facts, decisions, tool results that still matter, and open tasks. Reply with the summary only.";

export function isCallback(v: Value): v is Callback {
  return v instanceof HClosure || v instanceof HBuiltinRef;
}

/** A strategy name; unknown names are the reference's runtime error. */
export function strategyOf(v: Value, fallback: CompactStrategy): CompactStrategy {
  if (v === null) return fallback;
  const name = typeof v === "string" ? v : display(v);
  if (!(STRATEGIES as readonly string[]).includes(name)) {
    throw HarnError.runtime(`unknown compact_strategy '${name}' (expected 'llm', 'truncate', 'custom', or 'observation_mask')`);
  }
  return name as CompactStrategy;
}

function count(v: Value, fallback: number): number {
  const n = num(v);
  return n === undefined ? fallback : Math.max(0, Math.floor(n));
}

/** Strategy and callback (shared by the loop options and
 * `transcript_auto_compact`); `keys` names the keep options. */
export function readCompactionSettings(options: HDict, keys: { first: string; last: string }): CompactionSettings {
  const strategy = strategyOf(options.get("compact_strategy"), "llm");
  const cb = options.get("compact_callback");
  const callback = isCallback(cb) ? cb : null;
  if (strategy === "custom" && callback === null) throw HarnError.runtime("compact_callback is required when compact_strategy is 'custom'");
  return { keepFirst: count(options.get(keys.first), 0), keepLast: count(options.get(keys.last), DEFAULT_KEEP_LAST), strategy, callback };
}

/** The loop's compaction options (agents.md §2.14). */
export function readLoopCompaction(options: HDict): LoopCompaction {
  const threshold = num(options.get("compact_threshold"));
  if (threshold !== undefined && threshold < 0) throw HarnError.runtime("agent_loop: compact_threshold must be >= 0");
  return {
    ...readCompactionSettings(options, { first: "compact_keep_first", last: "compact_keep_last" }),
    enabled: options.get("auto_compact") === true,
    threshold: threshold ?? DEFAULT_COMPACT_THRESHOLD,
    onIdle: options.get("consolidate_on_idle") === true,
  };
}

function bytes(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** The first `n` UTF-8 bytes of `s`, cut back to a character boundary. */
export function byteHead(s: string, n: number): string {
  const b = Buffer.from(s, "utf8");
  if (b.length <= n) return s;
  let end = n;
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return b.subarray(0, end).toString("utf8");
}

/** Estimated tokens: string `content` bytes / 4, plus system bytes / 4. */
export function estimateTokens(messages: readonly Msg[], system: string | null): number {
  let total = 0;
  for (const m of messages) if (typeof m.content === "string") total += bytes(m.content);
  return Math.floor(total / 4) + (system === null ? 0 : Math.floor(bytes(system) / 4));
}

/** A native tool result in either stored shape (agents.md §2.6 step 9). */
function isToolResult(m: Msg): boolean {
  return m.role === "tool" || toolResultOf(m) !== undefined;
}

function isUserTurn(m: Msg | undefined): boolean {
  return m !== undefined && m.role === "user" && !isToolResult(m);
}

function isVolatile(m: Msg): boolean {
  return isToolResult(m) || "tool_calls" in m || (m.reasoning !== undefined && m.reasoning !== null);
}

/** Steps 1–4 of §1.9: where the archived range `[start, split)` ends, or
 * null when there is nothing to archive. */
function archiveRange(messages: readonly Msg[], keepFirst: number, keepLast: number): { start: number; split: number } | null {
  const len = messages.length;
  if (len <= keepFirst + keepLast) return null;
  const start = Math.min(keepFirst, len);
  let split = len - keepLast;
  while (split > start && !isUserTurn(messages[split])) split--;
  if (split === start) split = len - keepLast;
  const volatile = messages.findIndex((m, i) => i >= split && isVolatile(m));
  if (volatile >= 0) {
    for (let i = volatile - 1; i > start; i--) {
      if (isUserTurn(messages[i]!)) {
        split = i;
        break;
      }
    }
  }
  while (split > start && split < len && isToolResult(messages[split]!)) split--;
  return split > start ? { start, split } : null;
}

/** What a summarizer needs: the context to call the callbacks or the
 * model (whose settings are only read when the `llm` strategy needs them). */
export interface SummaryContext {
  ctx: CallContext;
  llm: () => LlmSettings;
}

/** The messages that contribute to a digest: non-empty string content. */
function contributing(archived: readonly Msg[]): { m: Msg; i: number; text: string }[] {
  const out: { m: Msg; i: number; text: string }[] = [];
  archived.forEach((m, i) => {
    if (typeof m.content === "string" && m.content !== "") out.push({ m, i, text: m.content });
  });
  return out;
}

function truncateLines(archived: readonly Msg[]): string[] {
  const lines = contributing(archived)
    .slice(0, TRUNCATE_LINES)
    .map(({ m, text }) => {
      const l = bytes(text);
      return `[${m.role}] ${l > LONG_BYTES ? `${byteHead(text, LONG_BYTES)}... [truncated from ${l} chars]` : text}`;
    });
  if (archived.length > TRUNCATE_LINES) lines.push(`... and ${archived.length - TRUNCATE_LINES} more`);
  return lines;
}

function truncateSummary(archived: readonly Msg[]): string {
  return [`[auto-compacted ${archived.length} older messages via truncate strategy]`, ...truncateLines(archived)].join("\n");
}

async function call(sc: SummaryContext, fn: Callback, args: Value[]): Promise<Value> {
  const r = sc.ctx.call(fn, args);
  return isPromise<Value>(r) ? await r : r;
}

async function maskSummary(archived: readonly Msg[], s: CompactionSettings, sc: SummaryContext): Promise<string> {
  let masks: Value = null;
  const needs = contributing(archived).some(({ m, text }) => m.role !== "assistant" && bytes(text) >= LONG_BYTES);
  if (needs && s.maskCallback) masks = await call(sc, s.maskCallback, [fromJson(archived as unknown as Json)]);
  const lines = [`[auto-compacted ${archived.length} older messages via observation masking]`];
  for (const { m, i, text } of contributing(archived)) {
    if (m.role === "assistant" || bytes(text) < LONG_BYTES) {
      lines.push(`[${m.role}] ${text}`);
      continue;
    }
    const mask = Array.isArray(masks) ? masks[i] : null;
    if (typeof mask === "string") {
      lines.push(mask);
      continue;
    }
    const all = text.split("\n");
    lines.push(all.length <= 3 ? `[${m.role}] ${text}` : `[${m.role}] ${byteHead(all[0]!, 120)}... [${all.length} lines, ${bytes(text)} chars masked]`);
  }
  return lines.join("\n");
}

async function customSummary(archived: readonly Msg[], s: CompactionSettings, sc: SummaryContext): Promise<string> {
  if (s.callback === null) throw HarnError.runtime("compact_callback is required when compact_strategy is 'custom'");
  const r = await call(sc, s.callback, [fromJson(archived as unknown as Json)]);
  let text: string;
  if (typeof r === "string") text = r;
  else if (r === null) text = "";
  else if (r instanceof HDict) {
    const v = r.has("summary") ? r.get("summary") : r.get("text");
    text = v === null ? "" : typeof v === "string" ? v : display(v);
  } else text = prettyJson(r, true);
  return text === "" ? truncateSummary(archived) : `[auto-compacted ${archived.length} older messages]\n${text}`;
}

function formattedMessages(archived: readonly Msg[]): string {
  return archived.map((m) => `${(typeof m.role === "string" ? m.role : "user").toUpperCase()}: ${typeof m.content === "string" ? m.content : ""}`).join("\n");
}

async function summarizerPrompt(archived: readonly Msg[], s: CompactionSettings, sc: SummaryContext): Promise<string> {
  const lines = formattedMessages(archived);
  if (!s.summarizePrompt) return `${SUMMARIZER_INSTRUCTION}\n\nArchived message count: ${archived.length}\n\nConversation:\n${lines}`;
  // Loaded on demand: most compactions never render a template.
  const [{ resolveAsset, AssetPathError }, { renderSource }] = await Promise.all([import("../../template/assets"), import("../../template/builtins")]);
  let path = s.summarizePrompt;
  let source: string;
  try {
    path = resolveAsset(sourceDir(sc.ctx), s.summarizePrompt);
    source = readFileSync(path, "utf8");
  } catch (e) {
    throw HarnError.runtime(`failed to read compaction summarize_prompt ${path}: ${e instanceof AssetPathError ? e.message : osErrorText(e)}`);
  }
  return renderSource(sc.ctx, source, path, dirname(path), HDict.of({ formatted_messages: lines, archived_count: archived.length }));
}

async function llmSummary(archived: readonly Msg[], s: CompactionSettings, sc: SummaryContext): Promise<string> {
  const prompt = await summarizerPrompt(archived, s, sc);
  const res = await callModel(sc.ctx.runtime, sc.llm(), { system: null, messages: [{ role: "user", content: prompt }], tools: null }, sc.ctx.signal);
  const text = res.text.trim();
  const n = archived.length;
  if (text === "") {
    return [`[auto-compact fallback: LLM summarizer returned empty; ${n} older messages abbreviated to ~500 chars each]`, ...truncateLines(archived)].join("\n");
  }
  return `[auto-compacted ${n} older messages]\n${text}`;
}

function summarize(archived: readonly Msg[], strategy: CompactStrategy, s: CompactionSettings, sc: SummaryContext): Promise<string> | string {
  switch (strategy) {
    case "truncate":
      return truncateSummary(archived);
    case "observation_mask":
      return maskSummary(archived, s, sc);
    case "custom":
      return customSummary(archived, s, sc);
    case "llm":
      return llmSummary(archived, s, sc);
  }
}

export interface Compacted {
  /** The summary message's content. */
  summary: string;
  /** How many messages it replaced. */
  archived: number;
}

/**
 * Compact `messages` in place once. Returns the summary, or null when
 * there was nothing to archive.
 */
export async function compactMessages(messages: Msg[], s: CompactionSettings, sc: SummaryContext): Promise<Compacted | null> {
  const range = archiveRange(messages, s.keepFirst, s.keepLast);
  if (range === null) return null;
  const archived = messages.slice(range.start, range.split);
  let summary = await summarize(archived, s.strategy, s, sc);
  const hard = s.hardLimitTokens;
  if (hard !== undefined && hard !== null) {
    const rest = messages.slice(range.split);
    if (estimateTokens([{ role: "user", content: summary }, ...rest], null) > hard) {
      summary = await summarize([{ role: "user", content: summary }], s.hardLimitStrategy ?? "llm", s, sc);
    }
  }
  messages.splice(range.start, archived.length, { role: "user", content: summary });
  noteEdit(messages);
  return { summary, archived: archived.length };
}

/** A new summary joined to an earlier one with a blank line. */
export function joinSummary(earlier: string | null, next: string): string {
  return earlier === null || earlier === "" ? next : `${earlier}\n\n${next}`;
}

/** Messages from a script value (dict entries; role default `user`). */
export function messageList(v: Value, error: string): Msg[] {
  const j = toJson(v);
  if (!Array.isArray(j)) throw HarnError.runtime(error);
  return j.filter(isJsonObject).map((m) => ({ ...m, role: typeof m.role === "string" ? m.role : "user" }) as Msg);
}
