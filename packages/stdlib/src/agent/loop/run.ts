/**
 * The agent loop (spec/agents.md §2.7): a plain async function over
 * (runtime, provider, tools, options, transcript). Each turn: preflight
 * (drain pending feedback, §2.8), one model call, tool dispatch (§2.6) or
 * the text-only branch (nudges, sentinel), and the stop conditions.
 * Long-running agent tools (extensions.md §1) add the pending-call
 * bookkeeping and `on_pending`; session-end cleanup (§1.15) runs in a
 * `finally` on every exit path.
 */
import { HarnError, HDict, isPromise, truthy, type CallContext, type Runtime, type Value } from "@harn/vm";
import { LlmError, LlmInterrupted, LlmSetupError } from "../../llm/errors";
import { markInterrupted, turnControl, type Turn } from "../../llm/turns";
import type { LlmResponse, LlmToolDefinition } from "../../llm/types";
import { longRunState, type FeedbackItem } from "../../longrun/index";
import { dataOnly, fromJson, isJsonObject, type Json, type JsonObject, parseJsonKeepingFloats, stringifyJsonKeepingFloats, toJson } from "../../core/json";
import { isTotalBudget } from "../llm/budget";
import { completeStructured, readStructured, schemaError, type StructuredSpec } from "../llm/structured";
import { agentClient } from "../llm/client";
import { setupError, type LlmSettings } from "../llm/options";
import { emitAgentEvent } from "../sessions";
import { denial, dispatchCall, type BuiltinTool, type CallOutcome, type McpClients, type ToolCall } from "../tools/dispatch";
import { DaemonMode, type DaemonHost } from "../daemon/mode";
import { nativeDefinition, toolContract, type ToolSpec } from "../tools/spec";
import { canonicalText, hasDoneBlock, parseTextToolCalls, visibleText } from "../tools/text_protocol";
import { compactMessages, estimateTokens, joinSummary, type LoopCompaction } from "./compaction";
import { replyEvents, toolExecutionEvent, toolIntentEvent, type ExecutionInfo } from "../transcript/events";
import { runtimeEvent } from "../transcript/values";
import { planArtifact } from "../tools/plan";
import { isRefusal, type PermissionGate } from "../permissions/gate";
import type { LoopSettings } from "./options";
import { FeedbackBound } from "./bounded";
import type { LoopSkills } from "./skills";
import type { LoopToolSearch } from "./tool_search";
import { resultDict, type LoopProgress, type LoopStatus, type PendingCall } from "./result";
import {
  appendUpdate,
  feedbackMessage,
  RequestBuilder,
  textResultsMessage,
  toolMessage,
  toolResultOf,
  type CallResult,
  type Msg,
  type ResultShape,
} from "./transcript";

import type { StickyFallback } from "../../llm/fallback";

/** Where a loop starts: a fresh task, or a yielded state being resumed. */
export interface LoopStart {
  task: string | null;
  system: string | null;
  options: HDict;
  /** A background sub-agent (extensions.md §2): Ctrl-C does not interrupt
   * its turns. */
  background?: boolean;
  resumed?: {
    sessionId: string;
    anonymous: boolean;
    messages: Msg[];
    progress: LoopProgress;
    /** Tool definitions of the yielded state (used when `tools` is not
     * passed again; they have no handlers). */
    tools: JsonObject[];
  };
  /** Where a fallback memory outliving this loop lives (one `harn chat`
   * session); by default each loop has its own. */
  fallbackMemory?: FallbackMemory;
  /** Set by `daemon_spawn` / `daemon_resume`: the inbox and shared state
   * files of the daemon running this loop (spec/agents.md §4.3). */
  daemonHost?: DaemonHost;
}

/** A fallback memory shared by the loops of one session. */
export interface FallbackMemory {
  sticky?: StickyFallback;
}

/** Feedback kind of a call-addressed update (`agent_update`,
 * `agent_resolve`): content `{call_id, status, …}`. */
export const TOOL_UPDATE_KIND = "tool_update";

const FINAL_STATUSES = new Set(["completed", "failed", "done", "error"]);

/** The feedback kind that tells the model a pending call's result arrived. */
export const PENDING_RESULT_KIND = "pending_result";

export function pendingResultText(call: PendingCall): string {
  return `The result of your earlier call ${call.call_id} (${call.tool}) has arrived; it now stands in place of that call's pending response.`;
}

