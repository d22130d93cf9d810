/**
 * Run records (spec/workflows.md §4.5, §1.9): normalisation with the
 * serde-shaped defaults, the computed `observability` (action graph of the
 * stages), and replay fixtures derived from a run.
 */
import { HDict, isNumeric, toJsNumber, float, type Runtime, type Value } from "@harn/vm";
import { rfc3339 } from "../../core/wait";
import { newId, normalizeArtifact } from "../artifacts/record";

const str = (v: Value): string | null => (typeof v === "string" ? v : null);
const list = (v: Value): Value[] => (Array.isArray(v) ? v.slice() : []);
const dict = (v: Value): HDict => (v instanceof HDict ? v : HDict.empty());
const dicts = (v: Value): HDict[] => list(v).filter((x): x is HDict => x instanceof HDict);
const int = (v: Value): number => (isNumeric(v) ? Math.trunc(toJsNumber(v)) : 0);

export function normalizeUsage(v: Value): HDict {
  const u = dict(v);
  const cost = u.get("total_cost");
  return HDict.of({
    input_tokens: int(u.get("input_tokens")),
    output_tokens: int(u.get("output_tokens")),
    total_duration_ms: int(u.get("total_duration_ms")),
    call_count: int(u.get("call_count")),
    total_cost: float(isNumeric(cost) ? toJsNumber(cost) : 0),
    models: list(u.get("models")),
  });
}

function normalizeAttempt(a: HDict): HDict {
  return HDict.of({
    attempt: int(a.get("attempt")),
    status: str(a.get("status")),
    outcome: str(a.get("outcome")),
    branch: str(a.get("branch")),
    error: str(a.get("error")),
    verification: a.get("verification"),
    started_at: str(a.get("started_at")),
    finished_at: str(a.get("finished_at")),
  });
}

export function normalizeStage(rt: Runtime, s: HDict): HDict {
  const id = str(s.get("id"));
  return HDict.of({
    id: id ?? newId(rt, "stage"),
    node_id: str(s.get("node_id")),
    kind: str(s.get("kind")) ?? "stage",
    status: str(s.get("status")) ?? "completed",
    outcome: str(s.get("outcome")),
    branch: str(s.get("branch")),
    started_at: str(s.get("started_at")),
    finished_at: str(s.get("finished_at")),
    visible_text: str(s.get("visible_text")),
    private_reasoning: str(s.get("private_reasoning")),
    transcript: s.get("transcript"),
    verification: s.get("verification"),
    usage: s.get("usage") === null ? null : normalizeUsage(s.get("usage")),
    artifacts: dicts(s.get("artifacts")).map((a) => normalizeArtifact(rt, a)),
    consumed_artifact_ids: list(s.get("consumed_artifact_ids")),
    produced_artifact_ids: list(s.get("produced_artifact_ids")),
    attempts: dicts(s.get("attempts")).map(normalizeAttempt),
    metadata: dict(s.get("metadata")),
  });
}

/** The kinds of a stage's artifacts, in order, without repeats. */
export function artifactKinds(stage: HDict): string[] {
  const kinds: string[] = [];
  for (const a of dicts(stage.get("artifacts"))) {
    const k = str(a.get("kind"));
    if (k !== null && !kinds.includes(k)) kinds.push(k);
  }
  return kinds;
}

/** The replay fixture of a run: its status and one assertion per stage.
 * [TS decision] `visible_text_contains` is nil (a fixture derived from a
 * run asserts structure, not model wording). */
export function runFixture(rt: Runtime, run: HDict): HDict {
  return HDict.of({
    _type: "replay_fixture",
    id: newId(rt, "fixture"),
    source_run_id: run.get("id"),
    workflow_id: run.get("workflow_id"),
    workflow_name: run.get("workflow_name"),
    created_at: rfc3339(rt),
    eval_kind: "replay",
    clarifying_question: null,
    expected_status: run.get("status"),
    stage_assertions: dicts(run.get("stages")).map((s) =>
      HDict.of({
        node_id: s.get("node_id"),
        expected_status: s.get("status"),
        expected_outcome: s.get("outcome"),
        expected_branch: s.get("branch"),
        required_artifact_kinds: artifactKinds(s),
        visible_text_contains: null,
      }),
    ),
  });
}

/** `observability` (§1.9): the action graph of the stages, with trigger
 * and predicate nodes when the run has a trigger event. */
