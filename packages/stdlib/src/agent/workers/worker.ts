/**
 * Workers (spec/agents-surface.md §4): named background units of work with
 * a status, a task history, the latest result, a carried transcript and
 * artifacts, and a JSON snapshot file. One registry per runtime, keyed by
 * `worker_<uuid>`; handles are snapshots of a worker's state.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { display, HarnError, HDict, RuntimeSlot, type Runtime, type Value } from "@harn/vm";
import { AtomicWriteError, writeFileAtomicSync } from "../../core/atomic-file";
import { uuidV7 } from "../../core/encoding";
import { JsonError, parseJson } from "../../core/json";
import { osErrorText } from "../../core/oserror";
import { toJson as prettyJson } from "../../template/json";

export type WorkerMode = "sub_agent" | "stage" | "workflow";
export type WorkerStatus = "running" | "awaiting" | "completed" | "failed" | "cancelled" | "interrupted";

export interface CarryPolicy {
  artifactMode: string;
  transcriptMode: string;
  contextPolicy: Value;
  resumeWorkflow: boolean;
  persistState: boolean;
  retriggerable: boolean;
  policy: Value;
}

export interface Worker {
  readonly id: string;
  name: string;
  task: string;
  readonly mode: WorkerMode;
  status: WorkerStatus;
  createdAt: string;
  startedAt: string;
  finishedAt: string | null;
  awaitingStartedAt: string | null;
  history: string[];
  readonly request: HDict;
  result: Value;
  error: string | null;
  transcript: Value;
  artifacts: Value[];
  parentWorkerId: string | null;
  parentStageId: string | null;
  childRunId: Value;
  childRunPath: Value;
  execution: HDict;
  snapshotPath: string | null;
  audit: HDict;
  carry: CarryPolicy;
  /** Mode-specific configuration, as the snapshot stores it. */
  config: HDict;
  /** The pool task of the current run, and how to stop it. */
  run: { taskId: string; cancel: () => void; done: Promise<void> } | null;
  /** Woken on every status change. */
  waiters: (() => void)[];
}

export function notify(w: Worker): void {
  const ws = w.waiters;
  w.waiters = [];
  for (const f of ws) f();
}

export class WorkerRegistry {
  readonly workers = new Map<string, Worker>();
  constructor(readonly rt: Runtime) {}

  newId(): string {
    return `worker_${uuidV7(this.rt)}`;
  }

  /** A fresh "timestamp" (a uuid v7, as the reference does). */
  stamp(): string {
    return uuidV7(this.rt);
  }

