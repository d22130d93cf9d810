/**
 * The workflow graph builtins (spec/workflows.md §1.1–§1.4):
 * `workflow_graph`, `workflow_validate`, `workflow_inspect`,
 * `workflow_policy_report`, `workflow_commit` and `workflow_clone`.
 */
import { HDict, type Runtime, type Value } from "@harn/vm";
import { rfc3339 } from "../../core/wait";
import { builtinModule } from "../../registry/define";
import { fail, newId } from "../artifacts/record";
import { capabilityPolicy, normalizeGraph } from "./normalize";
import { BUILTIN_CEILING, validateGraph, validationDict } from "./validate";

function graphArg(rt: Runtime, v: Value, builtin: string): HDict {
  if (!(v instanceof HDict)) throw fail(`${builtin}: missing workflow`);
  return normalizeGraph(rt, v);
}

function ceilingArg(v: Value): HDict {
  return v instanceof HDict ? capabilityPolicy(v) : BUILTIN_CEILING();
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
  def("workflow_clone", (args) => {
    const g = graphArg(rt, args[0] ?? null, "workflow_clone");
    return audited(rt, g.with("id", `${g.get("id") as string}_clone`).with("version", (g.get("version") as number) + 1), "clone", null, null);
  });
});
