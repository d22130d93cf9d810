/**
 * Supervisors (spec/core-gaps.md §1): a supervisor owns a fixed list of
 * child closures, each run as its own task, and restarts them by a
 * per-child policy (supervisor-policy.ts). They live in a per-runtime
 * registry and keep running after `supervisor_start` returns; scripts see
 * them through `supervisor_state|metrics|events` and stop them with
 * `supervisor_stop`.
 *
 * The children's tasks hang under a stand-in task of the caller (same id),
 * made at `supervisor_start`, since a builtin may not keep its call
 * context: they are cancelled with the program, and so are restart timers.
 */
import { display, HarnError, HClosure, HDict, HDuration, RuntimeSlot, Task, typeOf, type CallContext, type CancelTimer, type Runtime, type SessionCallContext, type Value } from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";
import { durationMs, normalizeName, parsePolicy, restartDelay, type Policy } from "./supervisor-policy";

type SupStatus = "running" | "draining" | "completed" | "stopped" | "escalated";
type ChildStatus = "pending" | "running" | "waiting" | "draining" | "stopped" | "failed" | "suppressed" | "circuit_open";

const STRATEGIES: Record<string, string> = {
  one_for_one: "one_for_one",
  oneforone: "one_for_one",
  one_for_all: "one_for_all",
  oneforall: "one_for_all",
  rest_for_one: "rest_for_one",
  restforone: "rest_for_one",
  escalate_to_parent: "escalate_to_parent",
  escalate: "escalate_to_parent",
};

class Child {
  status: ChildStatus = "pending";
  waitReason: string | null = null;
  nextRestart: number | null = null;
  restartCount = 0;
  generation = 0;
  failures: number[] = [];
  lastError: string | null = null;
  task: SessionCallContext | null = null;
  constructor(
    readonly index: number,
    readonly name: string,
    readonly kind: string,
    readonly fn: Value,
    readonly policy: Policy,
    readonly lease: Value,
  ) {}
}

const METRIC_NAMES = ["escalated", "failed", "restarted", "started", "stopped", "suppressed"] as const;
type Metric = (typeof METRIC_NAMES)[number];

class Supervisor {
  status: SupStatus = "running";
  stopRequested = false;
  readonly metrics: Record<Metric, number> = { escalated: 0, failed: 0, restarted: 0, started: 0, stopped: 0, suppressed: 0 };
  readonly events: HDict[] = [];
  readonly timers = new Set<CancelTimer>();
  constructor(
    readonly rt: Runtime,
    readonly id: string,
    readonly name: string,
    readonly strategy: string,
    readonly shutdownMs: number,
    readonly children: Child[],
    readonly base: SessionCallContext,
    readonly parentTaskId: string,
  ) {}

  event(kind: string, child: Child | null, message: string | null = null): void {
    this.events.push(HDict.of({ at_ms: this.rt.clock.now(), child: child ? child.name : null, kind, message, seq: this.events.length, supervisor_id: this.id }));
  }

  start(c: Child, restart: boolean): void {
    c.status = "running";
    c.waitReason = null;
    c.nextRestart = null;
    this.metrics.started++;
    this.event("child_started", c);
    if (restart) this.event("child_restart_started", c);
    const gen = c.generation;
    const task = this.base.inTask!({ id: `${this.parentTaskId}:supervisor:${this.id}:${c.name}`, name: `supervisor ${c.kind}`, groupId: this.id, buffered: true });
    c.task = task;
    const info = HDict.of({ attempt: gen + 1, child_kind: c.kind, child_name: c.name, restart_count: gen, supervisor_id: this.id });
    let run: Promise<Value>;
    try {
      run = Promise.resolve(task.call(c.fn, [info]));
    } catch (e) {
      run = Promise.reject(e);
    }
    run.then(
      () => this.exited(c, gen, task, null),
      (e) => this.exited(c, gen, task, e instanceof HarnError ? e.description() : String(e)),
    );
  }

