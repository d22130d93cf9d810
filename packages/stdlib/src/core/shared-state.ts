/**
 * Scoped shared state (spec/core-gaps.md §6.1): shared cells, shared maps
 * and mailboxes are addressed by (scope, key); a handle is the dict
 * `{_type: KIND, key, scope}`. This module resolves scopes from the
 * caller's task and keeps the per-runtime tables; shared.ts and
 * mailbox.ts define the builtins.
 */
import { display, HarnError, HDict, RuntimeSlot, Task, type CallContext, type CancelTimer, type Clock, type Value } from "@harn/vm";

export type SharedKind = "shared_cell" | "shared_map" | "mailbox";

export interface Counters {
  version: number;
  reads: number;
  writes: number;
  casSuccesses: number;
  casFailures: number;
  staleReads: number;
}

export class Cell implements Counters {
  version = 0;
  reads = 0;
  writes = 0;
  casSuccesses = 0;
  casFailures = 0;
  staleReads = 0;
  constructor(public value: Value) {}
}

export class SharedMap implements Counters {
  version = 0;
  reads = 0;
  writes = 0;
  casSuccesses = 0;
  casFailures = 0;
  staleReads = 0;
  constructor(readonly entries: Map<string, Value>) {}
}

export class Mailbox {
  readonly queue: Value[] = [];
  closed = false;
  sent = 0;
  received = 0;
  failedSends = 0;
  private waiters: (() => void)[] = [];
  constructor(readonly capacity: number) {}

  /** Wake every waiter (a send, a receive freeing room, a close). */
  wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves at the next change, at the deadline, or rejects when the
   * task is cancelled; never leaves a timer behind. */
  wait(signal: AbortSignal, timeoutMs: number | null, clock: Clock): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      let timer: CancelTimer | null = null;
      const done = () => {
        if (timer) timer();
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        if (timer) timer();
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(signal.reason);
      };
      if (timeoutMs !== null) timer = clock.timer(timeoutMs, done);
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(done);
    });
  }
}

/** Entries by `scope\0key`, in creation order (shared_metrics lists them so). */
export interface SharedTables {
  shared_cell: Map<string, Cell>;
  shared_map: Map<string, SharedMap>;
  mailbox: Map<string, Mailbox>;
}

export const SHARED = new RuntimeSlot<SharedTables>("stdlib.shared", () => ({ shared_cell: new Map(), shared_map: new Map(), mailbox: new Map() }));

export const entryKey = (scope: string, key: string): string => `${scope}\0${key}`;

export interface Address {
  scope: string;
  key: string;
}

function task(ctx: CallContext): Task | null {
  return ctx.task instanceof Task ? ctx.task : null;
}

function rootId(t: Task | null): string {
  let r = t;
  while (r?.parent) r = r.parent;
  return r ? r.id : "task_root";
}

const first = (...xs: (string | null | undefined)[]): string => xs.find((x) => x !== null && x !== undefined && x !== "") ?? "task_root";

/** `RAW:RESOLVED` for the caller (the table of §6.1). */
export function resolveScope(fn: string, raw: string | null, opts: HDict | null, ctx: CallContext): string {
  const name = raw ?? "task_group";
  const t = task(ctx);
  const root = rootId(t);
  const group = t?.groupId ?? null;
  const session = t && t.sessionId !== "" ? t.sessionId : null;
  let resolved: string;
  switch (name) {
    case "task":
    case "task_local":
    case "task-local":
      resolved = t ? t.id : "task_root";
      break;
    case "root_task":
    case "root-task":
      resolved = root;
      break;
    case "task_group":
    case "task-group":
    case "workflow":
    case "workflow_local":
    case "workflow-local":
    case "workflow_run":
    case "workflow-run":
    case "run":
      // run_id is never set outside a workflow runner, so both chains
      // reduce to the group, then the root.
      resolved = first(group, root);
      break;
    case "agent_session":
    case "agent-session":
    case "session":
      resolved = first(session, root);
      break;
    case "tenant":
    case "tenant_scoped":
    case "tenant-scoped": {
      const tenant = opts?.get("tenant_id") ?? null;
      if (tenant === null || tenant === "") throw HarnError.runtime(`${fn}: tenant scope requires tenant_id in options or runtime context`);
      resolved = display(tenant);
      break;
    }
    case "process":
    case "global":
      resolved = "process";
      break;
    case "durable":
    case "event_log":
    case "event-log":
      throw HarnError.runtime(`${fn}: durable shared state is explicit; use store_* or agent_state_* APIs`);
    case "external":
    case "host":
      throw HarnError.runtime(`${fn}: external shared state must be provided by a host/connector builtin`);
    default:
      resolved = name;
  }
  return `${name}:${resolved}`;
}

/** What an opening call names: `(opts dict | name, ...)`. */
export function openAddress(fn: string, kind: SharedKind, v: Value, ctx: CallContext): { addr: Address; opts: HDict | null } {
  const opts = v instanceof HDict ? v : null;
  let key: Value = null;
  if (opts) {
    const order = kind === "mailbox" ? ["name", "key"] : ["key", "name"];
    for (const k of order) {
      const x = opts.get(k) ?? null;
      if (x !== null) {
        key = x;
        break;
      }
    }
  } else key = v;
  const text = key === null ? "" : display(key);
  if (text === "") throw HarnError.runtime(`${fn}: key/name is required`);
  const scopeV = opts?.get("scope") ?? null;
  return { addr: { scope: resolveScope(fn, scopeV === null ? null : display(scopeV), opts, ctx), key: text }, opts };
}

/** The address of a handle dict or bare name. */
export function address(fn: string, kind: SharedKind, v: Value, ctx: CallContext): Address {
  if (v instanceof HDict) {
    if (v.get("_type") !== kind) throw HarnError.runtime(`${fn}: expected ${kind} handle`);
    const scope = v.get("scope") ?? null;
    const key = v.get("key") ?? null;
    if (scope === null) throw HarnError.runtime(`${fn}: ${kind} handle missing scope`);
    if (key === null) throw HarnError.runtime(`${fn}: ${kind} handle missing key`);
    return { scope: display(scope), key: display(key) };
  }
  const name = display(v);
  if (name === "") throw HarnError.runtime(`${fn}: name must not be empty`);
  return { scope: resolveScope(fn, null, null, ctx), key: name };
}

export function handle(kind: SharedKind, a: Address): HDict {
  return HDict.of({ _type: kind, key: a.key, scope: a.scope });
}

export function counters(c: Counters | undefined): HDict {
  return HDict.of({
    cas_failure_count: c?.casFailures ?? 0,
    cas_success_count: c?.casSuccesses ?? 0,
    read_count: c?.reads ?? 0,
    stale_read_count: c?.staleReads ?? 0,
    version: c?.version ?? 0,
    write_count: c?.writes ?? 0,
  });
}

export function mailboxMetrics(mb: Mailbox | undefined): HDict {
  return HDict.of({
    capacity: mb?.capacity ?? 0,
    closed: mb?.closed ?? false,
    depth: mb?.queue.length ?? 0,
    failed_send_count: mb?.failedSends ?? 0,
    received_count: mb?.received ?? 0,
    sent_count: mb?.sent ?? 0,
  });
}
