/**
 * Background sub-agent tasks (extensions.md §2): a bounded pool per runtime
 * (extra tasks queue FIFO), 8-hex task ids, the statuses, completion
 * notices on stderr plus a feedback item for the parent session, and the
 * graceful wait when the script ends.
 *
 * [TS decision] A task waiting for a free slot reports `queued` (the spec
 * lists running/done/error/not_found; a queued task reported `running`
 * before it had started). A cancelled task, queued or running, ends with
 * status `error` and the one error text `cancelled`.
 */
import { nodeCrypto } from "../../core/node-builtins";
import { HDict, RuntimeSlot, type Runtime } from "@harn/vm";
import { longRunState } from "../../longrun/index";
import { agentSessions } from "../sessions";
import { BACKGROUND_CONTROL } from "./settings";

export type BgStatus = "queued" | "running" | "done" | "error";

/** The error of a task that was cancelled, whether it had started or not. */
export const CANCELLED_TASK = "cancelled";

/** A task that has not ended (it waits for a slot, or runs). */
export const isLive = (t: BgTask): boolean => t.status === "queued" || t.status === "running";

export interface BgTask {
  readonly id: string;
  readonly prompt: string;
  status: BgStatus;
  result: string | null;
  error: string | null;
  /** Session of the loop that started it (its feedback goes there). */
  readonly parentSession: string;
  readonly parentNamed: boolean;
  /** Settles when the task ends (never rejects). */
  readonly done: Promise<void>;
  /** Stop the sub-agent; it ends with status `error`. */
  cancel(): void;
}

/** Starts a sub-agent; resolves to its visible text. `cancel` is set once
 * the sub-agent is running. */
export type BgRunner = (task: BgTask, onCancel: (cancel: () => void) => void) => Promise<string>;

export const DEFAULT_BACKGROUND_TASKS = 4;

export class BackgroundPool {
  readonly tasks = new Map<string, BgTask>();
  private readonly queue: (() => void)[] = [];
  private running = 0;
  limit = DEFAULT_BACKGROUND_TASKS;
  /** How long the end of the script waits for running tasks
   * (`harn run --background-grace`, settings.ts); 0 cancels them at once. */
  get graceMs(): number {
    return this.rt.slot(BACKGROUND_CONTROL).graceMs;
  }

  constructor(private readonly rt: Runtime) {}

  private newId(): string {
    for (;;) {
      const id = nodeCrypto().randomBytes(4).toString("hex");
      if (!this.tasks.has(id)) return id;
    }
  }

  submit(prompt: string, parentSession: string, parentNamed: boolean, run: BgRunner): BgTask {
    let settle!: () => void;
    const done = new Promise<void>((r) => (settle = r));
    let stop: (() => void) | null = null;
    let cancelled = false;
    const task: BgTask = {
      id: this.newId(),
      prompt,
      status: "queued",
      result: null,
      error: null,
      parentSession,
      parentNamed,
      done,
      cancel: () => {
        if (!isLive(task) || cancelled) return;
        cancelled = true;
        if (stop) stop();
        else this.finish(task, settle, null, CANCELLED_TASK);
      },
    };
    this.tasks.set(task.id, task);
    const start = () => {
      if (cancelled) return;
      task.status = "running";
      this.running++;
      const go = () => {
        if (cancelled) return;
        run(task, (c) => (stop = c)).then(
          (text) => this.finish(task, settle, text, null),
          (e: unknown) => this.finish(task, settle, null, cancelled ? CANCELLED_TASK : errorMessage(e)),
        );
      };
      // On a virtual clock the seeded scheduler decides when a background
      // task first runs, as it does for spawned tasks (harn test --seed).
      if (this.rt.clock.virtual) void this.rt.clock.turn().then(go);
      else go();
    };
    if (this.running < this.limit) start();
    else this.queue.push(start);
    return task;
  }