export class AgentLoop {
  private readonly toolMap: Map<string, ToolSpec>;
  /** Native definitions of `tools` (empty in the text format). */
  private readonly nativeDefs = new Map<ToolSpec, LlmToolDefinition>();
  /** Tool search (workflows.md §3); null without a `tool_search` option. */
  search: LoopToolSearch | null = null;
  /** Skills (workflows.md §2.7); null without a `skills` option. */
  skills: LoopSkills | null = null;
  /** Call ids already in the transcript: providers (the mock above all,
   * whose ids restart at `mock_call_1` in every response) may repeat ids
   * across turns, and consolidation and resumption address calls by id. */
  private readonly usedIds = new Set<string>();
  private readonly nextSuffix = new Map<string, number>();
  /** A native-format reply's text calls were accepted once already. */
  private textFallbackUsed = false;
  /** A `prefill_assistant` item's content: the start of the assistant's
   * reply for this turn's model call only (§2.8, P2). */
  private prefill: string | null = null;
  /** Daemon mode: the idle cycle replacing "stop" on text-only turns. */
  daemon: DaemonMode | null = null;
  /** Capability ceiling and dynamic permissions (agents-surface.md §5). */
  gate: PermissionGate | null = null;
  /** The model requests, built incrementally turn after turn. */
  private readonly request = new RequestBuilder();
  /** Transcript compaction (§2.14); off unless `auto_compact: true`. */
  compaction: LoopCompaction | null = null;
  /** Where `executor: "mcp_server"` tools go (spec/mcp.md §3.3). */
  mcp: McpClients | null = null;
  /** The running turn (extensions.md §3.3): its model call and tools run
   * in a task of their own, so the host's Ctrl-C can cancel the turn
   * without cancelling the loop. */
  private turn: { handle: Turn; ctx: CallContext } | null = null;
  /** Structured-output options (§3.9); `schema_retries` defaults to the
   * profile's (§2.3). */
  private readonly structured: StructuredSpec;
  /** The cap on what a tool or the queue hands the model (bounded.ts). */
  private readonly bound: FeedbackBound;

  constructor(
    readonly rt: Runtime,
    readonly ctx: CallContext,
    readonly settings: LoopSettings,
    readonly llm: LlmSettings,
    readonly tools: ToolSpec[],
    readonly builtins: Map<string, BuiltinTool>,
    readonly sessionId: string,
    readonly messages: Msg[],
    readonly progress: LoopProgress,
    readonly start: LoopStart,
  ) {
    this.toolMap = new Map(tools.map((t) => [t.name, t]));
    this.bound = new FeedbackBound(rt, settings.feedbackMaxBytes);
    this.structured = readStructured(start.options, settings.profile.schemaRetries);
    for (const m of messages) {
      if (typeof m.tool_call_id === "string") this.usedIds.add(m.tool_call_id);
      const result = toolResultOf(m);
      if (result !== undefined) this.usedIds.add(result.id);
      if (Array.isArray(m.tool_calls)) for (const c of m.tool_calls) if (isJsonObject(c) && typeof c.id === "string") this.usedIds.add(c.id);
      if (Array.isArray(m.tool_results)) for (const r of m.tool_results) if (isJsonObject(r) && typeof r.tool_call_id === "string") this.usedIds.add(r.tool_call_id);
    }
    if (settings.toolFormat === "native") for (const t of tools) this.nativeDefs.set(t, nativeDefinition(t));
  }

  get hasTools(): boolean {
    return this.tools.length > 0;
  }

  /** The tools the model is shown this turn (active skills narrow them). */
  private shownTools(): readonly ToolSpec[] {
    const tools = this.search ? this.search.order(this.tools) : this.tools;
    return this.skills ? this.skills.scope(tools) : tools;
  }

  private nativeTools(): LlmToolDefinition[] {
    if (this.nativeDefs.size === 0) return [];
    const shown = this.shownTools();
    if (this.search?.native) return this.search.nativeDefinitions(shown, (t) => nativeDefinition(t, true));
    return shown.map((t) => this.nativeDefs.get(t)!);
  }

  /** The tools a call may name: those shown (a deferred tool once
   * promoted). */
  private callable(): ReadonlyMap<string, ToolSpec> {
    const search = this.search;
    if (search === null) return this.toolMap;
    return new Map([...this.toolMap].filter(([, t]) => search.shown(t)));
  }