  private exited(c: Child, gen: number, task: SessionCallContext, error: string | null): void {
    if (gen !== c.generation) return;
    c.task = null;
    const out = (task.task as Task).output();
    if (out !== "") this.event("child_output", c, out);
    if (error === null) {
      c.status = "stopped";
      c.lastError = null;
      this.metrics.stopped++;
      this.event("child_stopped", c);
    } else {
      c.status = "failed";
      c.lastError = error;
      c.failures.push(this.rt.clock.monotonic());
      this.metrics.failed++;
      this.event("child_failed", c, error);
    }
    if (this.stopRequested) {
      if (!this.children.some((x) => x.status === "running" || x.status === "draining")) {
        this.status = "stopped";
        this.event("supervisor_stopped", null, "drained");
      }
      return;
    }
    this.applyStrategy(c, error !== null);
    this.checkTerminal();
  }

  private applyStrategy(c: Child, failed: boolean): void {
    if (failed && this.strategy === "escalate_to_parent") {
      this.status = "escalated";
      this.stopRequested = true;
      this.metrics.escalated++;
      this.event("child_escalated", c, "failure escalated to parent supervisor");
      for (const x of this.children) {
        this.abort(x);
        x.status = "stopped";
      }
      return;
    }
    if (failed && (this.strategy === "one_for_all" || this.strategy === "rest_for_one")) {
      const scope = this.strategy === "one_for_all" ? this.children : this.children.slice(c.index + 1);
      for (const x of scope) {
        if (x === c) continue;
        this.abort(x);
        x.status = "waiting";
        x.waitReason = "propagation_restart";
        this.event("child_stopped", x, "propagation restart");
      }
      const all = this.strategy === "one_for_all" ? this.children : [c, ...scope];
      for (const x of all) this.decide(x, x === c);
      return;
    }
    this.decide(c, failed);
  }

  /** Bump the generation (so a late exit or timer is ignored) and abort the task. */
  abort(c: Child): void {
    c.generation++;
    const t = c.task;
    c.task = null;
    t?.cancel();
  }

  /** The restart decision of §1.3. */
  private decide(c: Child, failed: boolean): void {
    const p = c.policy;
    if (p.mode === "never" || (p.mode === "on_failure" && !failed)) return;
    const now = this.rt.clock.monotonic();
    if (p.windowMs > 0) c.failures = c.failures.filter((t) => now - t < p.windowMs);
    if (p.maxRestarts !== null) {
      const exceeded = failed && p.windowMs > 0 ? c.failures.length > p.maxRestarts : c.restartCount >= p.maxRestarts;
      if (exceeded) {
        this.metrics.suppressed++;
        if (p.circuitOpenMs !== null) {
          c.status = "circuit_open";
          c.waitReason = "circuit_open";
          c.nextRestart = this.rt.clock.now() + p.circuitOpenMs;
          c.restartCount = 0;
          c.failures = [];
          this.event("child_suppressed", c, "restart cap reached; circuit opened");
          this.schedule(c, p.circuitOpenMs);
        } else {
          c.status = "suppressed";
          c.waitReason = "restart_cap_exceeded";
          this.event("child_suppressed", c, "restart cap reached");
        }
        return;
      }
    }
    const delay = restartDelay(p, c.restartCount, c.index);
    c.restartCount++;
    c.generation++;
    c.status = "waiting";
    c.waitReason = "restart_backoff";
    c.nextRestart = this.rt.clock.now() + delay;
    this.metrics.restarted++;
    this.event("child_restarted", c, `scheduled after ${delay}ms`);
    this.schedule(c, delay);
  }

  private schedule(c: Child, delay: number): void {
    const gen = c.generation;
    const fire = () => {
      if (gen !== c.generation || this.stopRequested) return;
      this.start(c, true);
      this.checkTerminal();
    };
    if (delay <= 0) return fire();
    const cancel = this.rt.clock.timer(delay, () => {
      this.timers.delete(cancel);
      fire();
    });
    this.timers.add(cancel);
  }

