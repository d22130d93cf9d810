/**
 * `workflow_execute` (spec/workflows.md §1.5, §1.8, §1.9): the run record,
 * the ready queue with join gating, stage records and transitions,
 * checkpoints written to the persist path, deterministic replay, and the
 * trigger event.
 */
import { writeFileSync } from "node:fs";
import nodePath from "node:path";
import { display, HarnError, HDict, type CallContext, type Value } from "@harn/vm";
import { uuidV7 } from "../../core/encoding";
import { stringifyJsonKeepingFloats, toJson } from "../../core/json";
import { osErrorText } from "../../core/oserror";
import { resolvePath } from "../../core/paths";
import { fail, normalizeArtifact } from "../artifacts/record";
import { normalizeGraph } from "../graph/normalize";
import { BUILTIN_CEILING, validateGraph, validationDict } from "../graph/validate";
import { loadRun } from "../records/builtins";
import { normalizeRun, normalizeUsage } from "../records/run_record";
import { executeNode } from "./nodes";
import { callBuiltin, dict, list, str, type NodeResult, type StageEnv } from "./stage";
import { makeDirsSync } from "../../core/make-dirs";

const dicts = (v: Value): HDict[] => list(v).filter((x): x is HDict => x instanceof HDict);

const TRIGGER_KEYS = ["id", "provider", "kind", "received_at", "occurred_at", "dedupe_key", "trace_id", "tenant_id", "headers", "provider_payload", "signature_status"];

/** §1.9: the trigger event, normalised (every key present). */
function triggerEvent(v: Value): HDict {
  if (!(v instanceof HDict)) throw fail(`workflow_execute: trigger_event parse error: expected a dict, got ${display(v)}`);
  const m: Record<string, Value> = {};
  for (const k of TRIGGER_KEYS) m[k] = v.get(k) ?? (k === "headers" ? HDict.empty() : null);
  for (const k of ["id", "provider", "kind"]) {
    if (typeof m[k] !== "string") throw fail(`workflow_execute: trigger_event parse error: missing field \`${k}\``);
  }
  return HDict.of(m);
}

/** The keys of the executing node's record copied into stage metadata. */
const NODE_META = ["model_policy", "auto_compact", "output_visibility", "context_policy", "retry_policy", "input_contract", "output_contract"];
/** The produced metadata keys a replayed stage keeps (§1.8). */
const PRODUCED_META = ["worker", "worker_id", "error", "prompt", "system_prompt", "rendered_context", "verification_contracts", "rendered_verification_context", "selected_artifact_ids", "selected_artifact_titles", "tool_calling_mode"];

class Run {
  record: HDict;
  constructor(
    private readonly ctx: CallContext,
    record: HDict,
    readonly path: string,
  ) {
    this.record = record;
  }
  set(key: string, v: Value): void {
    this.record = this.record.with(key, v);
  }
  get(key: string): Value {
    return this.record.get(key);
  }
  meta(key: string, v: Value): void {
    this.set("metadata", dict(this.get("metadata")).with(key, v));
  }
  checkpoint(ready: string[], completed: string[], lastStage: Value, reason: string): void {
    const rt = this.ctx.runtime;
    const cp = HDict.of({ id: `checkpoint_${uuidV7(rt)}`, ready_nodes: ready.slice(), completed_nodes: completed.slice(), last_stage_id: lastStage, persisted_at: uuidV7(rt), reason });
    this.set("checkpoints", [...list(this.get("checkpoints")), cp]);
    this.set("pending_nodes", ready.slice());
    this.set("completed_nodes", completed.slice());
    this.set("persisted_path", this.path);
    const full = resolvePath(rt, this.path);
    try {
      makeDirsSync(nodePath.dirname(full));
      writeFileSync(full, stringifyJsonKeepingFloats(toJson(normalizeRun(rt, this.record)), 2) + "\n");
    } catch (e) {
      throw fail(`workflow_execute: failed to persist run to ${this.path}: ${osErrorText(e)}`);
    }
  }
}