  private finish(task: BgTask, settle: () => void, result: string | null, error: string | null): void {
    if (!isLive(task)) return;
    // a queued task cancelled never took a slot
    const held = task.status === "running";
    task.status = error === null ? "done" : "error";
    task.result = result;
    task.error = error;
    this.rt.stderr.write(`Background task [${task.id}] ${task.status}\n`);
    // The parent's model sees it on its next turn even without check_task.
    if (task.parentNamed || agentSessions(this.rt).active.has(task.parentSession)) {
      const body = error === null ? { task_id: task.id, status: "done", result } : { task_id: task.id, status: "error", error };
      longRunState(this.rt).inject(task.parentSession, "background_task", JSON.stringify(body));
    }
    settle();
    if (held) this.running = Math.max(0, this.running - 1);
    while (this.running < this.limit && this.queue.length > 0) this.queue.shift()!();
  }

  /** `check_task(task_id)`. */
  check(id: string): HDict {
    const t = this.tasks.get(id);
    if (!t) return HDict.of({ status: "not_found", error: `No task with id '${id}'` });
    if (isLive(t)) return HDict.of({ status: t.status });
    if (t.status === "done") return HDict.of({ status: "done", result: t.result ?? "" });
    return HDict.of({ status: "error", error: t.error ?? "" });
  }

  list(): HDict[] {
    return [...this.tasks.values()].map((t) => HDict.of({ task_id: t.id, status: t.status, prompt: t.prompt }));
  }

  /** The tasks that have not ended, queued ones included. */
  runningTasks(): BgTask[] {
    return [...this.tasks.values()].filter(isLive);
  }

  cancelAll(): void {
    for (const t of this.runningTasks()) t.cancel();
  }

  /**
   * Script end: say how many tasks are still running, wait up to the grace
   * period, report each with ✓ or ✗, and cancel what is left.
   */
  async atExit(): Promise<void> {
    const waiting = this.runningTasks();
    if (waiting.length === 0) return;
    const n = waiting.length;
    const err = (t: string) => this.rt.stderr.write(t);
    if (this.graceMs > 0) {
      err(`Waiting for ${n} background task${n === 1 ? "" : "s"} (up to ${formatGrace(this.graceMs)})...\n`);
      // The runtime's clock: the grace is script-visible time (virtual under
      // `harn test --deterministic`).
      let cancelTimer: (() => void) | undefined;
      await Promise.race([
        Promise.all(waiting.map((t) => t.done)),
        new Promise<void>((r) => (cancelTimer = this.rt.clock.timer(this.graceMs, r))),
      ]);
      cancelTimer?.();
    } else {
      err(`Cancelling ${n} background task${n === 1 ? "" : "s"}...\n`);
    }
    const left = waiting.filter(isLive);
    for (const t of left) t.cancel();
    await Promise.all(left.map((t) => t.done));
    for (const t of waiting) {
      if (t.status === "done") err(`  ✓ [${t.id}] done\n`);
      else err(`  ✗ [${t.id}] ${left.includes(t) ? CANCELLED_TASK : `error: ${t.error ?? ""}`}\n`);
    }
  }
}

function errorMessage(e: unknown): string {
  if (e !== null && typeof e === "object" && "description" in e && typeof (e as { description: unknown }).description === "function") {
    return (e as { description(): string }).description();
  }
  return e instanceof Error ? e.message : String(e);
}

function formatGrace(ms: number): string {
  if (ms % 60000 === 0) return `${ms / 60000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

const POOL = new RuntimeSlot<BackgroundPool>("agent.background", (rt) => {
  const pool = new BackgroundPool(rt);
  rt.slot(BACKGROUND_CONTROL).cancelAll = () => pool.cancelAll();
  // Before any disposer runs: sub-agents finishing in the grace period
  // still have their handles, processes and connections.
  rt.beforeShutdown(() => pool.atExit());
  return pool;
});

export function backgroundPool(rt: Runtime): BackgroundPool {
  return rt.slot(POOL);
}
