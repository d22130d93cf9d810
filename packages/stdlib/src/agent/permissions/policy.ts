/**
 * Capability policies (spec/agents-surface.md §5.1): what tools and
 * capabilities a run may use. A loop, sub-agent or worker runs under its
 * requested policy intersected with the one already in force (the
 * ceiling).
 *
 * The policy in force is per session, not a global stack: a loop registers
 * its effective policy and permissions under its session id, and code
 * running inside it (tool handlers starting sub-agents, workers) finds the
 * ceiling through the caller's session id, which every task carries. So
 * concurrent loops never see each other's policies, and a background
 * worker keeps the ceiling captured when it was created.
 */
import { display, HarnError, HDict, RuntimeSlot, typeOf, type Runtime, type Value } from "@harn/vm";
import type { PermissionPolicy } from "./dynamic";

export interface CapabilityPolicy {
  tools: string[];
  capabilities: Map<string, string[]>;
  workspaceRoots: string[];
  sideEffectLevel: string | null;
  recursionLimit: number | null;
  /** Kept as given (P2 constraints and annotations). */
  toolArgConstraints: Value;
  toolAnnotations: Value;
}

/** A policy decoding failure: `<label>: policy parse error: <detail>`. */
export class PolicyParseError {
  constructor(readonly detail: string) {}
}

function strings(v: Value, field: string): string[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw new PolicyParseError(`${field}: expected a list of strings, got ${typeOf(v)}`);
  return v.map((x) => {
    if (typeof x !== "string") throw new PolicyParseError(`${field}: expected a list of strings, got an entry of type ${typeOf(x)}`);
    return x;
  });
}

/** Decode a policy dict (unknown keys ignored, missing = empty). */
export function parsePolicy(v: Value): CapabilityPolicy {
  if (!(v instanceof HDict)) throw new PolicyParseError(`expected a dict, got ${typeOf(v)}`);
  const caps = new Map<string, string[]>();
  const c = v.get("capabilities");
  if (c !== null) {
    if (!(c instanceof HDict)) throw new PolicyParseError(`capabilities: expected a dict, got ${typeOf(c)}`);
    for (const k of c.keys()) caps.set(k, strings(c.get(k), `capabilities.${k}`));
  }
  const level = v.get("side_effect_level");
  const limit = v.get("recursion_limit");
  if (limit !== null && typeof limit !== "number") throw new PolicyParseError(`recursion_limit: expected an int, got ${typeOf(limit)}`);
  return {
    tools: strings(v.get("tools"), "tools"),
    capabilities: caps,
    workspaceRoots: strings(v.get("workspace_roots"), "workspace_roots"),
    sideEffectLevel: level === null ? null : display(level),
    recursionLimit: limit,
    toolArgConstraints: v.get("tool_arg_constraints"),
    toolAnnotations: v.get("tool_annotations"),
  };
}

export function toolsPolicy(tools: string[]): CapabilityPolicy {
  return { tools, capabilities: new Map(), workspaceRoots: [], sideEffectLevel: null, recursionLimit: null, toolArgConstraints: null, toolAnnotations: null };
}

const LEVELS = ["none", "read_only", "workspace_write", "process_exec", "network"];

/** A policy `tools` entry that admits every tool that only reads
 * (workflows.md §5.13, the reference's worker policy). */
export const READ_ONLY_TOOLS = "read_only";

/** Name heuristics for a tool without read/write annotations: the verb
 * the name starts with (`read_file`, `listDir`, `search`). */
const READ_VERBS = /^(read|list|get|search|find|grep|glob|view|show|inspect|describe|lookup|stat)([_\-.A-Z]|$)/;

/** Whether a tool only reads: by its annotations (kind `read`/`search`,
 * side_effect_level `none`/`read_only`, MCP's `readOnlyHint`), else by its
 * name. */
export function isReadOnlyTool(name: string, annotations: HDict | null): boolean {
  if (annotations !== null) {
    const level = annotations.get("side_effect_level");
    if (typeof level === "string") return level === "none" || level === "read_only";
    const kind = annotations.get("kind");
    if (typeof kind === "string") return kind === "read" || kind === "search";
    const hint = annotations.get("readOnlyHint") ?? annotations.get("read_only");
    if (typeof hint === "boolean") return hint;
  }
  return READ_VERBS.test(name);
}

/** Whether `policy`'s tool list admits the tool (an empty list admits all). */
export function toolAdmitted(policy: CapabilityPolicy, name: string, annotations: HDict | null): boolean {
  if (policy.tools.length === 0 || policy.tools.includes(name)) return true;
  if (!policy.tools.includes(READ_ONLY_TOOLS)) return false;
  const fromPolicy = policy.toolAnnotations instanceof HDict ? policy.toolAnnotations.get(name) : null;
  return isReadOnlyTool(name, annotations ?? (fromPolicy instanceof HDict ? fromPolicy : null));
}

function lowerLevel(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  const ia = LEVELS.indexOf(a);
  const ib = LEVELS.indexOf(b);
  if (ia < 0) return b;
  if (ib < 0) return a;
  return ia <= ib ? a : b;
}

/** An empty side means "no restriction": the other side wins. */
function meet(a: string[], b: string[]): string[] {
  if (a.length === 0) return b.slice();
  if (b.length === 0) return a.slice();
  return b.filter((x) => a.includes(x));
}