  systemPrompt(): string | null {
    const parts: string[] = [];
    const section = this.skills?.systemSection() ?? null;
    if (this.start.system) parts.push(section === null ? this.start.system : this.start.system.trimEnd());
    if (section !== null) parts.push(section);
    const s = this.settings;
    if (this.hasTools && s.toolFormat === "text") parts.push(toolContract(this.shownTools(), s.persistent, s.doneSentinel));
    if (s.persistent && !(this.hasTools && s.toolFormat === "text")) {
      parts.push(`Keep working until the task is complete. When it is, end your reply with ${s.doneSentinel}.`);
    } else if (s.persistent) {
      parts.push("Keep working until the task is complete; use the tools to make progress.");
    }
    return parts.length > 0 ? parts.join("\n\n") : null;
  }

  /** The context of the running turn's work (the loop's outside a turn). */
  private get tctx(): CallContext {
    return this.turn?.ctx ?? this.ctx;
  }

  /** End the previous turn, register the next one. */
  private beginTurn(): void {
    this.endTurn();
    const ctx = this.ctx.inSession ? this.ctx.inSession(this.sessionId) : null;
    const handle = turnControl(this.rt).begin(this.ctx.signal, ctx ? () => ctx.cancel() : undefined, { background: this.llm.background === true });
    this.turn = { handle, ctx: ctx ?? { ...bindContext(this.ctx), signal: handle.signal } };
  }

  private endTurn(): void {
    this.turn?.handle.end();
    this.turn = null;
  }

  /** True when the host interrupted the running turn (and the loop itself
   * was not cancelled). */
  private interruptedNow(e?: unknown): boolean {
    if (this.ctx.signal.aborted) return false;
    return (this.turn?.handle.interrupted ?? false) || e instanceof LlmInterrupted;
  }

  async run(): Promise<LoopStatus> {
    try {
      return await this.turns();
    } catch (e) {
      if (!this.interruptedNow(e)) throw e;
      // Interrupted while the model was answering: keep what arrived.
      if (e instanceof LlmInterrupted) this.recordInterruptedReply(e.partial);
      return "interrupted";
    } finally {
      this.endTurn();
    }
  }

  /** A reply's text joins the loop's total text. A daemon is told what was
   * appended: reading the appended part back out of the total would copy
   * the whole (a long string built by `+=` is flattened on first access). */
  private addText(text: string): void {
    this.progress.text += text;
    this.daemon?.textAppended(text);
  }

  /** The partial reply of an interrupted model call, as an assistant
   * message ending in ` [interrupted]`; tool calls still arriving are
   * dropped (they never ran, and a call without a result would break the
   * transcript). */
  private recordInterruptedReply(partial: LlmResponse): void {
    const p = this.progress;
    const text = markInterrupted(partial.text);
    p.iteration++;
    p.inputTokens += partial.input_tokens;
    p.outputTokens += partial.output_tokens;
    this.addText(text);
    p.lastText = text;
    this.messages.push({ role: "assistant", content: text });
  }

  private async turns(): Promise<LoopStatus> {
    const s = this.settings;
    const p = this.progress;
    while (p.iteration < s.maxIterations) {
      this.beginTurn();
      await this.preflight();
      await this.skills?.preflight(this, this.tctx, p.iteration);
      let res: LlmResponse;
      try {
        res = await this.callModel();
      } catch (e) {
        // A turn that would exceed `total_budget_usd` is not sent (§2.7).
        if (e instanceof HarnError && isTotalBudget(e)) return "budget_exhausted";
        throw e;
      }
      p.iteration++;
      p.inputTokens += res.input_tokens;
      p.outputTokens += res.output_tokens;
      this.addText(res.text);
      p.lastText = res.text;
      for (const e of replyEvents(this.rt, res, this.start.options, { tool_calling_mode: s.toolFormat })) this.record(e);
      const { calls, parseErrors, fromText } = this.toolCallsOf(res);
      const sentinel = s.persistent && this.sentinelRequested(res.text);
      if (calls.length > 0) {
        p.consecutiveTextOnly = 0;
        const stop = await this.toolTurn(res, calls, parseErrors, fromText);
        if (stop !== null) return stop;
        if (sentinel) return "done";
        const c = this.compaction;
        if (c?.enabled && estimateTokens(this.messages, this.systemPrompt()) > c.threshold) await this.compact();
      } else {
        this.messages.push({ role: "assistant", content: res.text });
        if (sentinel) {
          if (this.hasTools && !p.toolEverCalled) {
            this.messages.push(
              feedbackMessage("sentinel_without_action", `You signalled completion without calling any tool. Use a tool to make progress before finishing with ${s.doneSentinel}.`),
            );
          } else return "done";
        } else if (parseErrors.length > 0) {
          this.messages.push(feedbackMessage("parse_error", parseErrors.join("\n")));
        } else if (!s.persistent) {
          if (this.daemon === null) return "done";
          // An idle daemon is between turns: Ctrl-C there ends the program.
          this.endTurn();
          const stop = await this.daemon.idle(this);
          if (stop !== null) return stop;
        } else {
          p.consecutiveTextOnly++;
          if (p.consecutiveTextOnly > s.maxNudges) return "stuck";
          const nudge = s.nudge ?? (this.hasTools ? "Continue — use a tool call to make progress." : "Continue — make progress in your reply.");
          this.messages.push(feedbackMessage("nudge", nudge));
        }
      }
      if (s.tokenBudget !== null && p.inputTokens + p.outputTokens >= s.tokenBudget) return "budget_exhausted";
    }
    return s.maxIterations > 0 ? "budget_exhausted" : "done";
  }