export function observability(run: HDict): HDict {
  const stages = dicts(run.get("stages"));
  const runId = run.get("id");
  const runPath = run.get("persisted_path");
  const trigger = dict(run.get("metadata")).get("trigger_event");
  const traceId = trigger instanceof HDict ? trigger.get("trace_id") : null;
  const node = (id: Value, label: Value, kind: string, s: HDict | null, trace: Value) =>
    HDict.of({
      id,
      label,
      kind,
      status: s ? s.get("status") : null,
      outcome: s ? s.get("outcome") : null,
      trace_id: trace,
      stage_id: s ? s.get("id") : null,
      node_id: s ? s.get("node_id") : null,
      worker_id: null,
      run_id: runId,
      run_path: runPath,
      metadata: HDict.empty(),
    });
  const edge = (from: Value, to: Value, kind: string, label: Value) => HDict.of({ from_id: from, to_id: to, kind, label });
  const nodes: HDict[] = [];
  const edges: HDict[] = [];
  if (trigger instanceof HDict) {
    const id = `trigger:${String(trigger.get("id") ?? runId)}`;
    nodes.push(node(id, trigger.get("kind") ?? "trigger", "trigger", null, traceId));
    if (stages.length > 0) edges.push(edge(id, stages[0]!.get("id"), "trigger_dispatch", "dispatch"));
  }
  for (const s of stages) {
    nodes.push(node(s.get("id"), s.get("node_id"), str(s.get("kind")) ?? "stage", s, null));
    if (trigger instanceof HDict && s.get("kind") === "condition") {
      const id = `predicate:${String(s.get("id"))}`;
      nodes.push(node(id, s.get("node_id"), "predicate", s, traceId));
      edges.push(edge(id, s.get("id"), "predicate_gate", s.get("branch")));
    }
  }
  for (const t of dicts(run.get("transitions"))) {
    const from = t.get("from_stage_id");
    const at = stages.findIndex((s) => s.get("id") === from);
    const to = stages.slice(at + 1).find((s) => s.get("node_id") === t.get("to_node_id"));
    edges.push(edge(from, to ? to.get("id") : t.get("to_node_id"), "transition", t.get("branch")));
  }
  return HDict.of({
    schema_version: 1,
    planner_rounds: 0,
    research_fact_count: 0,
    action_graph_nodes: nodes,
    action_graph_edges: edges,
    worker_lineage: [],
    verification_outcomes: stages
      .filter((s) => s.get("kind") === "verify")
      .map((s) => HDict.of({ stage_id: s.get("id"), node_id: s.get("node_id"), status: s.get("status"), outcome: s.get("outcome") })),
    transcript_pointers: stages.filter((s) => s.get("transcript") !== null).map((s) => HDict.of({ stage_id: s.get("id"), node_id: s.get("node_id") })),
    compaction_events: [],
    daemon_events: [],
  });
}

/** `run_record(payload)` (§4.5). */
export function normalizeRun(rt: Runtime, p: HDict): HDict {
  const id = str(p.get("id")) ?? newId(rt, "run");
  let run = HDict.of({
    _type: "run_record",
    id,
    workflow_id: str(p.get("workflow_id")),
    workflow_name: str(p.get("workflow_name")),
    task: str(p.get("task")),
    status: str(p.get("status")) ?? "running",
    started_at: str(p.get("started_at")) ?? rfc3339(rt),
    finished_at: str(p.get("finished_at")),
    parent_run_id: str(p.get("parent_run_id")),
    root_run_id: str(p.get("root_run_id")) ?? id,
    stages: dicts(p.get("stages")).map((s) => normalizeStage(rt, s)),
    transitions: list(p.get("transitions")),
    checkpoints: list(p.get("checkpoints")),
    pending_nodes: list(p.get("pending_nodes")),
    completed_nodes: list(p.get("completed_nodes")),
    child_runs: list(p.get("child_runs")),
    artifacts: dicts(p.get("artifacts")).map((a) => normalizeArtifact(rt, a)),
    handoffs: list(p.get("handoffs")),
    policy: dict(p.get("policy")),
    execution: p.get("execution"),
    transcript: p.get("transcript"),
    usage: normalizeUsage(p.get("usage")),
    replay_fixture: null,
    observability: null,
    trace_spans: list(p.get("trace_spans")),
    tool_recordings: list(p.get("tool_recordings")),
    hitl_questions: list(p.get("hitl_questions")),
    metadata: dict(p.get("metadata")),
    persisted_path: str(p.get("persisted_path")),
  });
  // §4.4: a run without handoffs collects those of its handoff artifacts,
  // each with a receipt pointing at the run.
  if ((run.get("handoffs") as Value[]).length === 0) run = run.with("handoffs", collectHandoffs(run));
  const fixture = p.get("replay_fixture");
  run = run.with("replay_fixture", fixture instanceof HDict ? fixture : runFixture(rt, run));
  return run.with("observability", observability(run));
}

function collectHandoffs(run: HDict): Value[] {
  const arts = [...dicts(run.get("artifacts")), ...dicts(run.get("stages")).flatMap((s) => dicts(s.get("artifacts")))];
  const seen = new Set<Value>();
  const out: Value[] = [];
  for (const a of arts) {
    const h = a.get("data");
    if (a.get("kind") !== "handoff" || !(h instanceof HDict) || seen.has(a.get("id"))) continue;
    seen.add(a.get("id"));
    const receipt = HDict.of({ kind: "run_receipt", run_id: run.get("id"), path: run.get("persisted_path"), label: `run ${String(run.get("id"))}` });
    const links = list(h.get("receipt_links")).filter((l) => !(l instanceof HDict && l.get("kind") === "run_receipt" && l.get("run_id") === run.get("id")));
    out.push(h.with("receipt_links", [...links, receipt]));
  }
  return out;
}
