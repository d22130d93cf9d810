/**
 * Shared state between tasks (spec/stdlib.md §18.4, semantics.md §9):
 * shared cells, shared maps and actor mailboxes. Tasks run on snapshots of
 * their creator's variables, so mutable state they share goes through
 * handles like these, which are shared by reference.
 *
 * The spec names these builtins without describing them; the behaviour
 * below is this implementation's documented choice:
 * - writes return the previous value; `*_cas` compares with `==` and
 *   returns whether it swapped (an absent map key compares as nil);
 * - mailboxes are bounded FIFO queues registered by name; `mailbox_send`
 *   never waits (false when the mailbox is full or closed);
 *   `mailbox_receive(mb, timeout?)` waits for the next message and returns
 *   nil on timeout or once the mailbox is closed and drained.
 */
import { display, equals, HarnError, HDict, HDuration, HOpaque, RuntimeSlot, typeOf, type CallContext, type CancelTimer, type Clock, type Value } from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";

class Cell {
  constructor(public value: Value) {}
}

class SharedMap {
  constructor(readonly entries: Map<string, Value>) {}
}

class Mailbox {
  readonly queue: Value[] = [];
  closed = false;
  sent = 0;
  received = 0;
  private waiters: (() => void)[] = [];
  constructor(
    readonly name: string,
    readonly capacity: number,
  ) {}

  wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves at the next send or close, at the deadline, or rejects when
   * the task is cancelled; never leaves a timer behind. */
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

interface SharedState {
  mailboxes: Map<string, Mailbox>;
  cells: number;
  maps: number;
  reads: number;
  writes: number;
  casFailures: number;
}

const SHARED = new RuntimeSlot<SharedState>("stdlib.shared", () => ({ mailboxes: new Map(), cells: 0, maps: 0, reads: 0, writes: 0, casFailures: 0 }));

function payload<T>(v: Value, kind: new (...a: never[]) => T): T | null {
  return v instanceof HOpaque && v.payload instanceof kind ? (v.payload as T) : null;
}

function need<T>(fn: string, v: Value, kind: new (...a: never[]) => T, what: string): T {
  const p = payload(v, kind);
  if (p === null) throw HarnError.thrown(`${fn}: first argument must be a ${what}, got ${typeOf(v)}`);
  return p;
}

function timeoutArg(v: Value): number | null {
  if (typeof v === "number") return v;
  if (v instanceof HDuration) return v.ms;
  return null;
}

function mailboxHandle(mb: Mailbox): HOpaque {
  return new HOpaque("mailbox", `<mailbox:${mb.name}>`, mb);
}

function receive(mb: Mailbox, ctx: CallContext, deadline: number | null): Value | Promise<Value> {
  if (mb.queue.length > 0) {
    mb.received++;
    const v = mb.queue.shift()!;
    return v;
  }
  if (mb.closed) return null;
  const clock = ctx.runtime.clock;
  const left = deadline === null ? null : deadline - clock.monotonic();
  if (left !== null && left <= 0) return null;
  return mb.wait(ctx.signal, left, clock).then(() => receive(mb, ctx, deadline));
}

export const SHARED_BUILTINS = builtinModule("core/shared", (def) => {
  def("shared_cell", (args, ctx) => {
    ctx.runtime.slot(SHARED).cells++;
    return new HOpaque("shared_cell", "<shared_cell>", new Cell(arg(args, 0)));
  });
  def("shared_get", (args, ctx) => {
    const c = need("shared_get", arg(args, 0), Cell, "shared cell");
    ctx.runtime.slot(SHARED).reads++;
    return c.value;
  });
  def("shared_snapshot", (args, ctx) => {
    const c = need("shared_snapshot", arg(args, 0), Cell, "shared cell");
    ctx.runtime.slot(SHARED).reads++;
    return c.value;
  });
  def("shared_set", (args, ctx) => {
    const c = need("shared_set", arg(args, 0), Cell, "shared cell");
    const prev = c.value;
    c.value = arg(args, 1);
    ctx.runtime.slot(SHARED).writes++;
    return prev;
  });
  def("shared_cas", (args, ctx) => {
    const c = need("shared_cas", arg(args, 0), Cell, "shared cell");
    const st = ctx.runtime.slot(SHARED);
    if (!equals(c.value, arg(args, 1))) {
      st.casFailures++;
      return false;
    }
    c.value = arg(args, 2);
    st.writes++;
    return true;
  });

  def("shared_map", (args, ctx) => {
    const init = arg(args, 0);
    ctx.runtime.slot(SHARED).maps++;
    return new HOpaque("shared_map", "<shared_map>", new SharedMap(new Map(init instanceof HDict ? init.map : [])));
  });
  def("shared_map_get", (args, ctx) => {
    const m = need("shared_map_get", arg(args, 0), SharedMap, "shared map");
    ctx.runtime.slot(SHARED).reads++;
    const k = display(arg(args, 1));
    return m.entries.has(k) ? m.entries.get(k)! : arg(args, 2);
  });
  def("shared_map_set", (args, ctx) => {
    const m = need("shared_map_set", arg(args, 0), SharedMap, "shared map");
    const k = display(arg(args, 1));
    const prev = m.entries.get(k) ?? null;
    m.entries.set(k, arg(args, 2));
    ctx.runtime.slot(SHARED).writes++;
    return prev;
  });
  def("shared_map_delete", (args, ctx) => {
    const m = need("shared_map_delete", arg(args, 0), SharedMap, "shared map");
    ctx.runtime.slot(SHARED).writes++;
    return m.entries.delete(display(arg(args, 1)));
  });
  def("shared_map_cas", (args, ctx) => {
    const m = need("shared_map_cas", arg(args, 0), SharedMap, "shared map");
    const k = display(arg(args, 1));
    const st = ctx.runtime.slot(SHARED);
    if (!equals(m.entries.get(k) ?? null, arg(args, 2))) {
      st.casFailures++;
      return false;
    }
    m.entries.set(k, arg(args, 3));
    st.writes++;
    return true;
  });
  const snapshot = (m: SharedMap) => new HDict(new Map(m.entries));
  def("shared_map_snapshot", (args) => snapshot(need("shared_map_snapshot", arg(args, 0), SharedMap, "shared map")));
  def("shared_map_entries", (args) => {
    const d = snapshot(need("shared_map_entries", arg(args, 0), SharedMap, "shared map"));
    return d.keys().map((k) => HDict.of({ key: k, value: d.map.get(k)! }));
  });
  def("shared_metrics", (_a, ctx) => {
    const st = ctx.runtime.slot(SHARED);
    return HDict.of({ cells: st.cells, maps: st.maps, reads: st.reads, writes: st.writes, cas_failures: st.casFailures });
  });

  // -- mailboxes ------------------------------------------------------------

  const mailbox = (fn: string, v: Value, ctx: CallContext): Mailbox => {
    if (typeof v === "string") {
      const mb = ctx.runtime.slot(SHARED).mailboxes.get(v);
      if (!mb) throw HarnError.thrown(`${fn}: no mailbox named '${v}'`);
      return mb;
    }
    return need(fn, v, Mailbox, "mailbox");
  };

  def("mailbox_open", (args, ctx) => {
    const name = args.length > 0 && args[0] !== null ? display(args[0]!) : "default";
    const cap = arg(args, 1);
    const boxes = ctx.runtime.slot(SHARED).mailboxes;
    let mb = boxes.get(name);
    if (!mb || mb.closed) boxes.set(name, (mb = new Mailbox(name, typeof cap === "number" && cap > 0 ? cap : 256)));
    return mailboxHandle(mb);
  });
  def("mailbox_lookup", (args, ctx) => {
    const mb = ctx.runtime.slot(SHARED).mailboxes.get(display(arg(args, 0)));
    return mb && !mb.closed ? mailboxHandle(mb) : null;
  });
  def("mailbox_send", (args, ctx) => {
    const mb = mailbox("mailbox_send", arg(args, 0), ctx);
    if (mb.closed || mb.queue.length >= mb.capacity) return false;
    mb.queue.push(arg(args, 1));
    mb.sent++;
    mb.wake();
    return true;
  });
  def("mailbox_try_receive", (args, ctx) => {
    const mb = mailbox("mailbox_try_receive", arg(args, 0), ctx);
    if (mb.queue.length === 0) return null;
    mb.received++;
    return mb.queue.shift()!;
  });
  def("mailbox_receive", (args, ctx) => {
    const mb = mailbox("mailbox_receive", arg(args, 0), ctx);
    const t = timeoutArg(arg(args, 1));
    return receive(mb, ctx, t === null ? null : ctx.runtime.clock.monotonic() + t);
  });
  def("mailbox_close", (args, ctx) => {
    const mb = mailbox("mailbox_close", arg(args, 0), ctx);
    mb.closed = true;
    mb.wake();
    return null;
  });
  def("mailbox_metrics", (args, ctx) => {
    const mb = mailbox("mailbox_metrics", arg(args, 0), ctx);
    return HDict.of({ name: mb.name, capacity: mb.capacity, queued: mb.queue.length, sent: mb.sent, received: mb.received, closed: mb.closed });
  });
});
