/**
 * One run of a sub-agent (spec/agents-surface.md §3.3–§3.6): the child
 * session under the caller's, the child loop, and the result envelope
 * `{ok, summary, artifacts, evidence_added, tokens_used, budget_exceeded,
 * data, error, session_id, transcript}`. The parent's transcript gets only
 * `sub_agent_start` / `sub_agent_result` events, never the child's
 * messages.
 */
import { display, HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { errorCategory } from "../../core/assert";
import { extractJsonText, parseJson, stringifyJson } from "../../core/json";
import { validate } from "../../schema/validate";
import { runAgentLoop } from "../loop/start";
import { forkSession } from "../session_builtins";
import { agentSessions } from "../sessions";
import { visibleText } from "../tools/text_protocol";
import { assetsOf, buildTranscript, eventsOf, messagesOf, partsOf, runtimeEvent } from "../transcript/values";
import type { SubAgentSpec } from "./spec";

/** §2.4: the child session, forked from the caller's stored session when
 * there is one (so a named parent's conversation is visible), else
 * created, and linked under the caller's session. */
function openChild(rt: Runtime, parent: string | null, child: string): void {
  const sessions = agentSessions(rt);
  if (parent === null) {
    sessions.open(child);
    return;
  }
  if (sessions.has(parent) && parent !== child) forkSession(rt, parent, child);
  else sessions.link(parent, child);
}

/** Append a runtime event to a stored session's transcript. */
function appendEvent(rt: Runtime, sessionId: string, kind: string, text: string, metadata: HDict): void {
  const s = agentSessions(rt).get(sessionId);
  if (!s) return;
  const p = partsOf(s.transcript, true);
  s.transcript = buildTranscript(rt, { ...p, extras: [...(p.extras ?? []), runtimeEvent(rt, kind, "system", "internal", text, metadata)] });
}

function tokensUsed(transcript: Value): number {
  let n = 0;
  if (!(transcript instanceof HDict)) return 0;
  for (const e of eventsOf(transcript)) {
    const md = e instanceof HDict ? e.get("metadata") : null;
    if (!(md instanceof HDict)) continue;
    for (const k of ["input_tokens", "output_tokens"]) {
      const v = md.get(k);
      if (typeof v === "number") n += v;
    }
  }
  return n;
}

/** Parsed JSON in `text` (as `json_extract` finds it), else undefined. */
function jsonIn(text: string): Value | undefined {
  if (text.trim() === "") return undefined;
  try {
    return parseJson(extractJsonText(text));
  } catch {
    return undefined;
  }
}

interface Synthesis {
  summary: string;
  candidate: Value | undefined;
}

/** §3.6: the summary text and the JSON candidate of a finished loop. */
function synthesize(result: HDict, transcript: HDict, jsonWanted: boolean): Synthesis {
  const str = (v: Value) => (typeof v === "string" ? v : "");
  const raw = str(result.get("visible_text")) || str(result.get("text"));
  const visible = visibleText(raw).trim();
  const direct = jsonIn(visible !== "" ? visible : raw.trim());
  let fallback: Value | undefined;
  let fallbackText: string | null = null;
  const consider = (text: string) => {
    if (text.trim() === "") return;
    if (fallback === undefined) fallback = jsonIn(text);
    const clean = visibleText(text).trim();
    if (fallbackText === null && clean !== "") fallbackText = clean;
  };
  for (const m of messagesOf(transcript).slice().reverse()) {
    if (!(m instanceof HDict) || m.get("role") !== "assistant") continue;
    const c = m.get("content");
    consider(typeof c === "string" ? c : c instanceof HDict ? stringifyJson(c) : "");
  }
  if (fallback === undefined || fallbackText === null) {
    for (const e of eventsOf(transcript).slice().reverse()) {
      if (e instanceof HDict && e.get("role") === "assistant") consider(str(e.get("text")));
    }
  }
  const summary = transcript.get("summary");
  if (typeof summary === "string") consider(summary);
  const candidate = direct ?? fallback;
  const candidateText = candidate === undefined ? null : stringifyJson(candidate);
  const tSummary = typeof summary === "string" && summary !== "" ? summary : null;
  const pick = (...xs: (string | null)[]) => xs.find((x) => x !== null && x !== "") ?? "";
  const text = jsonWanted
    ? pick(candidateText, visible, fallbackText, tSummary, raw.trim())
    : pick(visible, fallbackText, candidateText, tSummary, raw);
  return { summary: text, candidate };
}

/** §3.4 step 3: the last rejected call, when it was a permission denial. */
function permissionError(transcript: HDict): HDict | null {
  for (const e of eventsOf(transcript).slice().reverse()) {
    if (!(e instanceof HDict)) continue;
    const md = e.get("metadata");
    if (!(md instanceof HDict) || md.get("rejected") !== true) continue;
    const j = jsonIn(typeof e.get("text") === "string" ? (e.get("text") as string) : "");
    if (j instanceof HDict && j.get("error") === "permission_denied") {
      const reason = j.get("reason");
      return HDict.of({ category: "permission_denied", message: typeof reason === "string" ? reason : "permission denied", tool: j.get("tool") });
    }
    return null;
  }
  return null;
}

function envelope(fields: Record<string, Value>): HDict {
  return HDict.of(fields);
}

/** The error of a child loop that failed outright (§3.4 step 1). */
function failureError(e: HarnError): HDict {
  if (e.kind === "categorized") return HDict.of({ category: e.category ?? "generic", message: e.message });
  if (e.kind === "thrown" && typeof e.value === "string") return HDict.of({ category: "runtime", message: e.value });
  const v = e.caughtValue();
  if (e.kind === "runtime") return HDict.of({ category: "runtime", message: e.message });
  return HDict.of({ category: errorCategory(v), message: display(v) });
}

/**
 * Run the sub-agent once and build its envelope. The child loop runs in
 * the caller's context, so the caller's policy is its ceiling and its
 * handlers see the child's session id.
 */
export async function runSubAgent(ctx: CallContext, spec: SubAgentSpec, parentSession: string | null, carried?: HDict): Promise<HDict> {
  const rt = ctx.runtime;
  openChild(rt, parentSession, spec.sessionId);
  // A worker's next run continues from the transcript it carries (§4.5).
  if (carried !== undefined) agentSessions(rt).storeTranscript(spec.sessionId, carried, null);
  if (parentSession !== null) {
    appendEvent(rt, parentSession, "sub_agent_start", spec.task, HDict.of({ name: spec.name, child_session_id: spec.sessionId, task: spec.task }));
  }
  let result: HDict;
  try {
    result = await runAgentLoop(ctx, { task: spec.task, system: spec.system, options: spec.options });
  } catch (e) {
    if (ctx.signal.aborted || !(e instanceof HarnError)) throw e;
    const s = agentSessions(rt).get(spec.sessionId);
    const transcript = s ? s.transcript : HDict.empty();
    return envelope({
      ok: false,
      summary: "",
      artifacts: [],
      evidence_added: 0,
      tokens_used: tokensUsed(transcript),
      budget_exceeded: false,
      data: null,
      error: failureError(e),
      session_id: spec.sessionId,
      transcript,
    });
  }
  const transcript = result.get("transcript") as HDict;
  const jsonWanted = spec.returnsSchema !== null || spec.wantsJson;
  const { summary, candidate } = synthesize(result, transcript, jsonWanted);
  let data: Value = null;
  let error: HDict | null = null;
  if (spec.returnsSchema !== null) {
    if (candidate === undefined) error = HDict.of({ category: "schema_validation", message: "sub_agent_run: child transcript did not contain valid JSON" });
    else {
      const v = validate(rt, candidate, spec.returnsSchema, false);
      data = v.value;
      if (v.errors.length > 0) error = HDict.of({ category: "schema_validation", message: `sub_agent_run: return schema validation failed: ${v.errors.join("; ")}` });
    }
  } else if (spec.wantsJson && candidate !== undefined) data = candidate;
  error ??= permissionError(transcript);
  const artifacts = assetsOf(transcript);
  const used = tokensUsed(transcript);
  const out = envelope({
    ok: error === null,
    summary,
    artifacts,
    evidence_added: artifacts.length,
    tokens_used: used,
    budget_exceeded: spec.tokenBudget !== null && used >= spec.tokenBudget,
    data,
    error,
    session_id: spec.sessionId,
    transcript,
  });
  if (parentSession !== null) {
    appendEvent(rt, parentSession, "sub_agent_result", summary, HDict.of({
      name: spec.name,
      child_session_id: spec.sessionId,
      ok: error === null,
      summary,
      evidence_added: artifacts.length,
      budget_exceeded: out.get("budget_exceeded"),
      error,
    }));
  }
  return out;
}
