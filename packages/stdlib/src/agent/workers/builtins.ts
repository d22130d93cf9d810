/**
 * `sub_agent_run` (spec/agents-surface.md §3), its background form and the
 * worker builtins (§4.3): `spawn_agent`, `wait_agent`, `send_input`,
 * `worker_trigger`, `close_agent`, `resume_agent`, `list_agents`.
 *
 * Every worker run is a task of the runtime's background pool (extensions.md
 * §2), the one pool `background_task` uses: it counts against the same
 * limit, `check_task` and `background_tasks()` see it, it announces its
 * completion on stderr and to the parent session's loop, and the end of
 * the script waits for it within the grace period.
 *
 * [TS decision] `wait_agent` returns once the worker is not `running`: a
 * retriggerable worker parks in `awaiting` between runs, and waiting for it
 * to leave that state would only end when it is closed.
 */
import { join } from "node:path";
import { display, HarnError, HDict, isPromise, raceSignal, type CallContext, type Runtime, type Value } from "@harn/vm";
import { dataOnly, fromJson, type Json, stringifyJson } from "../../core/json";
import { backgroundPool } from "../background/pool";
import { compactMessages, messageList } from "../loop/compaction";
import { PolicyParseError, parsePolicy, policyDict, toolsPolicy, intersect, intersectFor, governanceOf, type CapabilityPolicy } from "../permissions/policy";
import { agentSessions } from "../sessions";
import { runSubAgent } from "../subagent/run";
import { subAgentSpec, wantsJson, type SubAgentSpec } from "../subagent/spec";
import { buildTranscript, messagesOf, partsOf } from "../transcript/values";
import { auditOf, carryPolicy, executionOf, hasRequestKeys, requestRecord } from "./setup";
import { handleOf, loadSnapshot, notify, persist, stateDir, workerRegistry, type Worker, type WorkerMode } from "./worker";
import { uuidV7 } from "../../core/encoding";
import { builtinModule } from "../../registry/define";

/** The live configuration of a `sub_agent` worker. */
interface SubAgentRun {
  spec: SubAgentSpec;
  parentSession: string | null;
}

const SUB_AGENTS = new WeakMap<Worker, SubAgentRun>();

function fail(message: string): HarnError {
  return HarnError.runtime(message);
}

/** A handle dict, a worker id or a task handle → the worker (§4.2). */
function workerOf(rt: Runtime, v: Value): Worker {
  let id: string;
  if (typeof v === "string") id = v;
  else if (v instanceof HDict) {
    const x = v.get("id");
    if (x === null) throw fail("agent handle dict is missing an id field");
    id = display(x);
  } else throw fail("expected agent handle or worker id");
  const w = workerRegistry(rt).workers.get(id);
  if (!w) throw fail(`unknown worker: ${id}`);
  return w;
}

function newWorker(rt: Runtime, init: { name: string; task: string; mode: WorkerMode; request: HDict; carry: ReturnType<typeof carryPolicy>; config: HDict; execution: HDict; auditBase: Record<string, Value>; audit: Value; parentSession: string | null }): Worker {
  const reg = workerRegistry(rt);
  const id = reg.newId();
  const w: Worker = {
    id,
    name: init.name,
    task: init.task,
    mode: init.mode,
    status: "running",
    createdAt: reg.stamp(),
    startedAt: reg.stamp(),
    finishedAt: null,
    awaitingStartedAt: null,
    history: [init.task],
    request: init.request,
    result: null,
    error: null,
    transcript: null,
    artifacts: [],
    parentWorkerId: null,
    parentStageId: null,
    childRunId: null,
    childRunPath: null,
    execution: init.execution,
    snapshotPath: init.carry.persistState ? join(stateDir(rt), `${id}.json`) : null,
    audit: auditOf({ session_id: `session_${uuidV7(rt)}`, parent_session_id: init.parentSession, worker_id: id, ...init.auditBase }, init.audit),
    carry: init.carry,
    config: init.config,
    run: null,
    waiters: [],
  };
  reg.workers.set(id, w);
  return w;
}

