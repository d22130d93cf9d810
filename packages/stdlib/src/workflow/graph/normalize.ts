/**
 * Workflow graph values (spec/workflows.md §1.1, §1.2): `workflow_graph`
 * normalises a dict (or the `act`/`verify`/`repair` shorthand) into a graph
 * whose nodes and sub-records have every key, serde-style. Node `tools`
 * stay the value given, closures included.
 */
import { HDict, isNumeric, toJsNumber, float, type Runtime, type Value } from "@harn/vm";
import { newId } from "../artifacts/record";

type FieldKind = "str" | "int" | "num" | "bool" | "list" | "dict" | "any";
type Fields = [string, FieldKind, Value?][];

/** A record with exactly `fields`: wrong-typed or missing values take the
 * default (nil, `[]`, `{}` or the one given). */
function record(raw: Value, fields: Fields, passThrough: string[] = []): HDict {
  const src = raw instanceof HDict ? raw : HDict.empty();
  const m = new Map<string, Value>();
  for (const [key, kind, dflt] of fields) {
    const v = src.get(key);
    let out: Value;
    switch (kind) {
      case "str":
        out = typeof v === "string" ? v : null;
        break;
      case "int":
        out = isNumeric(v) ? Math.trunc(toJsNumber(v)) : null;
        break;
      case "num":
        out = isNumeric(v) ? (typeof v === "number" && Number.isInteger(v) ? v : float(toJsNumber(v))) : null;
        break;
      case "bool":
        out = typeof v === "boolean" ? v : null;
        break;
      case "list":
        out = Array.isArray(v) ? v : [];
        break;
      case "dict":
        out = v instanceof HDict ? v : HDict.empty();
        break;
      default:
        out = v;
    }
    m.set(key, out ?? dflt ?? null);
  }
  for (const k of passThrough) if (src.has(k)) m.set(k, src.get(k));
  return new HDict(m);
}

const MODEL_POLICY: Fields = [
  ["provider", "str"],
  ["model", "str"],
  ["model_tier", "str"],
  ["temperature", "num"],
  ["max_tokens", "int"],
  ["tool_format", "str"],
  ["max_iterations", "int"],
  ["max_nudges", "int"],
  ["nudge", "str"],
  ["native_tool_fallback", "str"],
  ["tool_examples", "any"],
  ["turn_policy", "any"],
  ["stop_after_successful_tools", "any"],
  ["require_successful_tools", "any"],
  ["session_id", "str"],
];
const MODEL_PASS_THROUGH = ["permissions", "command_policy", "policy", "task_ledger", "post_turn_callback", "skills", "skill_match"];

export const CONTEXT_POLICY: Fields = [
  ["max_artifacts", "int"],
  ["max_tokens", "int"],
  ["reserve_tokens", "int"],
  ["include_kinds", "list"],
  ["exclude_kinds", "list"],
  ["prioritize_kinds", "list"],
  ["pinned_ids", "list"],
  ["include_stages", "list"],
  ["prefer_recent", "bool", false],
  ["prefer_fresh", "bool", false],
  ["render", "str"],
];

const CONTRACT: Fields = [
  ["input_kinds", "list"],
  ["output_kinds", "list"],
  ["min_inputs", "int"],
  ["max_inputs", "int"],
  ["require_transcript", "bool", false],
  ["schema", "any"],
];

const SUB_RECORDS: Record<string, Fields> = {
  map_policy: [
    ["items", "list"],
    ["item_artifact_kind", "str"],
    ["output_kind", "str"],
    ["max_items", "int"],
    ["max_concurrent", "int"],
  ],
  join_policy: [
    ["strategy", "str", "all"],
    ["require_all_inputs", "bool", false],
    ["min_completed", "int"],
  ],
  reduce_policy: [
    ["strategy", "str", "concat"],
    ["separator", "str"],
    ["output_kind", "str"],
  ],
  escalation_policy: [
    ["level", "str"],
    ["queue", "str"],
    ["reason", "str"],
  ],
  retry_policy: [
    ["max_attempts", "int", 1],
    ["verify", "any"],
    ["repair", "any"],
    ["backoff_ms", "int"],
    ["backoff_multiplier", "num"],
  ],
};

