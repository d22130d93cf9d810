/**
 * The Runtime: everything one Harn execution owns. No module-level mutable
 * state exists anywhere in the implementation; two Runtimes in one process
 * (tests!) never see each other. The CLI builds a Runtime (sinks, cwd, env,
 * argv), the stdlib installs its builtins and method tables into it, and the
 * evaluator runs programs against it.
 *
 * Suspension convention: builtins, methods and callbacks return either a
 * value or a Promise of one. Callers check `isPromise` and only pay for
 * `await` when they actually got a promise (spec: design.md "Evaluation").
 */

import type { Span, TypeExpr } from "@harn/parser";
import { CodePoints, CpLengthMemo, type Value } from "./values";
import { StdModuleSources } from "./std-sources";
import { type Clock, realClock } from "./clock";
import type { HarnError } from "./errors";

/** Where text goes. Writes are synchronous from the script's point of view. */
export interface OutputSink {
  write(text: string): void;
  /** Hand buffered text to the OS now. Optional; the stdlib calls it before
   * blocking on stdin so a prompt is visible while the script waits. */
  flush?(): void;
  /** Whether the text reaches a terminal (`is_stdout_tty`, colour mode
   * "auto"). Absent: the answer of the process's own stream. A sink that
   * captures output (the test harness) says false. */
  readonly isTTY?: boolean;
}

/**
 * What a builtin or method sees of the interpreter at a call.
 * The evaluator provides one per call site invocation (or reuses one per
 * task and updates `span`); builtins must not keep it beyond the call,
 * except for `runtime`.
 */
export interface CallContext {
  readonly runtime: Runtime;
  /** Call a closure or builtin reference. Errors propagate as HarnError. */
  call(fn: Value, args: Value[]): Value | Promise<Value>;
  /** Append to the current task's stdout (task output is buffered per task
   * and merged at `await`, spec/semantics.md §9.1). */
  out(text: string): void;
  /** Write to stderr immediately. */
  err(text: string): void;
  /** Aborted when the current task is cancelled (cancel, deadline, Ctrl-C).
   * Long waits (sleep, I/O, HTTP) must honour it. */
  readonly signal: AbortSignal;
  /** Source position of the call, when known. */
  readonly span: Span | null;
  /** The evaluator's current task (opaque to builtins except through the
   * helpers the vm exports). */
  readonly task: unknown;
  /** Id of the innermost agent-loop session this code runs in (agents.md
   * §1.2): tool handlers called by a loop see the loop's session; `""` or
   * undefined means the root scope. Propagates into calls and spawned tasks. */
  readonly sessionId?: string;
  /** Absolute path of the `.harn` file whose code made this call (inside an
   * imported module: that module's file). Its directory is the *asset root*
   * (spec/stdlib.md §2.6) used by `render`, `render_prompt`, template
   * includes and `source_dir()`. Undefined/null (e.g. `harn run -e`) means
   * the execution root `runtime.cwd`. */
  readonly sourceFile?: string | null;
  /**
   * A context whose calls run in a new task that belongs to agent session
   * `sessionId` (agents.md §1.2): closures called through it, and every task
   * they spawn, see that session as `sessionId`, so the long-running handles
   * they start are owned by it. The new task is a child of the current one
   * (cancelled with it) and writes its output straight into it; with
   * `detached: true` it has no parent (it outlives the caller, as a
   * background sub-agent must) and writes to the runtime's stdout. Optional
   * so hand-made test contexts need not provide it.
   */
  inSession?(sessionId: string, options?: { detached?: boolean }): SessionCallContext;
  /**
   * A context whose calls run in a new child task of the current one (the
   * general form of `inSession`): supervisors and `parallel_race` run
   * closures this way. `buffered`: the task's output is kept (read it
   * through the vm's `Task.output()`), not written to the parent.
   */
  inTask?(options?: TaskOptions): SessionCallContext;
  /**
   * `fn` prepared for many calls during this builtin call (list methods
   * call their callback once per item): each call behaves exactly like
   * `call(fn, args)`, but the dispatch on `fn` happens once, and a closure
   * whose body can hold on to nothing reuses one frame for every call. Use
   * the result only while the builtin runs. (A context without the
   * evaluator's frames can answer with plain `call`s.)
   */
  prepare(fn: Value): Callback;
}

