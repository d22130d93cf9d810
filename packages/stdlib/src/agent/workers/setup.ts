/**
 * Building a worker (spec/agents-surface.md §4.3–§4.5): the request record
 * computed once from the first task, the carry policy, the audit record
 * and the execution settings.
 */
import { display, HarnError, HDict, type Value } from "@harn/vm";
import type { CarryPolicy } from "./worker";

const LISTS: readonly [string, string, string][] = [
  ["research_questions", "research_questions", "questions"],
  ["action_items", "action_items", "actions"],
  ["workflow_stages", "workflow_stages", "stages"],
  ["verification_steps", "verification_steps", "verification"],
];

function listOf(v: Value): Value[] {
  if (v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/** Whether `source` carries any of the request keys. */
export function hasRequestKeys(source: HDict): boolean {
  return source.get("request") !== null || LISTS.some(([, a, b]) => listOf(source.get(a)).length > 0 || listOf(source.get(b)).length > 0);
}

/** §4.4 `request`: `{task, system, payload, research_questions,
 * action_items, workflow_stages, verification_steps}`. */
export function requestRecord(task: string, system: Value, source: HDict): HDict {
  const m = new Map<string, Value>([
    ["task", task],
    ["system", system],
  ]);
  const lists = new Map<string, Value>();
  for (const [key, a, b] of LISTS) {
    const first = listOf(source.get(a));
    const items = first.length > 0 ? first : listOf(source.get(b));
    m.set(key, items);
    if (items.length > 0) lists.set(key, items);
  }
  const explicit = source.get("request");
  m.set("payload", explicit !== null ? explicit : lists.size > 0 ? new HDict(lists) : null);
  return new HDict(m);
}

const TRANSCRIPT_MODES = ["inherit", "fork", "reset", "compact"];

/** §4.5 `carry` (absent keys take their defaults). */
export function carryPolicy(v: Value): CarryPolicy {
  const c = v instanceof HDict ? v : HDict.empty();
  let mode = c.get("transcript_mode") ?? c.get("transcript");
  if (mode instanceof HDict) mode = mode.get("mode");
  const transcriptMode = mode === null ? "inherit" : display(mode);
  if (!TRANSCRIPT_MODES.includes(transcriptMode)) {
    throw HarnError.runtime(`spawn_agent: carry.transcript_mode must be one of inherit, fork, reset, compact; got \`${transcriptMode}\``);
  }
  const artifacts = c.get("artifacts");
  const artifactMode = c.get("artifact_mode") ?? (typeof artifacts === "string" ? artifacts : null);
  return {
    artifactMode: artifactMode === null ? "inherit" : display(artifactMode),
    transcriptMode,
    contextPolicy: c.get("context_policy") ?? (artifacts instanceof HDict ? artifacts : null),
    resumeWorkflow: c.get("resume_workflow") !== false,
    persistState: c.get("persist_state") !== false,
    retriggerable: c.get("retriggerable") === true,
    policy: c.get("policy"),
  };
}

/** `execution: {cwd?, env?, worktree?}`. */
export function executionOf(v: Value): HDict {
  const e = v instanceof HDict ? v : HDict.empty();
  return HDict.of({ cwd: e.get("cwd"), env: e.get("env"), worktree: e.get("worktree") });
}

export function auditOf(base: Record<string, Value>, overrides: Value): HDict {
  let d = HDict.of({ mutation_scope: "read_only", approval_policy: null, run_id: null, execution_kind: null, ...base });
  if (overrides instanceof HDict) for (const k of overrides.keys()) d = d.with(k, overrides.get(k));
  return d;
}