function sumUsage(stages: HDict[]): HDict {
  const t = { input_tokens: 0, output_tokens: 0, total_duration_ms: 0, call_count: 0 };
  const models: Value[] = [];
  for (const s of stages) {
    const u = s.get("usage");
    if (!(u instanceof HDict)) continue;
    for (const k of Object.keys(t) as (keyof typeof t)[]) {
      const v = u.get(k);
      if (typeof v === "number") t[k] += v;
    }
    for (const m of list(u.get("models"))) if (!models.includes(m)) models.push(m);
  }
  return normalizeUsage(HDict.of({ ...t, models }));
}

/** The next stage of a deterministic replay, checked against `nodeId`. */
function replayStage(source: HDict[], nodeId: string): HDict {
  const next = source.shift();
  if (next === undefined) throw fail(`workflow replay exhausted before node ${nodeId}`);
  if (next.get("node_id") !== nodeId) throw fail(`workflow replay mismatch: expected node ${nodeId}, next replay stage is ${display(next.get("node_id"))}`);
  return next;
}

function replayed(stage: HDict): NodeResult {
  const meta = dict(stage.get("metadata"));
  const kept: Record<string, Value> = {};
  for (const k of PRODUCED_META) if (meta.has(k)) kept[k] = meta.get(k);
  return {
    status: str(stage.get("status")) ?? "completed",
    outcome: str(stage.get("outcome")) ?? "success",
    branch: str(stage.get("branch")) ?? "success",
    text: str(stage.get("visible_text")) ?? "",
    artifacts: dicts(stage.get("artifacts")),
    transcript: stage.get("transcript"),
    verification: stage.get("verification"),
    usage: stage.get("usage"),
    consumed: list(stage.get("consumed_artifact_ids")).map((x) => display(x)),
    meta: kept,
    kind: str(stage.get("kind")) ?? undefined,
  };
}

/** A node that failed is a failed stage, not an aborted run (§1.5). */
function failedResult(e: unknown): NodeResult {
  const text = e instanceof HarnError ? (e.kind === "runtime" ? e.message : display(e.caughtValue())) : String(e);
  return { status: "failed", outcome: "error", branch: "error", text: "", artifacts: [], transcript: null, verification: null, usage: null, consumed: [], meta: { error: text } };
}

/** The `transcript` option (a seed): its messages go into a fresh agent
 * session that every stage without a session of its own continues. */
async function seeded(ctx: CallContext, options: HDict): Promise<HDict> {
  const t = options.get("transcript");
  if (!(t instanceof HDict) || options.get("session_id") !== null) return options;
  const sid = await callBuiltin(ctx, "agent_session_open", [null]);
  for (const m of list(t.get("messages"))) await callBuiltin(ctx, "agent_session_inject", [sid, m]);
  return options.with("session_id", sid);
}

