/**
 * Shared cells and shared maps (spec/core-gaps.md §6.1): scoped handles
 * with versions, snapshots and compare-and-swap, shared by every task of
 * the run. Addressing and scopes are shared-state.ts; mailboxes are
 * mailbox.ts.
 */
import { display, equals, HarnError, HDict, type CallContext, type Value } from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";
import { address, Cell, counters, entryKey, handle, mailboxMetrics, openAddress, resolveScope, SHARED, SharedMap, type Counters, type Mailbox, type SharedKind } from "./shared-state";

function required(fn: string, args: Value[], n: number, text: string): void {
  if (args.length < n) throw HarnError.runtime(`${fn}: ${text}`);
}

function snapshot(value: Value, version: number): HDict {
  return HDict.of({ _type: "shared_snapshot", value, version });
}

/** Compare-and-swap's test (§6.1): a snapshot must match in version and
 * value, anything else in value (`==`). Counts the failure. */
function casMatches(c: Counters, current: Value, expected: Value): boolean {
  let ok: boolean;
  if (expected instanceof HDict && expected.get("_type") === "shared_snapshot") {
    const version = expected.get("version") ?? null;
    const stale = version !== c.version;
    ok = !stale && equals(current, expected.get("value") ?? null);
    if (!ok && stale) c.staleReads++;
  } else ok = equals(current, expected);
  if (ok) {
    c.casSuccesses++;
    c.writes++;
    c.version++;
  } else c.casFailures++;
  return ok;
}