  /**
   * Replace the older messages by a summary (§2.14). Not while long-running
   * calls are pending: their later responses are recorded against the
   * original results.
   */
  private async compact(): Promise<void> {
    const c = this.compaction;
    if (c === null || this.progress.pending.length > 0) return;
    const before = estimateTokens(this.messages, null);
    const done = await compactMessages(this.messages, c, { ctx: this.tctx, llm: () => this.llm });
    if (done === null) return;
    this.progress.summary = joinSummary(this.progress.summary ?? null, done.summary);
    const after = estimateTokens(this.messages, null);
    this.record(
      runtimeEvent(this.rt, "compaction", "system", "internal", `Transcript compacted via ${c.strategy}`, HDict.of({
        mode: "auto",
        strategy: c.strategy,
        keep_last: c.keepLast,
        archived_messages: done.archived,
        estimated_tokens_before: before,
        estimated_tokens_after: after,
      })),
    );
  }

  /** Append a runtime event to the loop's transcript (agents-surface.md
   * §1.10). */
  record(event: HDict): void {
    (this.progress.events ??= []).push(toJson(event));
  }

  /** A plan tool's call (workflows.md §5.6): a `plan` event whose
   * metadata holds the normalised plan. */
  recordPlan(tool: string, args: JsonObject): void {
    const plan = planArtifact(fromJson(args), tool);
    const summary = plan.get("summary");
    this.record(runtimeEvent(this.rt, "plan", "assistant", "internal", typeof summary === "string" ? summary : "", HDict.of({ tool, plan })));
  }

  /** Daemon idle point with `consolidate_on_idle` (§2.14, §4.1 step 1):
   * compact when the messages alone reach the threshold. */
  async compactOnIdle(): Promise<void> {
    const c = this.compaction;
    if (c?.enabled && c.onIdle && estimateTokens(this.messages, null) >= c.threshold) await this.compact();
  }

  /** §2.8: yield once, then take this session's (and the root scope's)
   * queued items: call updates for pending long-running calls, everything
   * else as runtime-feedback messages. */
  private async preflight(): Promise<void> {
    this.daemon?.preflight(this);
    const items = await longRunState(this.rt).drainForTurn(this.sessionId);
    for (const item of items) {
      if (!this.applyItem(item, true) && item.kind !== "prefill_assistant") await this.emitFeedbackInjected(item);
    }
  }

  /** The `FeedbackInjected` agent event (§2.8, P2) to the session's
   * `agent_subscribe` callbacks; what a callback throws ends the loop, as
   * for `on_event`. */
  private async emitFeedbackInjected(item: FeedbackItem): Promise<void> {
    const event = HDict.of({ type: "feedback_injected", session_id: this.sessionId, kind: item.kind, content: item.content });
    await emitAgentEvent(this.tctx, this.sessionId, event);
  }