/** After a run of a `compact` worker: its transcript compacted with
 * strategy `truncate`, keep_last 2 (§4.5). */
async function compacted(ctx: CallContext, t: HDict): Promise<HDict> {
  const messages = messageList(messagesOf(t), "");
  const done = await compactMessages(messages, { keepFirst: 0, keepLast: 2, strategy: "truncate", callback: null }, { ctx, llm: () => {
    throw fail("truncate compaction never calls a model");
  } });
  if (done === null) return t;
  return buildTranscript(ctx.runtime, { ...partsOf(t, true), messages: fromJson(messages as unknown as Json) as Value[] });
}

/** One run of a `sub_agent` worker: the carried transcript per the carry
 * policy, §3.3 execution, the envelope as payload. */
async function subAgentRun(ctx: CallContext, w: Worker): Promise<Value> {
  const live = SUB_AGENTS.get(w)!;
  const rt = ctx.runtime;
  let sessionId = live.spec.sessionId;
  let carried: HDict | undefined;
  const previous = w.transcript instanceof HDict ? w.transcript : null;
  if (previous !== null) {
    const mode = w.carry.transcriptMode;
    if (mode === "fork" || mode === "reset") {
      sessionId = `sub_agent_session_${uuidV7(rt)}`;
      live.spec = { ...live.spec, sessionId };
      if (mode === "fork") {
        const p = partsOf(previous, true);
        const meta = p.metadata instanceof HDict ? p.metadata : HDict.empty();
        carried = buildTranscript(rt, { ...p, id: sessionId, metadata: meta.with("parent_transcript_id", previous.get("id")) });
      }
    } else carried = previous;
  }
  const spec = { ...live.spec, task: w.task, options: live.spec.options.with("session_id", sessionId) };
  let payload = await runSubAgent(ctx, spec, live.parentSession, carried);
  if (w.carry.transcriptMode === "compact") {
    const t = payload.get("transcript");
    if (t instanceof HDict) payload = payload.with("transcript", await compacted(ctx, t));
  }
  return payload;
}

/** A `stage` or `workflow` worker runs through the workflow runtime
 * (workflows.md §1.5), when the runtime has one. */
async function workflowRun(ctx: CallContext, w: Worker): Promise<Value> {
  const exec = ctx.runtime.builtins.get("workflow_execute");
  if (!exec) throw HarnError.undefinedBuiltin("workflow_execute");
  const c = w.config;
  const options = (c.get("options") instanceof HDict ? (c.get("options") as HDict) : HDict.empty()).with("delegated", true).with("execution", w.execution);
  if (w.mode === "workflow") {
    const r = exec([w.task, c.get("graph"), c.get("artifacts") ?? [], options], ctx);
    return isPromise<Value>(r) ? await r : r;
  }
  const graph = HDict.of({ entry: "delegated_worker", nodes: HDict.of({ delegated_worker: c.get("node") }), edges: [] });
  let r = exec([w.task, graph, c.get("artifacts") ?? [], options], ctx);
  if (isPromise<Value>(r)) r = await r;
  const d = r instanceof HDict ? r : HDict.empty();
  return HDict.of({ status: "completed", mode: "stage", task: w.task, result: r, artifacts: d.get("artifacts") ?? [], transcript: d.get("transcript"), execution: w.execution });
}

function finishOk(rt: Runtime, w: Worker, payload: Value): void {
  if (w.status !== "running") return;
  const reg = workerRegistry(rt);
  w.result = payload;
  w.error = null;
  if (payload instanceof HDict) {
    w.transcript = payload.get("transcript") ?? w.transcript;
    const a = payload.get("artifacts");
    w.artifacts = w.carry.artifactMode === "none" ? [] : Array.isArray(a) ? a : w.artifacts;
    if (w.mode === "workflow") {
      const run = payload.get("run");
      w.childRunId = run instanceof HDict ? run.get("id") : null;
      w.childRunPath = payload.get("path");
    }
  }
  if (w.carry.retriggerable) {
    w.status = "awaiting";
    w.awaitingStartedAt = reg.stamp();
  } else {
    w.status = "completed";
    w.finishedAt = reg.stamp();
  }
  persist(rt, w);
  notify(w);
}