/** A callback prepared by `CallContext.prepare`. */
export interface Callback {
  /** Same as `call(fn, [a])`. */
  one(a: Value): Value | Promise<Value>;
  /** Same as `call(fn, [a, b])`. */
  two(a: Value, b: Value): Value | Promise<Value>;
}

/** What a task started by `CallContext.inTask` is: its id (default
 * `PARENT:session`), kind name and fan-out group (core-gaps.md §6.4), the
 * agent session owning it (default the caller's), whether it outlives the
 * caller, and whether its output is kept instead of written out. */
export interface TaskOptions {
  id?: string;
  name?: string;
  groupId?: string | null;
  sessionId?: string;
  detached?: boolean;
  buffered?: boolean;
}

/** A `CallContext` of its own task (see `CallContext.inSession`). */
export interface SessionCallContext extends CallContext {
  /** Cancel the session's task and everything it spawned. */
  cancel(): void;
}

export type BuiltinFn = (args: Value[], ctx: CallContext) => Value | Promise<Value>;
/**
 * A builtin's one-argument form: exactly `fn([arg], ctx)` for the builtin
 * `fn` it was defined with (same value, same thrown error), but
 * synchronous and without a call context, so generated code can call it
 * without building an argument list or updating the context. Only pure
 * builtins that never suspend, print or call back have one.
 */
export type UnaryBuiltinFn = (arg: Value) => Value;
export type MethodFn = (receiver: Value, args: Value[], ctx: CallContext) => Value | Promise<Value>;

/** A typed key for per-runtime state owned by a stdlib module. */
export class RuntimeSlot<T> {
  constructor(
    readonly name: string,
    readonly init: (rt: Runtime) => T,
  ) {}
}

export interface RuntimeOptions {
  stdout: OutputSink;
  stderr: OutputSink;
  /** Execution root: relative file paths resolve against it. */
  cwd: string;
  env: Record<string, string | undefined>;
  /** The `argv` global; `null` leaves it undefined (conformance harness). */
  argv?: string[] | null;
  /** A PEM file of CA certificates that the stdlib's TLS clients trust on
   * top of Node's default store: NODE_EXTRA_CA_CERTS when the CLI deferred
   * it instead of letting Node parse it at start-up (cli/bin/harn.cjs).
   * Absent or null: nothing extra (Node's own store already has them). */
  extraCaCertsFile?: string | null;
  /** Time, timers and task starts (clock.ts); default: real time. */
  clock?: Clock;
}

/** A cleanup step run when the runtime shuts down (LIFO). */
export type Disposer = () => void | Promise<void>;