  /** Apply one drained item; returns whether it resolved a pending call.
   * `asFeedback` (a turn's preflight): other items become feedback
   * messages, and the model is told when a pending call's result arrived. */
  private applyItem(item: FeedbackItem, asFeedback: boolean): boolean {
    if (item.kind === TOOL_UPDATE_KIND) {
      const u = parseObject(item.content);
      if (u && typeof u.call_id === "string" && this.applyCallUpdate(u.call_id, u, asFeedback)) return true;
    } else if (item.kind === "tool_result") {
      // Completions carry their handle; an injected progress item names it
      // in its content (`{handle_id, status: "running", …}`).
      const payload = item.payload ?? parseObject(item.content);
      const handleId = item.handleId ?? (typeof payload?.handle_id === "string" ? payload.handle_id : null);
      const call = handleId === null ? undefined : this.progress.pending.find((c) => c.handle_id === handleId);
      if (call) {
        const status = payload?.status;
        this.resolve(call, this.boundItem(item), typeof status === "string" && FINAL_STATUSES.has(status), asFeedback);
        return true;
      }
    }
    if (asFeedback && item.kind === "prefill_assistant") this.prefill = item.content;
    else if (asFeedback) this.messages.push(feedbackMessage(item.kind, this.boundItem(item)));
    return false;
  }

  /** A queued item's content as the model may see it (bounded.ts). */
  private boundItem(item: FeedbackItem): string {
    return this.bound.payload(item.content, item.payload, item.handleId ?? item.kind);
  }

  /** An update `{call_id, status, result?, error?, …}` for a pending call. */
  private applyCallUpdate(callId: string, u: JsonObject, notify: boolean): boolean {
    const call = this.progress.pending.find((c) => c.call_id === callId);
    if (!call) return false;
    const status = typeof u.status === "string" ? u.status : "running";
    const final = FINAL_STATUSES.has(status);
    let text: string;
    if (final && "error" in u) text = `Error: ${typeof u.error === "string" ? u.error : stringifyJsonKeepingFloats(u.error)}`;
    else if (final && "result" in u) text = typeof u.text === "string" ? u.text : stringifyJsonKeepingFloats(u.result);
    else text = typeof u.text === "string" ? u.text : stringifyJsonKeepingFloats(Object.fromEntries(Object.entries(u).filter(([k]) => k !== "call_id" && k !== "text")));
    this.resolve(call, this.bound.text(text, callId), final, notify);
    return true;
  }

  /** Record a later response for a pending call (the latest one is what
   * the model sees, extensions.md §1.5); a final one ends the pending.
   * With `notify` a final one is also announced: the model saw the pending
   * response, and a silent replacement of that slot went unnoticed. */
  resolve(call: PendingCall, text: string, final: boolean, notify = false): void {
    appendUpdate(this.messages, call.call_id, text);
    if (!final) return;
    this.progress.pending = this.progress.pending.filter((c) => c !== call);
    if (notify) this.messages.push(feedbackMessage(PENDING_RESULT_KIND, pendingResultText(call)));
  }

  private async callModel(): Promise<LlmResponse> {
    const built = this.request.build(this.messages);
    const messages = this.prefill === null ? built : [...built, { role: "assistant" as const, content: this.prefill }];
    this.prefill = null;
    try {
      // Structured output applies to the loop's model calls as it does to
      // llm_call (§3.9): corrective re-prompts are request-only, the
      // transcript gets the final reply. A reply that calls tools (natively
      // or in the text protocol) is a step, not the answer: not validated.
      const req = { system: this.systemPrompt(), messages, tools: this.nativeTools() };
      const callsTools = (res: LlmResponse) => res.tool_calls.length > 0 || (this.hasTools && parseTextToolCalls(res.text).calls.length > 0);
      const out = await completeStructured(this.rt, this.llm, req, this.structured, this.tctx.signal, (res) => !callsTools(res));
      if (out.errors.length > 0) {
        if (this.structured.validation === "error") throw schemaError(this.llm, out.errors);
        this.tctx.err(`warning: LLM output failed schema validation: ${out.errors.join("; ")}\n`);
      }
      // The turn's tokens include its schema re-prompts.
      return out.attempts === 1 ? out.res : { ...out.res, input_tokens: out.inputTokens, output_tokens: out.outputTokens };
    } catch (e) {
      if (e instanceof LlmInterrupted && this.ctx.signal.aborted) throw this.ctx.signal.reason;
      // agent_loop does not wrap provider errors (§3.8).
      if (e instanceof LlmError) throw HarnError.categorized(e.message, e.category);
      if (e instanceof LlmSetupError) throw setupError(e);
      throw e;
    }
  }

  /** A call id not used before in this transcript (`id`, else `id_2`, …). */
  private uniqueId(id: string): string {
    let out = id;
    // Start where the last renaming of this id stopped: the mock repeats
    // `mock_call_1` every turn, and probing from 2 each time is quadratic.
    let k = this.nextSuffix.get(id) ?? 2;
    while (this.usedIds.has(out)) out = `${id}_${k++}`;
    this.nextSuffix.set(id, k);
    this.usedIds.add(out);
    return out;
  }