function finishFailed(rt: Runtime, w: Worker, error: string): void {
  if (w.status !== "running") return;
  w.status = "failed";
  w.error = error;
  w.finishedAt = workerRegistry(rt).stamp();
  persist(rt, w);
  notify(w);
}

/** Start a run of `w` with its current task, as a background-pool task. */
function startRun(ctx: CallContext, w: Worker): void {
  const rt = ctx.runtime;
  w.status = "running";
  w.startedAt = workerRegistry(rt).stamp();
  w.finishedAt = null;
  persist(rt, w);
  const parent = SUB_AGENTS.get(w)?.parentSession ?? (w.audit.get("parent_session_id") as string | null) ?? null;
  const pool = backgroundPool(rt);
  const task = pool.submit(w.task, parent ?? "", parent !== null && agentSessions(rt).has(parent), async (_t, onCancel) => {
    // Detached: the run outlives the call that started it.
    const child = ctx.inSession ? ctx.inSession("", { detached: true }) : null;
    if (child) onCancel(() => child.cancel());
    const runCtx = child ?? ctx;
    const payload = w.mode === "sub_agent" ? await subAgentRun(runCtx, w) : await workflowRun(runCtx, w);
    finishOk(rt, w, payload);
    const summary = payload instanceof HDict ? payload.get("summary") : null;
    return typeof summary === "string" ? summary : display(payload);
  });
  const done = task.done.then(() => {
    if (task.status === "error") finishFailed(rt, w, task.error ?? "worker failed");
  });
  w.run = { taskId: task.id, cancel: () => task.cancel(), done };
}

async function waitFor(w: Worker, signal: AbortSignal): Promise<void> {
  while (w.status === "running") await raceSignal(new Promise<void>((r) => w.waiters.push(r)), signal);
}

function subAgentConfig(spec: SubAgentSpec, parent: string | null): HDict {
  return HDict.of({
    mode: "sub_agent",
    spec: HDict.of({
      name: spec.name,
      task: spec.task,
      system: spec.system,
      options: fromJson(dataOnly(spec.options) ?? {}),
      returns_schema: spec.returnsSchema,
      session_id: spec.sessionId,
      parent_session_id: parent,
    }),
  });
}

/** `sub_agent_run(task, {background: true, …})`: a `sub_agent` worker. */
function backgroundSubAgent(ctx: CallContext, spec: SubAgentSpec, parent: string | null): HDict {
  const raw = spec.raw;
  const carry = carryPolicy(raw.get("carry"));
  const w = newWorker(ctx.runtime, {
    name: spec.name,
    task: spec.task,
    mode: "sub_agent",
    request: requestRecord(spec.task, spec.system, raw),
    carry,
    config: subAgentConfig(spec, parent),
    execution: executionOf(raw.get("execution")),
    auditBase: { execution_kind: "sub_agent" },
    audit: raw.get("audit"),
    parentSession: parent,
  });
  SUB_AGENTS.set(w, { spec, parentSession: parent });
  persist(ctx.runtime, w, true);
  startRun(ctx, w);
  return handleOf(w);
}

/** A `sub_agent` worker loaded from a snapshot gets its spec back. */
function revive(w: Worker): SubAgentRun {
  const found = SUB_AGENTS.get(w);
  if (found) return found;
  const s = w.config.get("spec");
  const spec = s instanceof HDict ? s : HDict.empty();
  const options = spec.get("options") instanceof HDict ? (spec.get("options") as HDict) : HDict.empty();
  const sid = spec.get("session_id");
  const parent = spec.get("parent_session_id");
  const run: SubAgentRun = {
    spec: {
      name: w.name,
      task: w.task,
      system: typeof spec.get("system") === "string" ? (spec.get("system") as string) : null,
      options,
      returnsSchema: spec.get("returns_schema"),
      sessionId: typeof sid === "string" ? sid : `sub_agent_session_${w.id}`,
      wantsJson: wantsJson(options),
      tokenBudget: typeof options.get("token_budget") === "number" ? (options.get("token_budget") as number) : null,
      raw: options,
    },
    parentSession: typeof parent === "string" ? parent : null,
  };
  SUB_AGENTS.set(w, run);
  return run;
}