export class Runtime {
  readonly builtins = new Map<string, BuiltinFn>();
  /** Method tables by receiver kind, keyed by the `type_of` name. */
  readonly methods = new Map<string, Map<string, MethodFn>>();
  /** Globals consulted after all scopes and before builtins (pi, e, argv,
   * namespace dicts). */
  readonly globals = new Map<string, Value>();
  /**
   * Namespace dicts (a global dict whose `_namespace` key holds its name)
   * that name every function they offer: a call of a member such a dict
   * lacks throws the error made here (`tools.run_comand(…)` -> "unknown
   * host tool …") instead of the silent `nil` of an unknown dict method
   * (semantics.md §7.7 step 6). Their callable members are found before
   * the built-in dict methods, as the `stream` namespace's are.
   */
  readonly strictNamespaces = new Map<string, (member: string) => HarnError>();
  /** Source text of the bundled `std/...` modules by import path
   * (`"std/math"` -> Harn source); the stdlib fills it, the module loader
   * reads it. Texts may be built on first read (std-sources.ts). */
  readonly stdModules = new StdModuleSources();
  /**
   * Type-alias → schema lowering (spec/stdlib.md §11.6), installed by the
   * stdlib. The compiler calls it for `schema_of(Alias)` and for the schema
   * argument of the schema guards (`schema_is`, `schema_check`,
   * `schema_parse`, `schema_expect`, `is_type`, `json_validate`) when that
   * argument names a type alias; `aliases` resolves alias names. Null means
   * "no schema" (struct names, generics, …): the call then runs unchanged.
   */
  typeSchema: ((type: TypeExpr, aliases: (name: string) => TypeExpr | null) => Value | null) | null = null;
  /** One-argument forms of builtins (`defineBuiltin`'s third argument),
   * keyed by the builtin function itself, so a builtin replaced by any
   * means (a lazy group's stub, a host override) never keeps one. */
  readonly unaryForms = new WeakMap<BuiltinFn, UnaryBuiltinFn>();
  /** Code-point length of the last string built or measured (values.ts). */
  readonly cpMemo = new CpLengthMemo();
  /** Code-point index of the last long string indexed (values.ts). */
  readonly codePoints = new CodePoints();
  /** Builtins denied by `--deny` / `--allow`. */
  readonly denied = new Set<string>();
  readonly stdout: OutputSink;
  readonly stderr: OutputSink;
  readonly cwd: string;
  readonly env: Record<string, string | undefined>;
  /** See `RuntimeOptions.extraCaCertsFile`. */
  readonly extraCaCertsFile: string | null;
  /** Every time-defined wait and every clock reading of the script goes
   * through it (clock.ts): real, or virtual under `harn test --deterministic`. */
  readonly clock: Clock;
  private readonly slots = new Map<RuntimeSlot<unknown>, unknown>();
  private readonly disposers: Disposer[] = [];
  private readonly exitHooks: Disposer[] = [];

  constructor(options: RuntimeOptions) {
    this.stdout = options.stdout;
    this.stderr = options.stderr;
    this.cwd = options.cwd;
    this.env = options.env;
    this.extraCaCertsFile = options.extraCaCertsFile ?? null;
    this.clock = options.clock ?? realClock;
    if (options.argv) this.globals.set("argv", options.argv);
  }

  /** Define (or replace) builtin `name`; `unary`, when given, is its
   * one-argument form (see `UnaryBuiltinFn`). */
  defineBuiltin(name: string, fn: BuiltinFn, unary?: UnaryBuiltinFn): void {
    this.builtins.set(name, fn);
    if (unary) this.unaryForms.set(fn, unary);
  }

  defineMethod(kind: string, name: string, fn: MethodFn): void {
    let table = this.methods.get(kind);
    if (!table) this.methods.set(kind, (table = new Map()));
    table.set(name, fn);
  }

  /** Per-runtime state of a stdlib module, created on first use. */
  slot<T>(key: RuntimeSlot<T>): T {
    let v = this.slots.get(key as RuntimeSlot<unknown>);
    if (v === undefined) {
      v = key.init(this);
      this.slots.set(key as RuntimeSlot<unknown>, v);
    }
    return v as T;
  }

  /** Register cleanup to run at shutdown; returns a function that
   * unregisters it (call it when the resource was released normally). */
  onShutdown(d: Disposer): () => void {
    this.disposers.push(d);
    return () => {
      const i = this.disposers.lastIndexOf(d);
      if (i >= 0) this.disposers.splice(i, 1);
    };
  }

  /** Register work that must finish when the program has ended but before
   * any disposer releases resources (the grace period of background
   * sub-agents, which still use processes and connections). Runs once, in
   * registration order. */
  beforeShutdown(hook: Disposer): void {
    this.exitHooks.push(hook);
  }

  /** Run the before-shutdown hooks, then every registered disposer, newest
   * first. Never throws. */
  async shutdown(): Promise<void> {
    for (const h of this.exitHooks.splice(0)) {
      try {
        await h();
      } catch {
        // a failing hook must not prevent cleanup
      }
    }
    while (this.disposers.length > 0) {
      const d = this.disposers.pop()!;
      try {
        await d();
      } catch {
        // cleanup must not mask the script's own outcome
      }
    }
  }
}

export function isPromise<T>(v: unknown): v is Promise<T> {
  return v instanceof Promise;
}