  list(): Worker[] {
    return [...this.workers.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

const REGISTRY = new RuntimeSlot("agent.workers", (rt) => new WorkerRegistry(rt));

export function workerRegistry(rt: Runtime): WorkerRegistry {
  return rt.slot(REGISTRY);
}

/** `HARN_WORKER_STATE_DIR`, else `.harn/workers` under the process's
 * working directory (the reference's choice, kept). */
export function stateDir(rt: Runtime): string {
  const env = rt.env.HARN_WORKER_STATE_DIR;
  return env && env !== "" ? env : join(rt.cwd, ".harn", "workers");
}

function carryDict(c: CarryPolicy): HDict {
  return HDict.of({
    artifact_mode: c.artifactMode,
    transcript_mode: c.transcriptMode,
    context_policy: c.contextPolicy,
    resume_workflow: c.resumeWorkflow,
    persist_state: c.persistState,
    retriggerable: c.retriggerable,
    policy: c.policy,
  });
}

export function provenance(w: Worker): HDict {
  return HDict.of({
    worker_id: w.id,
    worker_name: w.name,
    mode: w.mode,
    parent_worker_id: w.parentWorkerId,
    parent_stage_id: w.parentStageId,
    session_id: w.audit.get("session_id"),
    parent_session_id: w.audit.get("parent_session_id"),
    snapshot_path: w.snapshotPath,
    run_id: w.childRunId,
    run_path: w.childRunPath,
  });
}

/** The handle (§4.2): a snapshot of the worker's state. */
export function handleOf(w: Worker): HDict {
  return new HDict(
    new Map<string, Value>([
      ["_type", "agent_handle"],
      ["id", w.id],
      ["name", w.name],
      ["task", w.task],
      ["mode", w.mode],
      ["status", w.status],
      ["created_at", w.createdAt],
      ["started_at", w.startedAt],
      ["finished_at", w.finishedAt],
      ["awaiting_started_at", w.awaitingStartedAt],
      ["history", w.history.slice()],
      ["request", w.request],
      ["provenance", provenance(w)],
      ["result", w.result],
      ["error", w.error],
      ["artifact_count", w.artifacts.length],
      ["has_transcript", w.transcript instanceof HDict],
      ["parent_worker_id", w.parentWorkerId],
      ["parent_stage_id", w.parentStageId],
      ["child_run_id", w.childRunId],
      ["child_run_path", w.childRunPath],
      ["execution", w.execution],
      ["snapshot_path", w.snapshotPath],
      ["audit", w.audit],
      ["task_id", w.run?.taskId ?? null],
    ]),
  );
}

function snapshotDict(w: Worker): HDict {
  return HDict.of({
    _type: "worker_snapshot",
    id: w.id,
    name: w.name,
    task: w.task,
    status: w.status,
    created_at: w.createdAt,
    started_at: w.startedAt,
    finished_at: w.finishedAt,
    awaiting_started_at: w.awaitingStartedAt,
    mode: w.mode,
    history: w.history.slice(),
    config: w.config,
    request: w.request,
    latest_payload: w.result,
    latest_error: w.error,
    transcript: w.transcript,
    artifacts: w.artifacts.slice(),
    parent_worker_id: w.parentWorkerId,
    parent_stage_id: w.parentStageId,
    child_run_id: w.childRunId,
    child_run_path: w.childRunPath,
    carry_policy: carryDict(w.carry),
    execution: w.execution,
    snapshot_path: w.snapshotPath,
    audit: w.audit,
  });
}

/**
 * Write the snapshot file (when the carry policy persists state). At
 * creation failures are runtime errors (`strict`); during runs they are
 * ignored, as the reference does.
 */
export function persist(rt: Runtime, w: Worker, strict = false): void {
  if (!w.carry.persistState || w.snapshotPath === null) return;
  try {
    writeFileAtomicSync(w.snapshotPath, prettyJson(snapshotDict(w), true));
  } catch (e) {
    if (!strict) return;
    if (e instanceof AtomicWriteError) {
      throw HarnError.runtime(`worker snapshot ${e.stage === "mkdir" ? "mkdir" : "write"} error: ${e.path}: ${osErrorText(e.cause)}`);
    }
    throw HarnError.runtime(`worker snapshot encode error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function str(v: Value): string | null {
  return v === null ? null : display(v);
}

/** `resume_agent(target)`: a worker rebuilt from its snapshot file. */
export function loadSnapshot(rt: Runtime, target: string): Worker {
  const path = target.endsWith(".json") || target.includes("/") ? target : join(stateDir(rt), `${target}.json`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw HarnError.runtime(`worker snapshot read error: ${path}: ${osErrorText(e)}`);
  }
  let doc: Value;
  try {
    doc = parseJson(text);
  } catch (e) {
    if (e instanceof JsonError) throw HarnError.runtime(`worker snapshot parse error: ${e.message}`);
    throw e;
  }
  if (!(doc instanceof HDict)) throw HarnError.runtime("worker snapshot parse error: expected a JSON object");
  const mode = doc.get("mode");
  if (mode !== "sub_agent" && mode !== "stage" && mode !== "workflow") throw HarnError.runtime("worker snapshot is missing a valid config mode");
  const c = doc.get("carry_policy");
  const carry = c instanceof HDict ? c : HDict.empty();
  const status = str(doc.get("status")) ?? "completed";
  const dict = (v: Value) => (v instanceof HDict ? v : HDict.empty());
  return {
    id: str(doc.get("id")) ?? workerRegistry(rt).newId(),
    name: str(doc.get("name")) ?? "worker",
    task: str(doc.get("task")) ?? "",
    mode,
    status: (status === "running" ? "interrupted" : status) as WorkerStatus,
    createdAt: str(doc.get("created_at")) ?? "",
    startedAt: str(doc.get("started_at")) ?? "",
    finishedAt: str(doc.get("finished_at")),
    awaitingStartedAt: str(doc.get("awaiting_started_at")),
    history: Array.isArray(doc.get("history")) ? (doc.get("history") as Value[]).map((x) => display(x)) : [],
    request: dict(doc.get("request")),
    result: doc.get("latest_payload"),
    error: str(doc.get("latest_error")),
    transcript: doc.get("transcript"),
    artifacts: Array.isArray(doc.get("artifacts")) ? (doc.get("artifacts") as Value[]) : [],
    parentWorkerId: str(doc.get("parent_worker_id")),
    parentStageId: str(doc.get("parent_stage_id")),
    childRunId: doc.get("child_run_id"),
    childRunPath: doc.get("child_run_path"),
    execution: dict(doc.get("execution")),
    snapshotPath: path,
    audit: dict(doc.get("audit")),
    carry: {
      artifactMode: str(carry.get("artifact_mode")) ?? "inherit",
      transcriptMode: str(carry.get("transcript_mode")) ?? "inherit",
      contextPolicy: carry.get("context_policy"),
      resumeWorkflow: carry.get("resume_workflow") !== false,
      persistState: carry.get("persist_state") !== false,
      retriggerable: carry.get("retriggerable") === true,
      policy: carry.get("policy"),
    },
    config: dict(doc.get("config")),
    run: null,
    waiters: [],
  };
}
