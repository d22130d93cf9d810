/**
 * Waitpoints (spec/core-gaps.md §3): named one-shot latches, `open` until
 * completed or cancelled. Two surfaces with records of their own shapes:
 * the natives behind `std/waitpoint` (`__waitpoint_*`, which throw on a
 * cancelled or timed-out wait) and the global `waitpoint_*` builtins
 * (whose wait returns a status). [TS decision] Records live in a per-run
 * registry per surface and a waiter is woken when a record changes.
 */
import { display, HarnError, HDict, RuntimeSlot, typeOf, type CallContext, type Runtime, type Value } from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";
import { uuidV7 } from "./encoding";
import { jsonCopy, rfc3339, timeoutMs, WAIT_RESULTS, Wakeups } from "./wait";

interface Waitpoint {
  id: string;
  status: "open" | "completed" | "cancelled";
  createdAt: string;
  createdBy: Value;
  completedAt: Value;
  completedBy: Value;
  cancelledAt: Value;
  cancelledBy: Value;
  reason: Value;
  metadata: Value;
  value: Value;
}

interface Registry {
  records: Map<string, Waitpoint>;
  wake: Wakeups;
}

const MODULE = new RuntimeSlot<Registry>("stdlib.waitpoint.module", () => ({ records: new Map(), wake: new Wakeups() }));
const BUILTIN = new RuntimeSlot<Registry>("stdlib.waitpoint.builtin", () => ({ records: new Map(), wake: new Wakeups() }));

function fresh(rt: Runtime, id: string, createdBy: Value, metadata: Value): Waitpoint {
  return { id, status: "open", createdAt: rfc3339(rt), createdBy, completedAt: null, completedBy: null, cancelledAt: null, cancelledBy: null, reason: null, metadata, value: null };
}

// ---------------------------------------------------------------------------
// Module surface (std/waitpoint)

function moduleRecord(w: Waitpoint): HDict {
  return HDict.of({
    cancelled_at: w.cancelledAt,
    cancelled_by: w.cancelledBy,
    completed_at: w.completedAt,
    completed_by: w.completedBy,
    created_at: w.createdAt,
    id: w.id,
    metadata: w.metadata,
    reason: w.reason,
    status: w.status,
    value: w.value,
  });
}

function moduleId(fn: string, v: Value): string {
  if (typeof v === "string") return v;
  if (v instanceof HDict) {
    const id = v.get("id");
    if (typeof id !== "string" || id === "") throw HarnError.runtime(`${fn}: missing string field \`id\``);
    return id;
  }
  throw HarnError.runtime(`${fn}: expected waitpoint id string or dict, got ${typeOf(v)}`);
}

function moduleOptions(fn: string, v: Value): HDict {
  if (v === null) return HDict.empty();
  if (!(v instanceof HDict)) throw HarnError.runtime(`${fn}: options must be a dict`);
  return v;
}

function terminal(fn: string, args: Value[], ctx: CallContext, to: "completed" | "cancelled"): Value {
  const reg = ctx.runtime.slot(MODULE);
  const id = moduleId(fn, arg(args, 0));
  const opts = moduleOptions(fn, arg(args, to === "completed" ? 2 : 1));
  const w = reg.records.get(id);
  if (!w) throw HarnError.runtime(`${fn}: unknown waitpoint '${id}'`);
  if (w.status === to) return moduleRecord(w);
  if (w.status !== "open") throw HarnError.runtime(`${fn}: waitpoint '${id}' is already ${w.status}`);
  const now = rfc3339(ctx.runtime);
  w.status = to;
  if (to === "completed") {
    w.completedAt = now;
    w.completedBy = opts.get("by");
    w.value = jsonCopy(arg(args, 1));
  } else {
    w.cancelledAt = now;
    w.cancelledBy = opts.get("by");
  }
  w.reason = opts.get("reason");
  if (opts.get("metadata") !== null) w.metadata = jsonCopy(opts.get("metadata"));
  reg.wake.notify();
  return moduleRecord(w);
}