  private checkTerminal(): void {
    if (this.status !== "running") return;
    const settled = this.children.every(
      (c) => c.task === null && (c.status === "stopped" || c.status === "failed" || c.status === "suppressed" || (c.status === "circuit_open" && c.nextRestart === null)),
    );
    if (settled) {
      this.status = "completed";
      this.event("supervisor_completed", null);
    }
  }

  /** Program end: nothing of the supervisor may keep running. */
  shutdown(): void {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    for (const c of this.children) if (c.task) this.abort(c);
  }

  state(): HDict {
    return HDict.of({
      _type: "supervisor_state",
      children: this.children.map((c) =>
        HDict.of({
          active_lease: c.lease,
          current_wait_reason: c.waitReason,
          kind: c.kind,
          last_error: c.lastError,
          name: c.name,
          next_restart_time: c.nextRestart,
          restart_count: c.restartCount,
          status: c.status,
        }),
      ),
      id: this.id,
      metrics: this.metricsDict(),
      name: this.name,
      status: this.status,
      strategy: this.strategy,
    });
  }

  metricsDict(): HDict {
    return HDict.of(this.metrics);
  }
}

interface Registry {
  supervisors: Map<string, Supervisor>;
  counter: number;
}

const SUPERVISORS = new RuntimeSlot<Registry>("stdlib.supervisors", () => ({ supervisors: new Map(), counter: 0 }));

/** Every registered supervisor's state, sorted by id (`runtime_context().debug`). */
export function supervisorStates(rt: Runtime): Value[] {
  const reg = rt.slot(SUPERVISORS);
  return [...reg.supervisors.keys()].sort().map((id) => reg.supervisors.get(id)!.state());
}

function find(fn: string, args: Value[], ctx: CallContext): Supervisor {
  if (args.length === 0 || args[0] === null) throw HarnError.runtime(`${fn}: supervisor handle or id is required`);
  const h = args[0]!;
  let id: string;
  if (h instanceof HDict && h.get("_type") === "supervisor") {
    const v = h.get("id");
    if (v === null) throw HarnError.runtime(`${fn}: supervisor handle missing id`);
    id = display(v);
  } else id = display(h);
  if (id === "") throw HarnError.runtime(`${fn}: supervisor id must not be empty`);
  const s = ctx.runtime.slot(SUPERVISORS).supervisors.get(id);
  if (!s) throw HarnError.runtime(`${fn}: unknown supervisor '${id}'`);
  return s;
}

const field = (d: HDict, ...keys: string[]): Value => {
  for (const k of keys) if (d.has(k) && d.get(k) !== null) return d.get(k);
  return null;
};

