/**
 * Tasks (spec/semantics.md §9): the root program and every `spawn`ed or
 * fan-out body. A task owns its output buffer (merged into the awaiting
 * task's output at `await`, §9.1), its call depth (the 512-frame limit is
 * per task), and an abort signal that cancellation and `deadline` use.
 */
import { HarnError } from "../errors";
import type { Value } from "../values";

export const CANCELLED_TEXT = "kind:cancelled:VM cancelled by host";

/** What the tasks of one program share. */
interface TaskTree {
  /** While a `cancel` runs: the tasks still to abort (nested calls add to it). */
  cancelling: { task: Task; reason: unknown }[] | null;
}

export class Task {
  /** Output of a non-root task, merged at await; the root writes through. */
  buf: string[] | null;
  depth = 0;
  spawnCount = 0;
  fanoutCount = 0;
  /** `vm_task_N` handle counter for tasks spawned by this task. */
  handleCount = 0;
  readonly ac = new AbortController();
  /** The innermost active signal: the task's own, or a `deadline`'s. */
  signal: AbortSignal;
  cancelRequested = false;
  done = false;
  result: Value = null;
  error: unknown = null;
  promise: Promise<void> | null = null;
  awaited = false;
  readonly children = new Set<Task>();
  /** State shared by every task of one program (the root makes it). */
  readonly tree: TaskTree;
  /** Agent session owning the work of this task (agents.md §1.2): `""` is
   * the root scope. Spawned tasks inherit it; `CallContext.inSession` sets
   * it for the code an agent loop runs. */
  sessionId: string;
  /** What `runtime_context()` reports (core-gaps.md §6.3–§6.4): the task's
   * kind (`root`, `spawn`, `parallel each`, ...) and its fan-out group. */
  name = "root";
  groupId: string | null = null;
  /** Context values (`runtime_context_set`): a child starts with a copy of
   * its parent's. */
  contextValues: Map<string, Value> | null;

  constructor(
    readonly id: string,
    readonly parent: Task | null,
    readonly sink: ((text: string) => void) | null,
  ) {
    this.buf = sink ? null : [];
    this.tree = parent ? parent.tree : { cancelling: null };
    this.signal = this.ac.signal;
    this.sessionId = parent ? parent.sessionId : "";
    this.contextValues = parent?.contextValues ? new Map(parent.contextValues) : null;
    if (parent) {
      parent.children.add(this);
      if (parent.ac.signal.aborted) this.ac.abort(parent.ac.signal.reason);
    }
  }

  write(text: string): void {
    if (this.buf) this.buf.push(text);
    else this.sink!(text);
  }

  output(): string {
    return this.buf ? this.buf.join("") : "";
  }

  /**
   * Abort this task and its descendants, parents before children
   * (cancellation, program end). Iterative: a chain of tasks each spawned
   * by the one before (`fn f() { await(spawn { f() }) }`) can be deeper
   * than the JS stack. Aborting a task runs its signal's listeners at once,
   * and those cancel the linked children (`linkToSignal`): such a nested
   * call only queues its task for the loop already running.
   * A task that is already aborted has no live descendants (they were
   * aborted with it, or at their creation), so it is not walked again.
   */
  cancel(reason: unknown = HarnError.thrown(CANCELLED_TEXT)): void {
    const tree = this.tree;
    if (tree.cancelling !== null) {
      tree.cancelling.push({ task: this, reason });
      return;
    }
    if (this.ac.signal.aborted) return;
    const stack: { task: Task; reason: unknown }[] = [{ task: this, reason }];
    tree.cancelling = stack;
    try {
      while (stack.length > 0) {
        const { task, reason: r } = stack.pop()!;
        if (task.ac.signal.aborted) continue;
        task.ac.abort(r);
        const children = [...task.children];
        for (let i = children.length - 1; i >= 0; i--) stack.push({ task: children[i]!, reason: r });
      }
    } finally {
      tree.cancelling = null;
    }
  }

  /** Throw if the current signal was aborted (checked at loop back-edges). */
  checkAborted(): void {
    const s = this.signal;
    if (s.aborted) throw s.reason;
  }
}

/** Reject when `signal` aborts; resolve with `p` otherwise. */
export function raceSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** `exit(n)`: ends the program at once with status `n` (cli.md §2.6). Not
 * a Harn error, so `try`/`catch` cannot intercept it; pending `finally`
 * and `defer` blocks still run while it unwinds. */
export class ExitRequest {
  constructor(readonly code: number) {}
}