  private toolCallsOf(res: LlmResponse): { calls: ToolCall[]; parseErrors: string[]; fromText: boolean } {
    if (res.tool_calls.length > 0) {
      const calls = res.tool_calls.map((c) => ({ id: this.uniqueId(c.id), name: c.name, arguments: c.arguments as JsonObject }));
      return { calls, parseErrors: [], fromText: false };
    }
    if (!this.hasTools) return { calls: [], parseErrors: [], fromText: false };
    if (this.settings.toolFormat === "native") {
      const fallback = this.settings.nativeToolFallback;
      if (fallback === "reject" || (fallback === "allow_once" && this.textFallbackUsed)) return { calls: [], parseErrors: [], fromText: false };
    }
    const parsed = parseTextToolCalls(res.text);
    if (this.settings.toolFormat === "native" && parsed.calls.length > 0) this.textFallbackUsed = true;
    const n = this.progress.iteration;
    return {
      calls: parsed.calls.map((c, i) => ({ id: this.uniqueId(`text_call_${n}_${i + 1}`), name: c.name, arguments: c.arguments })),
      parseErrors: parsed.errors,
      fromText: true,
    };
  }

  private sentinelRequested(text: string): boolean {
    const s = this.settings.doneSentinel;
    if (this.hasTools && this.settings.toolFormat === "native") return text.includes(s);
    if (!this.hasTools) return visibleText(text).includes(s) || text.includes(s);
    return hasDoneBlock(text, s);
  }

  /** Dispatch a turn's calls; returns a final status when the loop must
   * stop, else null. */
  private async toolTurn(res: LlmResponse, calls: ToolCall[], parseErrors: string[], fromText: boolean): Promise<LoopStatus | null> {
    const s = this.settings;
    const p = this.progress;
    if (s.toolFormat === "native") {
      this.messages.push({
        role: "assistant",
        content: res.text,
        tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
      });
    } else {
      this.messages.push({ role: "assistant", content: fromText ? res.text : canonicalText(res.text, calls) });
    }
    // §2.6 step 9: results in the answering provider's style.
    const shape: ResultShape = agentClient(this.rt).wireStyle(res.provider) === "anthropic" ? "anthropic" : "openai";
    const outcomes: CallOutcome[] = [];
    const results: CallResult[] = [];
    const newPending: PendingCall[] = [];
    const observer = turnControl(this.rt).observer;
    // After an interruption the remaining calls do not run, but every call
    // still gets a result, so the transcript stays valid for a later turn.
    let interrupted = false;
    for (const call of calls) {
      let out: CallOutcome;
      if (interrupted) out = { name: call.name, text: NOT_RUN_TEXT, status: "error", ran: false, value: null };
      else {
        observer?.toolCall?.(call.name, call.arguments);
        try {
          const permit = this.gate ? await this.gate.check(call, this.tctx, this.toolMap.get(call.name)?.annotations ?? null) : { meta: {} };
          if (this.search?.isSearchCall(call) && !isRefusal(permit)) out = await this.search.call(this, this.tctx, call);
          else if (isRefusal(permit)) out = { name: call.name, text: denial(call.name, permit.reason), status: "rejected", ran: true, value: null, eventMeta: permit.meta };
          else {
            out = await dispatchCall(call, this.callable(), this.tctx, this.builtins, () => this.record(toolIntentEvent(this.rt, call.name, call.id, call.arguments)), this.mcp);
            out.eventMeta = { ...permit.meta, ...out.eventMeta };
          }
        } catch (e) {
          if (!this.interruptedNow()) throw e;
          interrupted = true;
          out = { name: call.name, text: INTERRUPTED_TOOL_TEXT, status: "error", ran: true, value: null };
        }
        observer?.toolResult?.(call.name, out.status, out.text);
      }
      this.record(toolExecutionEvent(this.rt, executionInfo(call, out)));
      if (out.status === "ok" && (call.name === "emit_plan" || call.name === "update_plan")) this.recordPlan(call.name, call.arguments);
      outcomes.push(out);
      if (out.ran) {
        p.calls.push(call.name);
        p.toolEverCalled = true;
      }
      if (out.status === "ok" && !p.successful.includes(call.name)) p.successful.push(call.name);
      if (out.status === "rejected" && !p.rejected.includes(call.name)) p.rejected.push(call.name);
      const text = this.bound.text(out.text, call.id);
      results.push({ tool_call_id: call.id, name: call.name, text });
      if (s.toolFormat === "native") this.messages.push(toolMessage(call.id, text, shape, out.status !== "ok"));
      const tool = this.toolMap.get(call.name);
      if (tool?.longRunning && out.status === "ok") newPending.push(pendingCall(call, out.value));
    }
    if (s.toolFormat !== "native") this.messages.push(textResultsMessage(results, newPending.length > 0));
    if (parseErrors.length > 0) this.messages.push(feedbackMessage("parse_guidance", parseErrors.join("\n")));
    p.pending.push(...newPending);
    p.consecutiveSingleToolTurns = calls.length === 1 ? p.consecutiveSingleToolTurns + 1 : 0;
    if (interrupted) return "interrupted";
    if (newPending.length > 0) {
      if (s.onPending === "yield") return "input_required";
      if (s.onPending === "wait") await this.waitFor(newPending);
    }
    if (s.postTurnCallback !== null && (await this.postTurn(outcomes))) return "done";
    if (s.stopAfterSuccessfulTools && outcomes.some((o) => o.status === "ok" && s.stopAfterSuccessfulTools!.includes(o.name))) return "done";
    return null;
  }