function startSupervisor(args: Value[], ctx: CallContext): Value {
  if (args.length === 0) throw HarnError.runtime("supervisor_start: spec is required");
  const spec = args[0]!;
  if (!(spec instanceof HDict)) throw HarnError.runtime("supervisor_start: expected a dict");
  const reg = ctx.runtime.slot(SUPERVISORS);
  const idV = field(spec, "id");
  const id = idV === null || display(idV) === "" ? `supervisor_${reg.counter + 1}` : display(idV);
  const nameV = field(spec, "name");
  const name = nameV === null ? id : display(nameV);
  const strategyV = field(spec, "strategy");
  const strategy = strategyV === null ? "one_for_one" : STRATEGIES[normalizeName(display(strategyV))];
  if (strategy === undefined) throw HarnError.runtime(`supervisor_start: unknown strategy '${display(strategyV)}'`);
  const shutdownMs = durationMs(field(spec, "shutdown_ms", "drain_ms")) ?? 5000;
  const defaultPolicy = field(spec, "restart");
  const list = field(spec, "children");
  if (!Array.isArray(list)) throw HarnError.runtime("supervisor_start: children must be a list");
  const children = list.map((c, i) => {
    if (!(c instanceof HDict)) throw HarnError.runtime("supervisor_start child: expected a dict");
    const cname = field(c, "name");
    const childName = cname === null ? `child_${i}` : display(cname);
    const fn = field(c, "task", "handler");
    if (!(fn instanceof HClosure)) throw HarnError.runtime(`supervisor_start: child '${childName}' requires a task closure`);
    const policy = parsePolicy(c.has("restart") ? c.get("restart") : defaultPolicy);
    const kind = field(c, "kind");
    return new Child(i, childName, kind === null ? "task" : display(kind), fn, policy, field(c, "active_lease", "lease"));
  });
  if (children.length === 0) throw HarnError.runtime("supervisor_start: children must include at least one child");
  if (reg.supervisors.has(id)) throw HarnError.runtime(`supervisor_start: supervisor '${id}' already exists`);
  if (idV === null || display(idV) === "") reg.counter++;
  const caller = ctx.task instanceof Task ? ctx.task : null;
  const parentTaskId = caller ? caller.id : "task_root";
  if (!ctx.inTask) throw HarnError.runtime("supervisor_start: this host cannot start tasks");
  const base = ctx.inTask({ id: parentTaskId, name: caller?.name, groupId: caller?.groupId ?? null });
  const sup = new Supervisor(ctx.runtime, id, name, strategy, shutdownMs, children, base, parentTaskId);
  reg.supervisors.set(id, sup);
  base.signal.addEventListener("abort", () => sup.shutdown(), { once: true });
  void ctx.runtime.clock.turn().then(() => {
    if (base.signal.aborted) return;
    sup.event("supervisor_started", null);
    for (const c of children) sup.start(c, false);
  });
  return HDict.of({ _type: "supervisor", id, name });
}

async function stopSupervisor(sup: Supervisor, timeoutMs: number, ctx: CallContext): Promise<Value> {
  const clock = ctx.runtime.clock;
  if (sup.status !== "stopped") {
    sup.status = "draining";
    sup.stopRequested = true;
    sup.event("supervisor_stopping", null);
    for (const c of sup.children) {
      if (c.status === "running") {
        c.status = "draining";
        c.waitReason = "shutdown";
      }
      if (c.task) (c.task.task as Task).cancelRequested = true;
    }
    const deadline = clock.monotonic() + timeoutMs;
    while (sup.children.some((c) => c.status === "running" || c.status === "draining") && clock.monotonic() < deadline) {
      await clock.sleep(Math.min(5, Math.max(0, deadline - clock.monotonic())), ctx.signal);
    }
    let forced = false;
    for (const c of sup.children) {
      if (c.status === "running" || c.status === "draining" || c.status === "waiting" || c.status === "circuit_open") {
        sup.abort(c);
        c.status = "stopped";
        c.waitReason = null;
        c.nextRestart = null;
        sup.event("child_stopped", c, "supervisor stop");
        forced = true;
      }
    }
    for (const cancel of sup.timers) cancel();
    sup.timers.clear();
    sup.status = "stopped";
    sup.event("supervisor_stopped", null, forced ? "forced" : "drained");
  }
  return sup.state();
}

export const SUPERVISOR_BUILTINS = builtinModule("core/supervisor", (def) => {
  def("supervisor_start", startSupervisor);
  def("supervisor_state", (args, ctx) => find("supervisor_state", args, ctx).state());
  def("supervisor_metrics", (args, ctx) => find("supervisor_metrics", args, ctx).metricsDict());
  def("supervisor_events", (args, ctx) => [...find("supervisor_events", args, ctx).events]);
  def("supervisor_stop", (args, ctx) => {
    const sup = find("supervisor_stop", args, ctx);
    const t = arg(args, 1);
    const ms = t instanceof HDuration ? t.ms : typeof t === "number" ? Math.max(0, t) : t === null ? sup.shutdownMs : null;
    if (ms === null) throw HarnError.runtime(`supervisor_stop: timeout must be a duration or int milliseconds, got ${typeOf(t)}`);
    return stopSupervisor(sup, ms, ctx);
  });
});