export const APPROVAL_POLICY: Fields = [
  ["auto_approve", "list"],
  ["auto_deny", "list"],
  ["require_approval", "list"],
  ["write_path_allowlist", "list"],
];

export const CAPABILITY_POLICY: Fields = [
  ["tools", "list"],
  ["capabilities", "dict"],
  ["workspace_roots", "list"],
  ["side_effect_level", "str"],
  ["recursion_limit", "int"],
  ["tool_arg_constraints", "list"],
  ["tool_annotations", "dict"],
];

export function capabilityPolicy(v: Value): HDict {
  return record(v, CAPABILITY_POLICY);
}

function defaultOutputKinds(kind: string, node: HDict): string[] {
  const str = (d: Value, k: string) => (d instanceof HDict && typeof d.get(k) === "string" ? (d.get(k) as string) : null);
  if (kind === "verify") return ["verification_result"];
  if (kind === "reduce") return [str(node.get("reduce_policy"), "output_kind") ?? "summary"];
  if (kind === "map") return [str(node.get("map_policy"), "output_kind") ?? "artifact"];
  if (kind === "escalation") return ["plan"];
  return ["artifact"];
}

/** A node with every §1.2 key; `id` is its key in the graph. */
export function normalizeNode(id: string, raw: Value): HDict {
  const n = raw instanceof HDict ? raw : HDict.empty();
  const kind = typeof n.get("kind") === "string" && n.get("kind") !== "" ? (n.get("kind") as string) : "stage";
  let output = record(n.get("output_contract"), CONTRACT);
  if ((output.get("output_kinds") as Value[]).length === 0) output = output.with("output_kinds", defaultOutputKinds(kind, n));
  const str = (k: string): Value => (typeof n.get(k) === "string" ? n.get(k) : null);
  const m = new Map<string, Value>([
    ["id", id],
    ["kind", kind],
    ["mode", str("mode")],
    ["prompt", str("prompt")],
    ["system", str("system")],
    ["task_label", str("task_label")],
    ["done_sentinel", str("done_sentinel")],
    ["tools", n.get("tools")],
    ["model_policy", record(n.get("model_policy"), MODEL_POLICY, MODEL_PASS_THROUGH)],
    ["auto_compact", n.get("auto_compact")],
    ["output_visibility", str("output_visibility")],
    ["context_policy", record(n.get("context_policy"), CONTEXT_POLICY)],
    ["retry_policy", record(n.get("retry_policy"), SUB_RECORDS.retry_policy!)],
    ["capability_policy", capabilityPolicy(n.get("capability_policy"))],
    ["approval_policy", record(n.get("approval_policy"), APPROVAL_POLICY)],
    ["input_contract", record(n.get("input_contract"), CONTRACT)],
    ["output_contract", output],
    ["branch_semantics", n.get("branch_semantics")],
    ["map_policy", record(n.get("map_policy"), SUB_RECORDS.map_policy!)],
    ["join_policy", record(n.get("join_policy"), SUB_RECORDS.join_policy!)],
    ["reduce_policy", record(n.get("reduce_policy"), SUB_RECORDS.reduce_policy!)],
    ["escalation_policy", record(n.get("escalation_policy"), SUB_RECORDS.escalation_policy!)],
    ["verify", n.get("verify")],
    ["exit_when_verified", n.get("exit_when_verified") === true],
    ["metadata", n.get("metadata") instanceof HDict ? n.get("metadata") : HDict.empty()],
  ]);
  return new HDict(m);
}

const SHORTHAND = ["act", "verify", "repair"];
const VERIFY_KEYS = ["assert_text", "command", "expect_status", "expect_text"];

