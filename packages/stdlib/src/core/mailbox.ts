/**
 * Mailboxes (spec/core-gaps.md §6.1): bounded FIFO queues addressed like
 * shared cells (shared-state.ts), shared by every task of the run. A send
 * waits while the mailbox is full; a receive waits for the next message.
 */
import { HarnError, HDuration, type CallContext, type Value } from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";
import { address, entryKey, handle, Mailbox, mailboxMetrics, openAddress, SHARED } from "./shared-state";

function lookup(fn: string, args: Value[], ctx: CallContext, missing: string): Mailbox | undefined {
  if (args.length < 1 || args[0] === null) throw HarnError.runtime(`${fn}: ${missing}`);
  const a = address(fn, "mailbox", args[0]!, ctx);
  return ctx.runtime.slot(SHARED).mailbox.get(entryKey(a.scope, a.key));
}

function send(mb: Mailbox, v: Value, ctx: CallContext): boolean | Promise<boolean> {
  if (mb.closed) {
    mb.failedSends++;
    return false;
  }
  if (mb.queue.length < mb.capacity) {
    mb.queue.push(v);
    mb.sent++;
    mb.wake();
    return true;
  }
  return mb.wait(ctx.signal, null, ctx.runtime.clock).then(() => send(mb, v, ctx));
}

function take(mb: Mailbox): Value {
  mb.received++;
  const v = mb.queue.shift()!;
  mb.wake();
  return v;
}

/** The next message; nil once closed and drained, or at the deadline (a
 * `timeout` argument, this implementation's extension). */
function receive(mb: Mailbox, ctx: CallContext, deadline: number | null): Value | Promise<Value> {
  if (mb.queue.length > 0) return take(mb);
  if (mb.closed) return null;
  const clock = ctx.runtime.clock;
  const left = deadline === null ? null : deadline - clock.monotonic();
  if (left !== null && left <= 0) return null;
  return mb.wait(ctx.signal, left, clock).then(() => receive(mb, ctx, deadline));
}

export const MAILBOX_BUILTINS = builtinModule("core/mailbox", (def) => {
  def("mailbox_open", (args, ctx) => {
    const { addr, opts } = openAddress("mailbox_open", "mailbox", arg(args, 0), ctx);
    const table = ctx.runtime.slot(SHARED).mailbox;
    const k = entryKey(addr.scope, addr.key);
    if (!table.has(k)) {
      const c = opts?.has("capacity") ? opts.get("capacity") : arg(args, 1);
      table.set(k, new Mailbox(typeof c === "number" ? Math.max(1, c) : 256));
    }
    return handle("mailbox", addr);
  });
  def("mailbox_lookup", (args, ctx) => {
    if (args.length < 1 || args[0] === null) throw HarnError.runtime("mailbox_lookup: name or handle is required");
    const a = address("mailbox_lookup", "mailbox", args[0]!, ctx);
    return ctx.runtime.slot(SHARED).mailbox.has(entryKey(a.scope, a.key)) ? handle("mailbox", a) : null;
  });
  def("mailbox_send", (args, ctx) => {
    if (args.length < 2) throw HarnError.runtime("mailbox_send: requires target and value");
    const mb = lookup("mailbox_send", args, ctx, "target is required");
    return mb ? send(mb, args[1]!, ctx) : false;
  });
  def("mailbox_receive", (args, ctx) => {
    const mb = lookup("mailbox_receive", args, ctx, "target is required");
    if (!mb) return null;
    const t = arg(args, 1);
    const ms = typeof t === "number" ? t : t instanceof HDuration ? t.ms : null;
    return receive(mb, ctx, ms === null ? null : ctx.runtime.clock.monotonic() + ms);
  });
  def("mailbox_try_receive", (args, ctx) => {
    const mb = lookup("mailbox_try_receive", args, ctx, "target is required");
    return mb && mb.queue.length > 0 ? take(mb) : null;
  });
  def("mailbox_close", (args, ctx) => {
    const mb = lookup("mailbox_close", args, ctx, "target is required");
    if (!mb || mb.closed) return false;
    mb.closed = true;
    mb.wake();
    return true;
  });
  def("mailbox_metrics", (args, ctx) => mailboxMetrics(lookup("mailbox_metrics", args, ctx, "target is required")));
});