/** Whether a tool list admits `name` itself or as a tool named for reading. */
function withinTools(tools: string[], name: string): boolean {
  return tools.includes(name) || (tools.includes(READ_ONLY_TOOLS) && (name === READ_ONLY_TOOLS || isReadOnlyTool(name, null)));
}

/** Tool lists meet like `meet`, a `read_only` entry admitting the read
 * tools of the other side. */
function meetTools(a: string[], b: string[]): string[] {
  if (a.length === 0) return b.slice();
  if (b.length === 0) return a.slice();
  return [...new Set([...b.filter((x) => withinTools(a, x)), ...a.filter((x) => withinTools(b, x))])];
}

/** `p` restricted to `tools` as well (no ceiling error: both are requests). */
export function narrowTools(p: CapabilityPolicy, tools: string[]): CapabilityPolicy {
  return { ...p, tools: meetTools(p.tools, tools) };
}

/** `intersect` for builtin `who`: a request beyond the ceiling is a
 * runtime error `WHO: reason`. */
export function intersectFor(who: string, ceiling: CapabilityPolicy | null, requested: CapabilityPolicy | null): CapabilityPolicy | null {
  try {
    return intersect(ceiling, requested);
  } catch (reason) {
    if (typeof reason === "string") throw HarnError.runtime(`${who}: ${reason}`);
    throw reason;
  }
}

/**
 * `ceiling ∩ requested`; a request beyond the ceiling throws the reason
 * as a string (the caller adds its prefix).
 */
export function intersect(ceiling: CapabilityPolicy | null, requested: CapabilityPolicy | null): CapabilityPolicy | null {
  if (ceiling === null) return requested;
  if (requested === null) return ceiling;
  if (ceiling.tools.length > 0) {
    const beyond = requested.tools.filter((t) => !withinTools(ceiling.tools, t));
    if (beyond.length > 0) throw `requested tools exceed host ceiling: ${beyond.join(", ")}`;
  }
  const caps = new Map<string, string[]>();
  if (ceiling.capabilities.size > 0) {
    for (const [cap, ops] of requested.capabilities) {
      const allowed = ceiling.capabilities.get(cap);
      if (allowed === undefined) throw `requested capability exceeds host ceiling: ${cap}`;
      const beyond = allowed.length === 0 ? [] : ops.filter((o) => !allowed.includes(o));
      if (beyond.length > 0) throw `requested capability operations exceed host ceiling: ${cap}.${beyond.join(",")}`;
    }
  }
  for (const [cap, ops] of ceiling.capabilities) caps.set(cap, ops);
  for (const [cap, ops] of requested.capabilities) caps.set(cap, meet(caps.get(cap) ?? [], ops));
  const limits = [ceiling.recursionLimit, requested.recursionLimit].filter((x): x is number => x !== null);
  return {
    tools: meetTools(ceiling.tools, requested.tools),
    capabilities: caps,
    workspaceRoots: meet(ceiling.workspaceRoots, requested.workspaceRoots),
    sideEffectLevel: lowerLevel(ceiling.sideEffectLevel, requested.sideEffectLevel),
    recursionLimit: limits.length === 0 ? null : Math.min(...limits),
    toolArgConstraints: requested.toolArgConstraints ?? ceiling.toolArgConstraints,
    toolAnnotations: requested.toolAnnotations ?? ceiling.toolAnnotations,
  };
}

/** A policy as a script sees it (worker snapshots, handles). */
export function policyDict(p: CapabilityPolicy): HDict {
  const caps = new Map<string, Value>();
  for (const [k, ops] of p.capabilities) caps.set(k, ops.slice());
  return HDict.of({
    tools: p.tools.slice(),
    capabilities: new HDict(caps),
    workspace_roots: p.workspaceRoots.slice(),
    side_effect_level: p.sideEffectLevel,
    recursion_limit: p.recursionLimit,
    tool_arg_constraints: p.toolArgConstraints,
    tool_annotations: p.toolAnnotations,
  });
}

/** What is in force inside a session: its execution policy and the stack
 * of dynamic permissions (outer first). */
export interface Governance {
  policy: CapabilityPolicy | null;
  permissions: readonly PermissionPolicy[];
  /** The loop's `command_policy` (command_policy.ts), if any. */
  commandPolicy?: HDict | null;
}

const NONE: Governance = { policy: null, permissions: [] };

const GOVERNANCE = new RuntimeSlot("agent.governance", () => new Map<string, Governance[]>());

/** The governance in force for code running in session `id` (a loop's
 * session; "" or undefined outside any loop). */
export function governanceOf(rt: Runtime, sessionId: string | undefined): Governance {
  if (!sessionId) return NONE;
  const stack = rt.slot(GOVERNANCE).get(sessionId);
  return stack && stack.length > 0 ? stack[stack.length - 1]! : NONE;
}

/** Register `g` for session `id` while a run lasts; returns the undo. */
export function enterGovernance(rt: Runtime, sessionId: string, g: Governance): () => void {
  const map = rt.slot(GOVERNANCE);
  const stack = map.get(sessionId) ?? [];
  stack.push(g);
  map.set(sessionId, stack);
  return () => {
    const i = stack.lastIndexOf(g);
    if (i >= 0) stack.splice(i, 1);
    if (stack.length === 0 && map.get(sessionId) === stack) map.delete(sessionId);
  };
}