/** The `act`/`verify`/`repair` shorthand of a graph without nodes. */
function shorthandNodes(input: HDict): { nodes: Map<string, HDict>; edges: HDict[] } {
  const nodes = new Map<string, HDict>();
  const top = (k: string) => input.get(k);
  for (const id of SHORTHAND) {
    const raw = input.get(id);
    if (!(raw instanceof HDict)) continue;
    let node = raw;
    if (!node.has("kind")) node = node.with("kind", id === "verify" ? "verify" : "stage");
    let mp = node.get("model_policy") instanceof HDict ? (node.get("model_policy") as HDict) : HDict.empty();
    for (const k of ["provider", "model", "temperature", "max_tokens"]) if (mp.get(k) === null && top(k) !== null) mp = mp.with(k, top(k));
    if (mp.get("model_tier") === null && (top("model_tier") ?? top("tier")) !== null) mp = mp.with("model_tier", top("model_tier") ?? top("tier"));
    node = node.with("model_policy", mp);
    for (const k of ["mode", "done_sentinel"]) if (node.get(k) === null && top(k) !== null) node = node.with(k, top(k));
    if (id === "verify" && node.get("verify") === null && VERIFY_KEYS.some((k) => node.has(k))) {
      node = node.with("verify", HDict.of(Object.fromEntries(VERIFY_KEYS.map((k) => [k, node.get(k)]))));
    }
    nodes.set(id, node);
  }
  const edges: HDict[] = [];
  if (nodes.has("act")) {
    const e = (from: string, to: string, branch: Value) => HDict.of({ from, to, branch, label: null });
    if (nodes.has("verify")) edges.push(e("act", "verify", null));
    if (nodes.has("repair")) edges.push(e("verify", "repair", "failed"), e("repair", "verify", "retry"));
  }
  return { nodes, edges };
}

function normalizeEdge(v: Value): HDict | null {
  if (!(v instanceof HDict)) return null;
  const s = (k: string) => (typeof v.get(k) === "string" ? v.get(k) : null);
  return HDict.of({ from: s("from"), to: s("to"), branch: s("branch"), label: s("label") });
}

/** `workflow_graph(input)` (§1.1). */
export function normalizeGraph(rt: Runtime, input: HDict): HDict {
  const given = input.get("nodes");
  let rawNodes = new Map<string, Value>();
  if (given instanceof HDict) for (const k of given.keys()) rawNodes.set(k, given.get(k));
  let edges: HDict[] = Array.isArray(input.get("edges")) ? (input.get("edges") as Value[]).map(normalizeEdge).filter((e): e is HDict => e !== null) : [];
  let entry = typeof input.get("entry") === "string" && input.get("entry") !== "" ? (input.get("entry") as string) : null;
  if (rawNodes.size === 0) {
    const short = shorthandNodes(input);
    rawNodes = new Map(short.nodes);
    if (short.nodes.has("act")) {
      entry ??= "act";
      if (edges.length === 0) edges = short.edges;
    }
  }
  const ids = [...rawNodes.keys()].sort();
  entry ??= ids[0] ?? "act";
  const nodes = new Map<string, Value>();
  for (const id of rawNodes.keys()) nodes.set(id, normalizeNode(id, rawNodes.get(id)!));
  const id = input.get("id");
  const version = input.get("version");
  return HDict.of({
    _type: "workflow_graph",
    id: typeof id === "string" && id !== "" ? id : newId(rt, "workflow"),
    name: typeof input.get("name") === "string" ? input.get("name") : null,
    version: isNumeric(version) && toJsNumber(version) !== 0 ? Math.trunc(toJsNumber(version)) : 1,
    entry,
    nodes: new HDict(nodes),
    edges,
    capability_policy: capabilityPolicy(input.get("capability_policy")),
    approval_policy: record(input.get("approval_policy"), APPROVAL_POLICY),
    metadata: input.get("metadata") instanceof HDict ? input.get("metadata") : HDict.empty(),
    audit_log: Array.isArray(input.get("audit_log")) ? input.get("audit_log") : [],
  });
}