export async function workflowExecute(ctx: CallContext, args: Value[]): Promise<HDict> {
  const rt = ctx.runtime;
  const taskArg = args[0] ?? null;
  const task = taskArg === null ? "" : typeof taskArg === "string" ? taskArg : display(taskArg);
  const graphArg = args[1] ?? null;
  if (!(graphArg instanceof HDict)) throw fail("workflow_execute: missing workflow");
  const graph = normalizeGraph(rt, graphArg);
  const artsArg = args[2] ?? null;
  if (artsArg !== null && !Array.isArray(artsArg)) throw fail("expected artifact list or nil");
  const inputArtifacts = dicts(artsArg).map((a) => normalizeArtifact(rt, a));
  const options = dict(args[3] ?? null);

  const ceiling = BUILTIN_CEILING();
  const validation = validateGraph(graph, ceiling);
  if (!validation.valid) throw fail(`workflow_execute: invalid workflow: ${validation.errors.join("; ")}`);
  const nodes = dict(graph.get("nodes"));

  // Replay source (§1.8).
  const replayMode = str(options.get("replay_mode"));
  let replaySource: HDict | null = null;
  if (options.get("replay_run") instanceof HDict) replaySource = normalizeRun(rt, options.get("replay_run") as HDict);
  else if (typeof options.get("replay_path") === "string") replaySource = loadRun(rt, options.get("replay_path") as string, "workflow_execute");
  if (replayMode === "deterministic" && replaySource === null) throw fail("replay_mode requires replay_run or replay_path");
  const replayQueue = replayMode === "deterministic" && replaySource !== null ? dicts(replaySource.get("stages")) : null;

  // The run record: resumed or new.
  let resumed: HDict | null = null;
  if (options.get("resume_run") instanceof HDict) resumed = normalizeRun(rt, options.get("resume_run") as HDict);
  else if (typeof options.get("resume_path") === "string") resumed = loadRun(rt, options.get("resume_path") as string, "workflow_execute");
  const trigger = options.get("trigger_event") === null ? null : triggerEvent(options.get("trigger_event"));
  const runId = resumed ? display(resumed.get("id")) : uuidV7(rt);
  const runDir = rt.env.HARN_RUN_DIR ?? ".harn-runs";
  const given = str(options.get("persist_path"));
  const path = given !== null && given !== "" ? given : resumed && str(resumed.get("persisted_path")) ? (resumed.get("persisted_path") as string) : nodePath.join(runDir, `${uuidV7(rt)}.json`);
  const entry = display(graph.get("entry"));
  const base =
    resumed ??
    normalizeRun(
      rt,
      HDict.of({
        id: runId,
        workflow_id: graph.get("id"),
        workflow_name: graph.get("name"),
        task,
        status: "running",
        started_at: uuidV7(rt),
        pending_nodes: [entry],
        artifacts: inputArtifacts,
        policy: ceiling,
        execution: options.get("execution"),
        parent_run_id: str(options.get("parent_run_id")),
        root_run_id: str(options.get("root_run_id")) ?? runId,
      }),
    );
  const run = new Run(ctx, base.with("status", "running"), path);
  const maxStepsOpt = options.get("max_steps");
  const maxSteps = Math.max(1, typeof maxStepsOpt === "number" ? maxStepsOpt : 4 * nodes.size);
  run.meta("effective_policy", graph.get("capability_policy"));
  for (const k of ["parent_worker_id", "parent_stage_id", "parent_run_id"]) if (options.get(k) !== null) run.meta(k, options.get(k));
  if (options.get("delegated") === true) run.meta("delegated", true);
  run.meta("root_run_id", run.get("root_run_id"));
  if (options.get("execution") !== null) run.meta("execution", options.get("execution"));
  if (options.get("mutation_scope") !== null) run.meta("mutation_session", options.get("mutation_scope"));
  if (dict(graph.get("metadata")).size > 0) run.meta("workflow_metadata", graph.get("metadata"));
  if (trigger !== null) {
    run.meta("trigger_event", trigger);
    run.meta("trace_id", trigger.get("trace_id"));
  }
  run.meta("workflow_version", graph.get("version"));
  run.meta("validation", validationDict(validation));
  run.meta("max_steps", maxSteps);
  if (dicts(run.get("stages")).length > 0) run.meta("resumed", true);
  if (replayQueue !== null) {
    run.meta("replay_mode", "deterministic");
    run.meta("replayed_from", replaySource!.get("id"));
  }

  const env: StageEnv = { ctx, task, options: await seeded(ctx, options), graph };
  let artifacts = dicts(run.get("artifacts"));
  const pending = list(run.get("pending_nodes")).map((x) => display(x));
  const queue = pending.length > 0 ? pending : resumed ? [] : [entry];
  const completed = list(run.get("completed_nodes")).map((x) => display(x));
  let lastStage: Value = null;
  let lastTranscript: Value = null;
  run.checkpoint(queue, completed, lastStage, "start");
  const edges = dicts(graph.get("edges"));
  let steps = 0;
  while (steps < maxSteps && queue.length > 0) {
    steps++;
    const nodeId = queue.shift()!;
    const node = nodes.get(nodeId);
    if (!(node instanceof HDict)) throw fail(`workflow_execute: missing node ${nodeId}`);
    const kind = str(node.get("kind")) ?? "stage";
    if (kind === "join") {
      const jp = dict(node.get("join_policy"));
      const incoming = [...new Set(edges.filter((e) => e.get("to") === nodeId).map((e) => display(e.get("from"))))];
      const min = jp.get("min_completed");
      const required = typeof min === "number" ? min : jp.get("require_all_inputs") === true || (str(jp.get("strategy")) ?? "all") === "all" ? incoming.length : 1;
      if (incoming.filter((s) => completed.includes(s)).length < required) {
        if (!queue.includes(nodeId)) queue.push(nodeId);
        continue;
      }
    }
    const startedAt = uuidV7(rt);
    let r: NodeResult;
    if (replayQueue !== null) r = replayed(replayStage(replayQueue, nodeId));
    else {
      try {
        r = await executeNode(env, node, artifacts);
      } catch (e) {
        if (ctx.signal.aborted || !(e instanceof HarnError)) throw e;
        r = failedResult(e);
      }
    }
    artifacts = [...artifacts, ...r.artifacts];
    const stages = dicts(run.get("stages"));
    const stageId = `${runId}:${nodeId}:${stages.length + 1}`;
    const meta: Record<string, Value> = {};
    for (const k of NODE_META) meta[k] = node.get(k);
    meta.effective_capability_policy = node.get("capability_policy");
    Object.assign(meta, r.meta);
    const produced = r.artifacts.map((a) => a.get("id"));
    const attempt = HDict.of({ attempt: 1, status: r.status, outcome: r.outcome, branch: r.branch, error: r.meta.error ?? null, verification: r.verification, started_at: startedAt, finished_at: uuidV7(rt) });
    const stage = HDict.of({
      id: stageId,
      node_id: nodeId,
      kind: r.kind ?? kind,
      status: r.status,
      outcome: r.outcome,
      branch: r.branch,
      started_at: startedAt,
      finished_at: uuidV7(rt),
      visible_text: r.text,
      private_reasoning: null,
      transcript: r.transcript,
      verification: r.verification,
      usage: r.usage,
      artifacts: r.artifacts,
      consumed_artifact_ids: r.consumed,
      produced_artifact_ids: produced,
      attempts: [attempt],
      metadata: HDict.of(meta),
    });
    run.set("stages", [...stages, stage]);
    run.set("artifacts", artifacts);
    if (r.transcript !== null) lastTranscript = r.transcript;
    lastStage = stageId;
    if (!completed.includes(nodeId)) completed.push(nodeId);
    const out = edges.filter((e) => e.get("from") === nodeId);
    let next = out.filter((e) => e.get("branch") === r.branch);
    if (next.length === 0) next = out.filter((e) => e.get("branch") === null);
    const transitions = list(run.get("transitions"));
    for (const e of next) {
      const to = display(e.get("to"));
      if (!queue.includes(to)) queue.push(to);
      transitions.push(
        HDict.of({ id: `transition_${uuidV7(rt)}`, from_stage_id: stageId, from_node_id: nodeId, to_node_id: to, branch: e.get("branch"), timestamp: uuidV7(rt), consumed_artifact_ids: r.consumed, produced_artifact_ids: produced }),
      );
    }
    run.set("transitions", transitions.slice());
    run.checkpoint(queue, completed, lastStage, "stage_complete");
  }
  run.set("status", queue.length === 0 ? "completed" : "paused");
  run.set("finished_at", uuidV7(rt));
  run.set("usage", sumUsage(dicts(run.get("stages"))));
  run.set("transcript", lastTranscript);
  run.set("replay_fixture", null);
  run.checkpoint(queue, completed, lastStage, "finalize");
  const final = normalizeRun(rt, run.record);
  return HDict.of({ status: final.get("status"), run: final, artifacts: final.get("artifacts"), transcript: lastTranscript, path });
}
