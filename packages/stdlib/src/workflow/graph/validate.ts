/**
 * Workflow validation (spec/workflows.md §1.3): structure, node-kind rules
 * and capability policies against a ceiling, with the exact messages in
 * the spec's order, then the tool-surface diagnostics of node tools.
 */
import { validateSurface } from "../../agent/tools/surface";
import { HDict, type Value } from "@harn/vm";
import { capabilityPolicy } from "./normalize";

export const BUILTIN_CEILING = (): HDict =>
  capabilityPolicy(HDict.of({ tools: [], capabilities: HDict.empty(), workspace_roots: [], side_effect_level: "network", recursion_limit: 8 }));

const strs = (v: Value): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** The first way `policy` exceeds `ceiling`, or null. */
export function ceilingViolation(policy: HDict, ceiling: HDict): string | null {
  const allowed = strs(ceiling.get("tools"));
  if (allowed.length > 0) {
    const denied = strs(policy.get("tools")).filter((t) => !allowed.includes(t));
    if (denied.length > 0) return `requested tools exceed host ceiling: ${denied.join(", ")}`;
  }
  const caps = policy.get("capabilities");
  const ceilCaps = ceiling.get("capabilities");
  if (caps instanceof HDict && ceilCaps instanceof HDict) {
    for (const cap of [...caps.keys()].sort()) {
      if (ceilCaps.has(cap)) {
        const ok = strs(ceilCaps.get(cap));
        const extra = strs(caps.get(cap)).filter((op) => !ok.includes(op));
        if (extra.length > 0) return `requested capability operations exceed host ceiling: ${cap}.${extra.join(",")}`;
      } else if (ceilCaps.size > 0) {
        return `requested capability exceeds host ceiling: ${cap}`;
      }
    }
  }
  return null;
}

export interface Validation {
  valid: boolean;
  errors: string[];
  warnings: string[];
  reachable: string[];
}

export function validateGraph(graph: HDict, ceiling: HDict): Validation {
  const errors: string[] = [];
  const warnings: string[] = [];
  const nodes = graph.get("nodes") as HDict;
  const edges = (graph.get("edges") as Value[]).filter((e): e is HDict => e instanceof HDict);
  const entry = graph.get("entry") as string;
  if (!nodes.has(entry)) errors.push(`entry node does not exist: ${entry}`);
  for (const e of edges) {
    if (!nodes.has(String(e.get("from")))) errors.push(`edge.from references unknown node: ${String(e.get("from"))}`);
    if (!nodes.has(String(e.get("to")))) errors.push(`edge.to references unknown node: ${String(e.get("to"))}`);
  }
  const reachable = new Set<string>();
  const queue = nodes.has(entry) ? [entry] : [];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (reachable.has(id)) continue;
    reachable.add(id);
    for (const e of edges) if (e.get("from") === id && nodes.has(String(e.get("to")))) queue.push(String(e.get("to")));
  }
  const ids = [...nodes.keys()].sort();
  for (const id of ids) if (!reachable.has(id)) warnings.push(`node is unreachable: ${id}`);
  for (const id of ids) {
    const n = nodes.get(id) as HDict;
    const kind = n.get("kind");
    const input = n.get("input_contract") as HDict;
    const min = input.get("min_inputs");
    const max = input.get("max_inputs");
    if (typeof min === "number" && typeof max === "number" && min > max) errors.push(`node ${id}: input contract min_inputs exceeds max_inputs`);
    const out = edges.filter((e) => e.get("from") === id);
    const inc = edges.filter((e) => e.get("to") === id);
    if (kind === "condition" && !(out.some((e) => e.get("branch") === "true") && out.some((e) => e.get("branch") === "false"))) {
      errors.push(`node ${id}: condition nodes require both 'true' and 'false' branch edges`);
    }
    if (kind === "fork" && out.length < 2) errors.push(`node ${id}: fork nodes require at least two outgoing edges`);
    if (kind === "join" && inc.length < 2) warnings.push(`node ${id}: join node has fewer than two incoming edges`);
    const inputKinds = strs(input.get("input_kinds"));
    if (kind === "map") {
      const mp = n.get("map_policy") as HDict;
      if ((mp.get("items") as Value[]).length === 0 && mp.get("item_artifact_kind") === null && inputKinds.length === 0) {
        errors.push(`node ${id}: map nodes require items, item_artifact_kind, or input_contract.input_kinds`);
      }
    }
    if (kind === "reduce" && inputKinds.length === 0) warnings.push(`node ${id}: reduce node has no input_contract.input_kinds; it will consume all available artifacts`);
  }
  const graphViolation = ceilingViolation(graph.get("capability_policy") as HDict, ceiling);
  if (graphViolation !== null) errors.push(graphViolation);
  for (const id of ids) {
    const v = ceilingViolation((nodes.get(id) as HDict).get("capability_policy") as HDict, ceiling);
    if (v !== null) errors.push(`node ${id}: ${v}`);
  }
  // Tool-surface diagnostics of node tool registries (§1.3 last row,
  // §3.6): the node's tools under its policies, prompt and system text.
  for (const id of ids) {
    const n = nodes.get(id) as HDict;
    const tools = n.get("tools");
    if (!(tools instanceof HDict) && !Array.isArray(tools)) continue;
    const surface = HDict.of({ tools, policy: n.get("capability_policy"), approval_policy: n.get("approval_policy"), system: n.get("system"), prompt: n.get("prompt") });
    for (const d of validateSurface(surface).get("diagnostics") as HDict[]) {
      const text = `${String(d.get("code"))}: node ${id}: ${String(d.get("message"))}`;
      (d.get("severity") === "error" ? errors : warnings).push(text);
    }
  }
  return { valid: errors.length === 0, errors, warnings, reachable: [...reachable].sort() };
}

export function validationDict(v: Validation): HDict {
  return HDict.of({ valid: v.valid, errors: v.errors, warnings: v.warnings, reachable_nodes: v.reachable });
}
