/**
 * Dynamic permissions (spec/agents-surface.md §5.2): the `permissions`
 * option `{allow?, deny?, on_escalation?}` of `agent_loop`, `sub_agent_run`
 * and workflow stages. Rules map tool-name patterns to argument matchers;
 * a denial may be escalated to a closure that grants once, for the rest of
 * the loop (same tool and arguments), or not at all.
 */
import { HarnError, HDict, isPromise, truthy, typeOf, type CallContext, type Value } from "@harn/vm";
import { stringifyJson } from "../../core/json";
import { globMatch } from "../mock/state";
import { isCallback, type Callback } from "../loop/compaction";

type Matcher =
  | { kind: "any" }
  | { kind: "bool"; value: boolean }
  | { kind: "globs"; patterns: string[] }
  | { kind: "keyed"; key: string; patterns: string[] }
  | { kind: "predicate"; fn: Callback };

interface Rule {
  pattern: string;
  matcher: Matcher;
}

export interface PermissionPolicy {
  allow: Rule[];
  deny: Rule[];
  onEscalation: Callback | null;
}

function err(message: string): HarnError {
  return HarnError.runtime(message);
}

function globList(v: Value, where: string): string[] {
  const items = Array.isArray(v) ? v : [v];
  return items.map((x) => {
    if (typeof x !== "string") throw err(`${where}: pattern list entries must be strings`);
    return x;
  });
}

function matcherOf(v: Value, where: string): Matcher {
  if (v === null) return { kind: "any" };
  if (typeof v === "boolean") return { kind: "bool", value: v };
  if (typeof v === "string") return { kind: "globs", patterns: [v] };
  if (Array.isArray(v)) return { kind: "globs", patterns: globList(v, where) };
  if (isCallback(v)) return { kind: "predicate", fn: v };
  if (v instanceof HDict) {
    const key = v.get("arg_key") ?? v.get("key");
    const patterns = v.get("patterns") ?? v.get("arg_patterns") ?? v.get("allow");
    if (typeof key !== "string" || patterns === null) throw err(`${where}: dict matchers must include arg_key and patterns`);
    return { kind: "keyed", key, patterns: globList(patterns, where) };
  }
  throw err(`${where}: unsupported matcher type ${typeOf(v)}`);
}

function rules(v: Value, where: string): Rule[] {
  if (v === null) return [];
  if (Array.isArray(v)) {
    return v.map((p) => {
      if (typeof p !== "string") throw err(`${where}: list entries must be strings`);
      return { pattern: p, matcher: { kind: "any" } };
    });
  }
  if (v instanceof HDict) return v.keys().map((p) => ({ pattern: p, matcher: matcherOf(v.get(p), `${where}.${p}`) }));
  throw err(`${where}: expected a list or dict, got ${typeOf(v)}`);
}

/** The `permissions` option; null when absent. `label` names the builtin
 * in errors (`agent_loop`, `sub_agent_run`). */
export function parsePermissions(v: Value, label: string): PermissionPolicy | null {
  if (v === null) return null;
  if (!(v instanceof HDict)) throw err(`${label}: permissions must be a dict`);
  const esc = v.get("on_escalation");
  return { allow: rules(v.get("allow"), `${label}.allow`), deny: rules(v.get("deny"), `${label}.deny`), onEscalation: isCallback(esc) ? esc : null };
}

function stringLeaves(v: Value, out: string[]): void {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringLeaves(x, out);
  else if (v instanceof HDict) for (const k of v.keys()) stringLeaves(v.get(k), out);
}

async function matches(m: Matcher, args: HDict, ctx: CallContext): Promise<boolean> {
  switch (m.kind) {
    case "any":
      return true;
    case "bool":
      return m.value;
    case "globs": {
      const leaves: string[] = [];
      stringLeaves(args, leaves);
      if (leaves.length === 0) leaves.push(stringifyJson(args));
      return leaves.some((s) => m.patterns.some((p) => globMatch(p, s)));
    }
    case "keyed": {
      const v = args.get(m.key);
      return typeof v === "string" && m.patterns.some((p) => globMatch(p, v));
    }
    case "predicate": {
      let r = ctx.call(m.fn, [args]);
      if (isPromise<Value>(r)) r = await r;
      return truthy(r);
    }
  }
}

async function firstMatch(rs: Rule[], tool: string, args: HDict, ctx: CallContext): Promise<Rule | null> {
  for (const r of rs) if (globMatch(r.pattern, tool) && (await matches(r.matcher, args, ctx))) return r;
  return null;
}

export interface Decision {
  granted: boolean;
  reason: string;
}

/** Steps 2–3 of §5.2 for one policy. */
export async function decide(p: PermissionPolicy, tool: string, args: HDict, ctx: CallContext): Promise<Decision> {
  const denied = await firstMatch(p.deny, tool, args, ctx);
  if (denied) return { granted: false, reason: `permission denied by deny rule: ${denied.pattern}` };
  if (p.allow.length > 0 && (await firstMatch(p.allow, tool, args, ctx)) === null) {
    return { granted: false, reason: `permission denied: tool '${tool}' is not allowed by this agent's permissions` };
  }
  return { granted: true, reason: "permission allow rule matched" };
}

export interface Escalation {
  granted: boolean;
  /** `session`: remembered for the rest of the loop. */
  scope: "once" | "session" | null;
  reason: string;
  approver: Value;
}

function grantOf(g: Value, where: "dict" | "value"): { granted: boolean; scope: "once" | "session" | null } {
  if (g === true) return { granted: true, scope: "once" };
  if (g === false || g === null) return { granted: false, scope: null };
  if (typeof g === "string") {
    if (g === "once" || g === "session") return { granted: true, scope: g };
    if (g === "deny" || g === "denied" || g === "false") throw err("permissions on_escalation string denial must return false");
    throw err(`permissions on_escalation unsupported grant scope '${g}'`);
  }
  if (where === "dict") throw err(`permissions on_escalation grant must be false, true, 'once', or 'session', got ${typeOf(g)}`);
  throw err(`permissions on_escalation must return false, true, 'once', 'session', or {grant}, got ${typeOf(g)}`);
}

/** Step 4: ask the `on_escalation` closure. */
export async function escalate(p: PermissionPolicy, request: HDict, ctx: CallContext): Promise<Escalation> {
  let r = ctx.call(p.onEscalation!, [request]);
  if (isPromise<Value>(r)) r = await r;
  let reason: Value = null;
  let approver: Value = null;
  let g;
  if (r instanceof HDict) {
    g = grantOf(r.has("grant") ? r.get("grant") : r.get("granted"), "dict");
    reason = r.get("reason");
    approver = r.get("approver");
  } else g = grantOf(r, "value");
  const fallback = g.granted ? "permission escalation granted" : "permission escalation denied";
  return { ...g, reason: typeof reason === "string" && reason !== "" ? reason : fallback, approver };
}