function toolsShorthand(v: Value): string[] | null {
  if (v === null) return null;
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw fail("spawn_agent: tools shorthand must be a list of strings");
  if (v.length === 0) throw fail("spawn_agent: tools shorthand must include at least one tool name");
  return v as string[];
}

/** `spawn_agent(config)`: a `stage` (`node`) or `workflow` (`graph`) worker. */
async function spawnAgent(args: Value[], ctx: CallContext): Promise<Value> {
  if (args.length === 0 || args[0] === null) throw fail("spawn_agent: missing config");
  const c = args[0]!;
  if (!(c instanceof HDict)) throw fail("spawn_agent: config must be a dict");
  const task = c.get("task");
  if (task === null || display(task) === "") throw fail("spawn_agent: config.task is required");
  const graph = c.get("graph");
  const node = c.get("node");
  if (graph === null && node === null) throw fail("spawn_agent: config requires either graph or node");
  const carryRaw = c.get("carry") instanceof HDict ? (c.get("carry") as HDict) : HDict.empty();
  const tools = toolsShorthand(c.get("tools") ?? carryRaw.get("tools"));
  let requested: CapabilityPolicy | null = tools === null ? null : toolsPolicy(tools);
  const rawPolicy = c.get("policy") ?? carryRaw.get("policy");
  if (rawPolicy !== null) {
    try {
      const p = parsePolicy(rawPolicy);
      requested = requested === null ? p : intersect(requested, p);
    } catch (e) {
      if (e instanceof PolicyParseError) throw fail(`spawn_agent: policy parse error: ${e.detail}`);
      if (typeof e === "string") throw fail(`spawn_agent: ${e}`);
      throw e;
    }
  }
  const policy = intersectFor("spawn_agent", governanceOf(ctx.runtime, ctx.sessionId).policy, requested);
  const carry = carryPolicy(carryRaw);
  if (policy !== null) carry.policy = policyDict(policy);
  const mode: WorkerMode = graph !== null ? "workflow" : "stage";
  const text = display(task);
  const name = c.get("name");
  let source = c;
  if (mode === "workflow") {
    const opts = c.get("options") instanceof HDict ? (c.get("options") as HDict) : HDict.empty();
    const meta = graph instanceof HDict && graph.get("metadata") instanceof HDict ? (graph.get("metadata") as HDict) : HDict.empty();
    source = hasRequestKeys(opts) ? opts : hasRequestKeys(c) ? c : meta;
  } else if (node instanceof HDict && node.get("metadata") instanceof HDict && !hasRequestKeys(c)) source = node.get("metadata") as HDict;
  let stageNode = node;
  if (node instanceof HDict && c.get("permissions") !== null) {
    const mp = node.get("model_policy") instanceof HDict ? (node.get("model_policy") as HDict) : HDict.empty();
    stageNode = node.with("model_policy", mp.with("permissions", c.get("permissions")));
  }
  const config =
    mode === "workflow"
      ? HDict.of({ mode, graph, artifacts: c.get("artifacts") ?? [], options: c.get("options") })
      : HDict.of({ mode, node: stageNode, artifacts: c.get("artifacts") ?? [], transcript: c.get("transcript") });
  const w = newWorker(ctx.runtime, {
    name: typeof name === "string" && name !== "" ? name : "worker",
    task: text,
    mode,
    request: requestRecord(text, source.get("system"), source),
    carry,
    config,
    execution: executionOf(c.get("execution")),
    auditBase: { execution_kind: mode },
    audit: c.get("audit"),
    parentSession: ctx.sessionId || null,
  });
  if (mode === "stage" && c.get("transcript") instanceof HDict) w.transcript = c.get("transcript");
  persist(ctx.runtime, w, true);
  startRun(ctx, w);
  if (c.get("wait") === true) await waitFor(w, ctx.signal);
  return handleOf(w);
}