  /** `post_turn_callback(info)`: nil/"" nothing, a string is injected,
   * `true` or `{stop: true}` stops the loop. */
  private async postTurn(outcomes: CallOutcome[]): Promise<boolean> {
    const p = this.progress;
    const names = outcomes.map((o) => o.name);
    const info = HDict.of({
      tool_names: names,
      tool_results: outcomes.map((o) => HDict.of({ tool_name: o.name, status: o.status, rejected: o.status === "rejected" })),
      successful_tool_names: outcomes.filter((o) => o.status === "ok").map((o) => o.name),
      tool_count: outcomes.length,
      // The turn's index, the `iteration` of `for iteration in 0 ..< max_iterations`
      // (agents.md §2.7); `p.iteration` already counts this turn.
      iteration: p.iteration - 1,
      failed: outcomes.some((o) => o.status !== "ok"),
      consecutive_single_tool_turns: p.consecutiveSingleToolTurns,
      session_tools_used: p.calls.slice(),
      session_successful_tools: p.successful.slice(),
    });
    let r = this.tctx.call(this.settings.postTurnCallback, [info]);
    if (isPromise<Value>(r)) r = await r;
    if (r === true) return true;
    if (typeof r === "string") {
      if (r !== "") this.messages.push(feedbackMessage("post_turn_callback", r));
      return false;
    }
    if (r instanceof HDict) {
      const m = r.get("message");
      if (typeof m === "string" && m !== "") this.messages.push(feedbackMessage("post_turn_callback", m));
      return truthy(r.get("stop"));
    }
    return false;
  }

  /**
   * `on_pending: "wait"`: block until every call of the batch has a final
   * result — its handle's completion, or an `agent_resolve` — bounded by
   * `pending_timeout_ms`. Never polls: it wakes on queue pushes and handle
   * settlement; every timer and listener is released on exit.
   */
  private async waitFor(batch: PendingCall[]): Promise<void> {
    const lr = longRunState(this.rt);
    const deadline = this.rt.clock.monotonic() + this.settings.pendingTimeoutMs;
    const open = () => batch.filter((c) => this.progress.pending.includes(c));
    for (;;) {
      const ids = new Set(open().map((c) => c.call_id));
      const handles = new Set(open().flatMap((c) => (c.handle_id ? [c.handle_id] : [])));
      const mine = lr.drain(
        (it) =>
          (it.kind === TOOL_UPDATE_KIND && (it.sessionId === this.sessionId || it.sessionId === "") && ids.has(parseObject(it.content)?.call_id as string)) ||
          (it.kind === "tool_result" && it.handleId !== null && handles.has(it.handleId)),
      );
      for (const it of mine) this.applyItem(it, false);
      for (const c of open()) {
        if (c.handle_id && !lr.isRunning(c.handle_id) && lr.findPayload(c.handle_id) === null) {
          this.resolve(c, `Error: the operation behind this call (handle ${c.handle_id}) was cancelled`, true);
        }
      }
      const left = open();
      if (left.length === 0) return;
      const remaining = deadline - this.rt.clock.monotonic();
      if (remaining <= 0) {
        for (const c of left) this.resolve(c, `Error: tool call ${c.call_id} (${c.tool}) did not finish within ${this.settings.pendingTimeoutMs} ms`, true);
        return;
      }
      await this.wake(remaining, left);
    }
  }