function moduleWait(args: Value[], ctx: CallContext): Value | Promise<Value> {
  if (args.length === 0 || args[0] === null) throw HarnError.runtime("waitpoint.wait: missing waitpoint handle");
  const target = args[0]!;
  const many = Array.isArray(target);
  const ids = [...new Set((many ? target : [target]).map((h) => moduleId("waitpoint.wait", h).trim()).filter((s) => s !== ""))].sort();
  if (ids.length === 0) throw HarnError.runtime("waitpoint.wait: expected at least one waitpoint");
  const opts = moduleOptions("waitpoint.wait", arg(args, 1));
  const t = opts.get("timeout");
  const ms = t === null ? null : timeoutMs(t);
  if (t !== null && ms === null) throw HarnError.runtime("waitpoint.wait: expected a duration or millisecond count");
  const reg = ctx.runtime.slot(MODULE);
  const check = (): Value | undefined => {
    const records = ids.map((id) => {
      const w = reg.records.get(id);
      if (!w) throw HarnError.runtime(`waitpoint.wait: unknown waitpoint '${id}'`);
      return w;
    });
    const cancelled = records.find((w) => w.status === "cancelled");
    if (cancelled) {
      throw HarnError.thrown(
        HDict.of({
          category: "cancelled",
          message: cancelled.reason ?? "waitpoint was cancelled",
          name: "WaitpointCancelledError",
          reason: cancelled.reason,
          wait_id: "",
          waitpoint_ids: [cancelled.id],
        }),
      );
    }
    if (records.every((w) => w.status === "completed")) return many ? records.map(moduleRecord) : moduleRecord(records[0]!);
    return undefined;
  };
  return reg.wake.until(check, ctx.signal, ctx.runtime.clock, ms, () => {
    throw HarnError.thrown(HDict.of({ category: "timeout", message: "waitpoint timed out", name: "WaitpointTimeoutError", wait_id: "" }));
  });
}

// ---------------------------------------------------------------------------
// Builtin surface (waitpoint_*)

function builtinRecord(w: Waitpoint): HDict {
  return HDict.of({
    cancelled_at: w.cancelledAt,
    cancelled_by: w.cancelledBy,
    completed_at: w.completedAt,
    completed_by: w.completedBy,
    created_at: w.createdAt,
    created_by: w.createdBy,
    id: w.id,
    metadata: w.metadata,
    reason: w.reason,
    status: w.status,
  });
}

/** An optional string field: nil or blank is absent. */
function optString(field: string, v: Value): string | null {
  if (v === null) return null;
  if (typeof v !== "string") throw HarnError.runtime(`${field}: expected string, got ${typeOf(v)}`);
  return v.trim() === "" ? null : v;
}

function targetId(v: Value): string | null {
  if (Array.isArray(v)) return v.length > 0 ? targetId(v[0]!) : null;
  if (v instanceof HDict) return optString("id", v.get("id"));
  return v === null ? null : display(v);
}

function builtinTerminal(fn: string, args: Value[], ctx: CallContext, to: "completed" | "cancelled"): Value {
  const reg = ctx.runtime.slot(BUILTIN);
  const id = targetId(arg(args, 0)) ?? `waitpoint_${uuidV7(ctx.runtime)}`;
  const o = arg(args, 1);
  if (o !== null && !(o instanceof HDict)) throw HarnError.runtime(`${fn}: expected dict options, got ${typeOf(o)}`);
  const by = optString("by", o?.get("by") ?? null) ?? "system";
  const reason = optString("reason", o?.get("reason") ?? null);
  let w = reg.records.get(id);
  if (!w) reg.records.set(id, (w = fresh(ctx.runtime, id, "system", HDict.empty())));
  if (w.status !== "open") return builtinRecord(w);
  const now = rfc3339(ctx.runtime);
  w.status = to;
  if (to === "completed") {
    w.completedAt = now;
    w.completedBy = by;
  } else {
    w.cancelledAt = now;
    w.cancelledBy = by;
    w.reason = reason;
  }
  reg.wake.notify();
  return builtinRecord(w);
}

function collectIds(v: Value, out: string[]): void {
  if (Array.isArray(v)) {
    for (const x of v) collectIds(x, out);
    return;
  }
  if (typeof v === "string") out.push(v);
  else if (v instanceof HDict) {
    if (!v.has("id") || v.get("id") === null) throw HarnError.runtime("waitpoint_wait: waitpoint handle must include id");
    out.push(display(v.get("id")));
  } else throw HarnError.runtime(`waitpoint_wait: unsupported waitpoint target ${typeOf(v)}`);
}

