/**
 * Transcript compaction (spec/agents.md §2.14, P2): when a conversation
 * grows past `compact_threshold` estimated tokens, the messages between the
 * first `keep_first` and the last `keep_last` are replaced by one user
 * message `[auto-compacted <n> older messages]\n<summary>`.
 *
 * The summary comes from `compact_callback` (strategy `custom`), the model
 * (`llm`), or a digest of the archived messages (`truncate`; also the
 * fallback for an empty summary). `observation_mask` is the digest with
 * tool output masked. Summaries accumulate into the transcript summary.
 *
 * [TS decision] Where the spec is silent: the default threshold is 80 000
 * estimated tokens and the default strategy `llm`; the digest keeps the
 * first 200 characters of each archived message; and a loop does not
 * compact while long-running calls are pending, since their later
 * responses are recorded against the original results.
 */
import { cpArray, display, HarnError, HBuiltinRef, HClosure, HDict, isPromise, type CallContext, type Value } from "@harn/vm";
import { fromJson, isObject, toJson } from "../json";
import { callModel } from "../llm/call";
import { num, type LlmSettings } from "../llm/options";
import { toolResultOf, type Msg } from "./transcript";

export type CompactStrategy = "llm" | "truncate" | "custom" | "observation_mask";

const STRATEGIES: readonly CompactStrategy[] = ["llm", "truncate", "custom", "observation_mask"];