async function waitAgent(args: Value[], ctx: CallContext): Promise<Value> {
  if (args.length === 0 || args[0] === null) throw fail("wait_agent: missing worker handle");
  const rt = ctx.runtime;
  const target = args[0]!;
  if (Array.isArray(target)) {
    const out: Value[] = [];
    for (const h of target) {
      const w = workerOf(rt, h);
      await waitFor(w, ctx.signal);
      out.push(handleOf(w));
    }
    return out;
  }
  const w = workerOf(rt, target);
  await waitFor(w, ctx.signal);
  return handleOf(w);
}

function sendInput(args: Value[], ctx: CallContext): Value {
  if (args.length < 2 || args[0] === null || args[1] === null) throw fail("send_input: requires worker handle and task text");
  const w = workerOf(ctx.runtime, args[0]!);
  const text = display(args[1]!);
  if (text.trim() === "") throw fail("send_input: task text must not be empty");
  if (w.status === "running") throw fail(`send_input: worker ${w.id} is still running`);
  if (w.mode === "sub_agent") revive(w);
  w.task = text;
  w.history.push(text);
  w.result = null;
  startRun(ctx, w);
  return handleOf(w);
}

function workerTrigger(args: Value[], ctx: CallContext): Value {
  if (args.length < 2 || args[0] === null || args[1] === null) throw fail("worker_trigger: requires worker handle and payload");
  const w = workerOf(ctx.runtime, args[0]!);
  const p = args[1]!;
  const text = typeof p === "string" ? p : stringifyJson(p);
  if (text.trim() === "" || text === "{}" || text === "[]") throw fail("worker_trigger: payload must not be empty");
  if (!w.carry.retriggerable) throw fail(`worker_trigger: worker ${w.id} is not retriggerable`);
  if (w.status === "running") throw fail(`worker_trigger: worker ${w.id} is still running`);
  if (w.status !== "awaiting") throw fail(`worker_trigger: worker ${w.id} is not awaiting (status=${w.status})`);
  if (w.mode === "sub_agent") revive(w);
  w.task = text;
  w.history.push(text);
  startRun(ctx, w);
  return handleOf(w);
}

async function closeAgent(args: Value[], ctx: CallContext): Promise<Value> {
  if (args.length === 0 || args[0] === null) throw fail("close_agent: missing worker handle");
  const rt = ctx.runtime;
  const w = workerOf(rt, args[0]!);
  w.status = "cancelled";
  w.finishedAt = workerRegistry(rt).stamp();
  w.error = "worker cancelled";
  persist(rt, w);
  notify(w);
  // The run's task stops at its next await; wait for it, so nothing of the
  // worker runs after close_agent returns.
  if (w.run) {
    w.run.cancel();
    await raceSignal(w.run.done, ctx.signal);
  }
  return handleOf(w);
}

function resumeAgent(args: Value[], ctx: CallContext): Value {
  const t = args[0];
  if (t === undefined || t === null || display(t) === "") throw fail("resume_agent: missing worker id or snapshot path");
  const w = loadSnapshot(ctx.runtime, display(t));
  workerRegistry(ctx.runtime).workers.set(w.id, w);
  return handleOf(w);
}

export const WORKER_BUILTINS = builtinModule("agent/workers", (def) => {
  def("sub_agent_run", (args, ctx) => {
    const spec = subAgentSpec(ctx, args[0], args[1]);
    const parent = ctx.sessionId || null;
    if (spec.raw.get("background") === true) return backgroundSubAgent(ctx, spec, parent);
    return runSubAgent(ctx, spec, parent);
  });
  def("spawn_agent", spawnAgent);
  def("wait_agent", waitAgent);
  def("send_input", sendInput);
  def("worker_trigger", workerTrigger);
  def("close_agent", closeAgent);
  def("resume_agent", resumeAgent);
  def("list_agents", (_args, ctx) => workerRegistry(ctx.runtime).list().map(handleOf));
});