function builtinWait(args: Value[], ctx: CallContext): Value | Promise<Value> {
  if (args.length === 0 || args[0] === null) throw HarnError.runtime("waitpoint_wait: expected a waitpoint id, handle, or list");
  const raw: string[] = [];
  collectIds(args[0]!, raw);
  const ids = [...new Set(raw.map((s) => s.trim()).filter((s) => s !== ""))];
  if (ids.length === 0) throw HarnError.runtime("waitpoint_wait: expected at least one waitpoint id");
  const o = arg(args, 1);
  if (o !== null && !(o instanceof HDict)) throw HarnError.runtime(`waitpoint_wait: expected dict options, got ${typeOf(o)}`);
  const t = o?.get("timeout") ?? null;
  const ms = t === null ? null : timeoutMs(t);
  if (t !== null && ms === null) throw HarnError.runtime("waitpoint_wait: expected timeout duration or millisecond count");
  const rt = ctx.runtime;
  const waitId = optString("wait_id", o?.get("wait_id") ?? null) ?? `waitpoint_wait_${uuidV7(rt)}`;
  const results = rt.slot(WAIT_RESULTS);
  const seen = results.get(waitId);
  if (seen !== undefined) return seen;
  const reg = rt.slot(BUILTIN);
  const startedAt = rfc3339(rt);
  const traceId = `trace_${uuidV7(rt)}`;
  const result = (status: string, cancelledId: string | null, reason: Value): Value => {
    const r = HDict.of({
      cancelled_waitpoint_id: cancelledId,
      reason,
      replay_of_event_id: null,
      resolved_at: rfc3339(rt),
      started_at: startedAt,
      status,
      trace_id: traceId,
      wait_id: waitId,
      waitpoint_ids: ids,
      waitpoints: ids.flatMap((id) => {
        const w = reg.records.get(id);
        return w ? [builtinRecord(w)] : [];
      }),
    });
    results.set(waitId, r);
    return r;
  };
  const check = (): Value | undefined => {
    const records = ids.map((id) => reg.records.get(id));
    const cancelled = records.find((w) => w?.status === "cancelled");
    if (cancelled) return result("cancelled", cancelled.id, cancelled.reason);
    if (records.every((w) => w?.status === "completed")) return result("completed", null, null);
    return undefined;
  };
  return reg.wake.until(check, ctx.signal, rt.clock, ms, () => result("timed_out", null, "deadline elapsed"));
}

export const WAITPOINT_BUILTINS = builtinModule("core/waitpoint", (def) => {
  def("__waitpoint_create", (args, ctx) => {
    const v = arg(args, 0);
    let id: string | null = null;
    let metadata: Value = null;
    if (typeof v === "string") id = v;
    else if (v instanceof HDict) {
      id = v.get("id") === null ? null : display(v.get("id"));
      metadata = jsonCopy(v.get("metadata"));
    } else if (v !== null) throw HarnError.runtime(`waitpoint.create: expected string id or dict, got ${typeOf(v)}`);
    const reg = ctx.runtime.slot(MODULE);
    const key = id === null || id === "" ? `waitpoint_${uuidV7(ctx.runtime)}` : id;
    let w = reg.records.get(key);
    if (!w) reg.records.set(key, (w = fresh(ctx.runtime, key, null, metadata)));
    return moduleRecord(w);
  });
  def("__waitpoint_complete", (args, ctx) => terminal("waitpoint.complete", args, ctx, "completed"));
  def("__waitpoint_cancel", (args, ctx) => terminal("waitpoint.cancel", args, ctx, "cancelled"));
  def("__waitpoint_wait", moduleWait);

  def("waitpoint_create", (args, ctx) => {
    const v = arg(args, 0);
    let id: string | null = null;
    let by: string | null = null;
    let metadata: Value = HDict.empty();
    if (typeof v === "string") id = optString("id", v);
    else if (v instanceof HDict) {
      id = optString("id", v.get("id"));
      by = optString("by", v.get("by"));
      const m = v.get("metadata");
      if (m !== null && !(m instanceof HDict)) throw HarnError.runtime("waitpoint_create: metadata must be a dict");
      if (m !== null) metadata = jsonCopy(m);
    } else if (v !== null) throw HarnError.runtime(`waitpoint_create: expected string or dict, got ${typeOf(v)}`);
    const reg = ctx.runtime.slot(BUILTIN);
    const key = id ?? `waitpoint_${uuidV7(ctx.runtime)}`;
    let w = reg.records.get(key);
    if (!w) reg.records.set(key, (w = fresh(ctx.runtime, key, by ?? "system", metadata)));
    return builtinRecord(w);
  });
  def("waitpoint_complete", (args, ctx) => builtinTerminal("waitpoint_complete", args, ctx, "completed"));
  def("waitpoint_cancel", (args, ctx) => builtinTerminal("waitpoint_cancel", args, ctx, "cancelled"));
  def("waitpoint_wait", builtinWait);
});