export const SHARED_BUILTINS = builtinModule("core/shared", (def) => {
  const cell = (fn: string, args: Value[], ctx: CallContext, create: boolean): Cell | undefined => {
    required(fn, args, 1, "handle is required");
    const a = address(fn, "shared_cell", args[0]!, ctx);
    const table = ctx.runtime.slot(SHARED).shared_cell;
    let c = table.get(entryKey(a.scope, a.key));
    if (!c && create) table.set(entryKey(a.scope, a.key), (c = new Cell(null)));
    return c;
  };
  const map = (fn: string, args: Value[], ctx: CallContext, create: boolean): SharedMap | undefined => {
    required(fn, args, 1, "handle is required");
    const a = address(fn, "shared_map", args[0]!, ctx);
    const table = ctx.runtime.slot(SHARED).shared_map;
    let m = table.get(entryKey(a.scope, a.key));
    if (!m && create) table.set(entryKey(a.scope, a.key), (m = new SharedMap(new Map())));
    return m;
  };

  def("shared_cell", (args, ctx) => {
    const { addr, opts } = openAddress("shared_cell", "shared_cell", arg(args, 0), ctx);
    const table = ctx.runtime.slot(SHARED).shared_cell;
    const k = entryKey(addr.scope, addr.key);
    if (!table.has(k)) table.set(k, new Cell(opts?.has("initial") ? opts.get("initial")! : arg(args, 1)));
    return handle("shared_cell", addr);
  });
  def("shared_get", (args, ctx) => {
    const c = cell("shared_get", args, ctx, false);
    if (!c) return null;
    c.reads++;
    return c.value;
  });
  def("shared_snapshot", (args, ctx) => {
    const c = cell("shared_snapshot", args, ctx, false);
    if (!c) return snapshot(null, 0);
    c.reads++;
    return snapshot(c.value, c.version);
  });
  def("shared_set", (args, ctx) => {
    const c = cell("shared_set", args, ctx, true)!;
    const prev = c.value;
    c.value = arg(args, 1);
    c.version++;
    c.writes++;
    return prev;
  });
  def("shared_cas", (args, ctx) => {
    required("shared_cas", args, 3, "requires handle, expected, and new value");
    const c = cell("shared_cas", args, ctx, true)!;
    if (!casMatches(c, c.value, args[1]!)) return false;
    c.value = args[2]!;
    return true;
  });

  def("shared_map", (args, ctx) => {
    const { addr, opts } = openAddress("shared_map", "shared_map", arg(args, 0), ctx);
    const table = ctx.runtime.slot(SHARED).shared_map;
    const k = entryKey(addr.scope, addr.key);
    if (!table.has(k)) {
      const init = opts?.has("initial") ? opts.get("initial")! : arg(args, 1);
      table.set(k, new SharedMap(new Map(init instanceof HDict ? init.map : [])));
    }
    return handle("shared_map", addr);
  });
  def("shared_map_get", (args, ctx) => {
    required("shared_map_get", args, 2, "requires handle and key");
    const m = map("shared_map_get", args, ctx, false);
    const k = display(args[1]!);
    if (!m) return arg(args, 2);
    m.reads++;
    return m.entries.has(k) ? m.entries.get(k)! : arg(args, 2);
  });
  def("shared_map_snapshot", (args, ctx) => {
    required("shared_map_snapshot", args, 2, "requires handle and key");
    const m = map("shared_map_snapshot", args, ctx, false);
    if (!m) return snapshot(null, 0);
    m.reads++;
    return snapshot(m.entries.get(display(args[1]!)) ?? null, m.version);
  });
  def("shared_map_set", (args, ctx) => {
    required("shared_map_set", args, 3, "requires handle, key, and value");
    const m = map("shared_map_set", args, ctx, true)!;
    const k = display(args[1]!);
    const prev = m.entries.get(k) ?? null;
    m.entries.set(k, args[2]!);
    m.version++;
    m.writes++;
    return prev;
  });
  def("shared_map_delete", (args, ctx) => {
    required("shared_map_delete", args, 2, "requires handle and key");
    const m = map("shared_map_delete", args, ctx, false);
    const k = display(args[1]!);
    if (!m || !m.entries.has(k)) return null;
    const prev = m.entries.get(k)!;
    m.entries.delete(k);
    m.version++;
    m.writes++;
    return prev;
  });
  def("shared_map_cas", (args, ctx) => {
    required("shared_map_cas", args, 4, "requires handle, key, expected, and new value");
    const m = map("shared_map_cas", args, ctx, true)!;
    const k = display(args[1]!);
    if (!casMatches(m, m.entries.get(k) ?? null, args[2]!)) return false;
    const next = args[3]!;
    if (next === null) m.entries.delete(k);
    else m.entries.set(k, next);
    return true;
  });
  def("shared_map_entries", (args, ctx) => {
    const m = map("shared_map_entries", args, ctx, false);
    if (!m) return new HDict(new Map());
    m.reads++;
    return new HDict(new Map(m.entries));
  });

  def("shared_scope_id", (args, ctx) => {
    const raw = arg(args, 0);
    const opts = arg(args, 1);
    return resolveScope("shared_scope_id", raw === null ? null : display(raw), opts instanceof HDict ? opts : null, ctx);
  });

  def("shared_metrics", (args, ctx) => {
    const tables = ctx.runtime.slot(SHARED);
    const h = arg(args, 0);
    if (h instanceof HDict) {
      const kind = h.get("_type") ?? null;
      if (kind === null) throw HarnError.runtime("shared_metrics: handle missing _type");
      const k = display(kind) as SharedKind;
      const a = address("shared_metrics", k, h, ctx);
      if (k === "mailbox") return mailboxMetrics(tables.mailbox.get(entryKey(a.scope, a.key)));
      if (k === "shared_map") return counters(tables.shared_map.get(entryKey(a.scope, a.key)));
      return counters(tables.shared_cell.get(entryKey(a.scope, a.key)));
    }
    const out: Value[] = [];
    const list = (kind: SharedKind, entries: Map<string, Counters | Mailbox>) => {
      for (const [k, v] of entries) {
        const [scope, key] = k.split("\0") as [string, string];
        const metrics = kind === "mailbox" ? mailboxMetrics(v as Mailbox) : counters(v as Counters);
        const d = new Map(metrics.map);
        d.set("_type", kind);
        d.set("key", key);
        d.set("scope", scope);
        out.push(new HDict(d));
      }
    };
    list("shared_cell", tables.shared_cell);
    list("shared_map", tables.shared_map);
    list("mailbox", tables.mailbox);
    return out;
  });
});