export interface CompactionSettings {
  keepFirst: number;
  keepLast: number;
  strategy: CompactStrategy;
  callback: HClosure | HBuiltinRef | null;
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
const DIGEST_CHARS = 200;

const SUMMARY_SYSTEM =
  "Summarize the conversation below so that it can be continued from the summary alone. Keep facts, decisions, tool results that still matter, and open tasks. Reply with the summary only.";

function count(v: Value, fallback: number): number {
  const n = num(v);
  return n === undefined ? fallback : Math.max(0, Math.floor(n));
}

/** Strategy and callback (shared by the loop options and
 * `transcript_auto_compact`); `keys` names the keep options. */
export function readCompactionSettings(options: HDict, keys: { first: string; last: string }, builtin: string): CompactionSettings {
  const raw = options.get("compact_strategy");
  const name = raw === null ? "llm" : typeof raw === "string" ? raw : display(raw);
  if (!(STRATEGIES as readonly string[]).includes(name)) {
    throw HarnError.runtime(`${builtin}: compact_strategy must be one of ${STRATEGIES.join(", ")}; got \`${name}\``);
  }
  const cb = options.get("compact_callback");
  const callback = cb instanceof HClosure || cb instanceof HBuiltinRef ? cb : null;
  if (name === "custom" && callback === null) throw HarnError.runtime("compact_callback is required when compact_strategy is 'custom'");
  return {
    keepFirst: count(options.get(keys.first), 0),
    keepLast: count(options.get(keys.last), DEFAULT_KEEP_LAST),
    strategy: name as CompactStrategy,
    callback,
  };
}

/** The loop's compaction options (§2.14). */
export function readLoopCompaction(options: HDict): LoopCompaction {
  const t = options.get("compact_threshold");
  const threshold = num(t);
  if (threshold !== undefined && threshold < 0) throw HarnError.runtime("agent_loop: compact_threshold must be >= 0");
  return {
    ...readCompactionSettings(options, { first: "compact_keep_first", last: "compact_keep_last" }, "agent_loop"),
    enabled: options.get("auto_compact") === true,
    threshold: threshold ?? DEFAULT_COMPACT_THRESHOLD,
    onIdle: options.get("consolidate_on_idle") === true,
  };
}

function bytes(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** Estimated tokens: string `content` bytes / 4, plus system bytes / 4. */
export function estimateTokens(messages: readonly Msg[], system: string | null): number {
  let total = 0;
  for (const m of messages) if (typeof m.content === "string") total += bytes(m.content);
  return Math.floor(total / 4) + (system === null ? 0 : Math.floor(bytes(system) / 4));
}

/** Where the kept tail starts: `keep_last` from the end, moved back to a
 * user message when that still leaves something to archive; failing that,
 * never on a tool result whose call would be archived (providers reject a
 * result without its call). */
function splitPoint(messages: readonly Msg[], keepFirst: number, keepLast: number): number {
  let split = messages.length - keepLast;
  for (let s = split; s > keepFirst; s--) if (messages[s]!.role === "user" && !isNativeResult(messages[s]!)) return s;
  while (split > keepFirst && isNativeResult(messages[split]!)) split--;
  return split;
}

/** A native tool result in either stored shape (§2.6 step 9). */
function isNativeResult(m: Msg): boolean {
  return m.role === "tool" || toolResultOf(m) !== undefined;
}

function contentText(m: Msg): string {
  if (typeof m.content === "string") return m.content;
  const result = toolResultOf(m);
  if (result !== undefined && result.text !== null) return result.text;
  return m.content === undefined || m.content === null ? "" : JSON.stringify(m.content);
}

function isToolOutput(m: Msg): boolean {
  return isNativeResult(m) || (typeof m.content === "string" && m.content.startsWith('<runtime_feedback kind="tool_results">'));
}

/** One line per archived message, each cut to its first 200 characters. */
export function digest(archived: readonly Msg[], maskTools = false): string {
  return archived
    .map((m) => {
      const text = maskTools && isToolOutput(m) ? "[tool output omitted]" : contentText(m);
      const cps = cpArray(text.replace(/\s+/g, " ").trim());
      return `${m.role}: ${cps.length > DIGEST_CHARS ? cps.slice(0, DIGEST_CHARS).join("") + "…" : cps.join("")}`;
    })
    .join("\n");
}

/** What a summarizer needs: the context to call the callback or the model
 * (whose settings are only read when the `llm` strategy needs them). */
export interface SummaryContext {
  ctx: CallContext;
  llm: () => LlmSettings;
}

async function summarize(archived: Msg[], s: CompactionSettings, sc: SummaryContext): Promise<string> {
  let summary = "";
  if (s.strategy === "custom" && s.callback !== null) {
    let r = sc.ctx.call(s.callback, [fromJson(archived)]);
    if (isPromise<Value>(r)) r = await r;
    if (typeof r === "string") summary = r;
    else if (r instanceof HDict) {
      const v = r.get("summary") ?? r.get("text");
      summary = v === null ? "" : typeof v === "string" ? v : display(v);
    }
  } else if (s.strategy === "llm") {
    const res = await callModel(
      sc.ctx.runtime,
      sc.llm(),
      { system: SUMMARY_SYSTEM, messages: [{ role: "user", content: digestForModel(archived) }], tools: null },
      sc.ctx.signal,
    );
    summary = res.text;
  } else if (s.strategy === "observation_mask") {
    summary = digest(archived, true);
  }
  return summary.trim() === "" ? digest(archived) : summary;
}

function digestForModel(archived: readonly Msg[]): string {
  return archived.map((m) => `[${m.role}]\n${contentText(m)}`).join("\n\n");
}

/**
 * Compact `messages` in place once. Returns the summary, or null when
 * there were not more than `keep_first + keep_last` messages.
 */
export async function compactMessages(messages: Msg[], s: CompactionSettings, sc: SummaryContext): Promise<string | null> {
  if (messages.length <= s.keepFirst + s.keepLast) return null;
  const split = splitPoint(messages, s.keepFirst, s.keepLast);
  const archived = messages.slice(s.keepFirst, split);
  if (archived.length === 0) return null;
  const summary = await summarize(archived, s, sc);
  const note: Msg = { role: "user", content: `[auto-compacted ${archived.length} older messages]\n${summary}` };
  messages.splice(s.keepFirst, archived.length, note);
  return summary;
}

/** A new summary joined to an earlier one with a blank line. */
export function joinSummary(earlier: string | null, next: string): string {
  return earlier === null || earlier === "" ? next : `${earlier}\n\n${next}`;
}

/** Messages from a script value, for `transcript_auto_compact`. */
export function messageList(v: Value): Msg[] {
  const j = toJson(v);
  if (!Array.isArray(j)) throw HarnError.runtime("transcript_auto_compact: messages must be a list of message dicts");
  return j.filter(isObject).map((m) => ({ ...m, role: typeof m.role === "string" ? m.role : "user" }) as Msg);
}