  private wake(ms: number, calls: PendingCall[]): Promise<void> {
    const lr = longRunState(this.rt);
    const round = new AbortController();
    const signal = this.tctx.signal;
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        off();
        cancelTimer();
        signal.removeEventListener("abort", onAbort);
        round.abort();
        if (error !== undefined) reject(error);
        else resolve();
      };
      const onAbort = () => finish(signal.reason);
      const off = lr.onFeedback(() => finish());
      const cancelTimer = this.rt.clock.timer(ms, () => finish());
      signal.addEventListener("abort", onAbort, { once: true });
      // A cancelled handle pushes nothing; its settlement wakes us too.
      for (const c of calls) {
        if (!c.handle_id) continue;
        lr.waitForPayload(c.handle_id, null, round.signal).then(
          (item) => {
            if (item) this.applyItem(item, false);
            finish();
          },
          () => {},
        );
      }
      if (signal.aborted) onAbort();
    });
  }

  result(status: LoopStatus, durationMs: number, anonymous: boolean): HDict {
    let final = status;
    const req = this.settings.requireSuccessfulTools;
    if (final === "done" && req && !req.some((n) => this.progress.successful.includes(n))) final = "failed";
    return resultDict({
      rt: this.rt,
      status: final,
      sessionId: this.sessionId,
      messages: this.messages,
      progress: this.progress,
      durationMs,
      toolMode: this.settings.toolFormat,
      resume: final === "input_required" ? this.resumeState(anonymous) : null,
      daemon: this.daemon?.resultInfo(),
    });
  }

  /** What `agent_resume` needs besides the transcript (extensions.md §1.4). */
  resumeState(anonymous: boolean): JsonObject {
    const options = (dataOnly(this.start.options.without("tools").without("messages")) ?? {}) as JsonObject;
    return {
      version: 1,
      session_id: this.sessionId,
      anonymous,
      system: this.start.system,
      options,
      tools: this.tools
        .filter((t) => t.builtin === null)
        .map((t) => ({
          name: t.name,
          description: t.description,
          parameters: toJson(t.parameters),
          executor: t.executor,
          long_running: t.longRunning,
        })),
      progress: structuredClone(this.progress) as unknown as Json,
    };
  }
}

/** What the `tool_execution` event of a call says: refusals (denials,
 * unusable arguments) are `rejected`. */
function executionInfo(call: ToolCall, out: CallOutcome): ExecutionInfo {
  const rejected = out.status === "rejected" || !out.ran;
  const extra: Record<string, Value> = {};
  if (out.status === "rejected") extra.error_category = "permission_denied";
  else if (!out.ran) extra.error_category = "invalid_arguments";
  return { name: call.name, id: call.id, args: call.arguments, text: out.text, rejected, extra: { ...extra, ...out.eventMeta } };
}

/** Result texts of the calls of an interrupted tool batch. */
const INTERRUPTED_TOOL_TEXT = "Error: interrupted by the user (Ctrl-C) while this tool was running";
const NOT_RUN_TEXT = "Error: not run: the user interrupted this turn (Ctrl-C) before this tool started";

/** A context whose calls behave like `ctx`'s but whose signal is replaced
 * (hand-made contexts without `inSession`, as in unit tests). */
function bindContext(ctx: CallContext): Omit<CallContext, "signal"> {
  return {
    runtime: ctx.runtime,
    call: (fn, args) => ctx.call(fn, args),
    prepare: (fn) => ctx.prepare(fn),
    out: (t) => ctx.out(t),
    err: (t) => ctx.err(t),
    span: ctx.span,
    task: ctx.task,
    sessionId: ctx.sessionId,
    sourceFile: ctx.sourceFile,
  };
}

function pendingCall(call: ToolCall, initial: Value): PendingCall {
  const handle = initial instanceof HDict ? initial.get("handle_id") : null;
  return {
    call_id: call.id,
    tool: call.name,
    args: call.arguments,
    initial: toJson(initial),
    handle_id: typeof handle === "string" ? handle : null,
  };
}

function parseObject(text: string): JsonObject | null {
  try {
    const v = parseJsonKeepingFloats(text) as Json;
    return isJsonObject(v) ? v : null;
  } catch {
    return null;
  }
}
