/**
 * The workflow graph builtins (spec/workflows.md §1.1–§1.4):
 * `workflow_graph`, `workflow_validate`, `workflow_inspect`,
 * `workflow_policy_report`, `workflow_commit`, `workflow_clone` and the
 * editing builtins (insert, replace, rewire, set a node field, diff).
 */
import { HDict, type Runtime, type Value } from "@harn/vm";
import { rfc3339 } from "../../core/wait";
import { builtinModule } from "../../registry/define";
import { fail, newId } from "../artifacts/record";
import { capabilityPolicy, normalizeGraph, normalizeNode } from "./normalize";
import { stringifyJsonKeepingFloats, toJson } from "../../core/json";
import { BUILTIN_CEILING, validateGraph, validationDict } from "./validate";

function graphArg(rt: Runtime, v: Value, builtin: string): HDict {
  if (!(v instanceof HDict)) throw fail(`${builtin}: missing workflow`);
  return normalizeGraph(rt, v);
}

function ceilingArg(v: Value): HDict {
  return v instanceof HDict ? capabilityPolicy(v) : BUILTIN_CEILING();
}

/** The graph with node `id` set to `node` (normalised). */
function withNode(g: HDict, id: string, node: Value): HDict {
  return g.with("nodes", (g.get("nodes") as HDict).with(id, normalizeNode(id, node)));
}

const idArg = (v: Value | undefined, builtin: string, what: string): string => {
  if (typeof v !== "string" || v === "") throw fail(`${builtin}: missing ${what}`);
  return v;
};

/** `workflow_set_<field>(graph, node_id, value)`: replace one node field. */
function setField(rt: Runtime, args: Value[], field: string): HDict {
  const builtin = `workflow_set_${field}`;
  const g = graphArg(rt, args[0] ?? null, builtin);
  const id = idArg(args[1], builtin, "node id");
  const value = args[2] ?? null;
  if (field === "output_visibility" && value !== null && typeof value !== "string") throw fail(`${builtin}: value must be a string or nil`);
  const node = (g.get("nodes") as HDict).get(id);
  if (!(node instanceof HDict)) throw fail(`${builtin}: unknown node ${id}`);
  return audited(rt, withNode(g, id, node.with(field, value)), `set_${field}`, id, null);
}

/** The graph with one more audit entry. */
function audited(rt: Runtime, g: HDict, op: string, nodeId: Value, reason: Value): HDict {
  const entry = HDict.of({ id: newId(rt, "audit"), op, node_id: nodeId, timestamp: rfc3339(rt), reason, metadata: HDict.empty() });
  return g.with("audit_log", [...(g.get("audit_log") as Value[]), entry]);
}

export const WORKFLOW_GRAPH_BUILTINS = builtinModule("workflow/graph", (def, rt) => {
  def("workflow_graph", (args) => graphArg(rt, args[0] ?? null, "workflow_graph"));
  def("workflow_validate", (args) => validationDict(validateGraph(graphArg(rt, args[0] ?? null, "workflow_validate"), ceilingArg(args[1] ?? null))));
  def("workflow_inspect", (args) => {
    const g = graphArg(rt, args[0] ?? null, "workflow_inspect");
    return HDict.of({
      graph: g,
      validation: validationDict(validateGraph(g, ceilingArg(args[1] ?? null))),
      node_count: (g.get("nodes") as HDict).size,
      edge_count: (g.get("edges") as Value[]).length,
    });
  });
  def("workflow_policy_report", (args) => {
    const g = graphArg(rt, args[0] ?? null, "workflow_policy_report");
    const ceiling = ceilingArg(args[1] ?? null);
    const nodes = g.get("nodes") as HDict;
    return HDict.of({
      workflow_policy: g.get("capability_policy"),
      ceiling,
      validation: validationDict(validateGraph(g, ceiling)),
      nodes: [...nodes.keys()].sort().map((id) => {
        const n = nodes.get(id) as HDict;
        const policy = n.get("capability_policy") as HDict;
        return HDict.of({ node_id: id, policy, tools: policy.get("tools") });
      }),
    });
  });
  def("workflow_commit", (args) => {
    const g = graphArg(rt, args[0] ?? null, "workflow_commit");
    const v = validateGraph(g, BUILTIN_CEILING());
    if (!v.valid) throw fail(`workflow_commit: invalid workflow: ${v.errors.join("; ")}`);
    const reason = args[1];
    return audited(rt, g, "commit", null, typeof reason === "string" && reason !== "" ? reason : null);
  });
  def("workflow_insert_node", (args) => {
    const b = "workflow_insert_node";
    const g = graphArg(rt, args[0] ?? null, b);
    const node = args[1] ?? null;
    if (!(node instanceof HDict)) throw fail(`${b}: missing node`);
    const given = node.get("id");
    const id = typeof given === "string" && given !== "" ? given : `node_${(g.get("nodes") as HDict).size + 1}`;
    let out = withNode(g, id, node);
    const edge = args[2] ?? null;
    if (edge instanceof HDict) out = normalizeGraph(rt, out.with("edges", [...(out.get("edges") as Value[]), edge]));
    return audited(rt, out, "insert_node", id, null);
  });
  def("workflow_replace_node", (args) => {
    const b = "workflow_replace_node";
    const g = graphArg(rt, args[0] ?? null, b);
    const id = idArg(args[1], b, "node id");
    const node = args[2] ?? null;
    if (!(node instanceof HDict)) throw fail(`${b}: missing node`);
    return audited(rt, withNode(g, id, node), "replace_node", id, null);
  });
  def("workflow_rewire", (args) => {
    const b = "workflow_rewire";
    const g = graphArg(rt, args[0] ?? null, b);
    const from = idArg(args[1], b, "from");
    const to = idArg(args[2], b, "to");
    const branch = typeof args[3] === "string" ? args[3] : null;
    const kept = (g.get("edges") as HDict[]).filter((e) => !(e.get("from") === from && e.get("branch") === branch));
    const edge = HDict.of({ from, to, branch, label: null });
    return audited(rt, g.with("edges", [...kept, edge]), "rewire", from, null);
  });
  for (const field of ["model_policy", "context_policy", "auto_compact", "output_visibility"]) {
    def(`workflow_set_${field}`, (args) => setField(rt, args, field));
  }
  def("workflow_diff", (args) => {
    const l = args[0] ?? null;
    const r = args[1] ?? null;
    if (!(l instanceof HDict)) throw fail("workflow_diff: missing left workflow");
    if (!(r instanceof HDict)) throw fail("workflow_diff: missing right workflow");
    const left = normalizeGraph(rt, l);
    const right = normalizeGraph(rt, r);
    const json = (g: HDict) => stringifyJsonKeepingFloats(toJson(g));
    return HDict.of({ changed: json(left) !== json(right), left, right });
  });
  def("workflow_clone", (args) => {
    const g = graphArg(rt, args[0] ?? null, "workflow_clone");
    return audited(rt, g.with("id", `${g.get("id") as string}_clone`).with("version", (g.get("version") as number) + 1), "clone", null, null);
  });
});
