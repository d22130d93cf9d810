/**
 * Node execution by kind (spec/workflows.md §1.6): control nodes (fork,
 * join, condition), map with its join strategy, reduce, escalation and
 * sub-agent nodes; model stages are stage.ts.
 */
import { display, HDict, float, type Value } from "@harn/vm";
import { stringifyJsonKeepingFloats, toJson } from "../../core/json";
import { uuidV7 } from "../../core/encoding";
import { normalizeArtifact } from "../artifacts/record";
import { dict, firstOutputKind, list, runModelStage, selectFor, str, type NodeResult, type StageEnv } from "./stage";

function plain(status: string, outcome: string, branch: string, text: string, consumed: string[], artifacts: HDict[] = []): NodeResult {
  return { status, outcome, branch, text, artifacts, transcript: null, verification: null, usage: null, consumed, meta: {} };
}

const ids = (arts: readonly HDict[]): string[] => arts.map((a) => display(a.get("id")));

function condition(node: HDict, selected: HDict[]): NodeResult {
  const meta = dict(node.get("metadata"));
  const needle = str(meta.get("contains_text"));
  const kind = str(meta.get("artifact_kind"));
  let ok: boolean;
  if (needle !== null) ok = selected.some((a) => (str(a.get("text")) ?? "").includes(needle));
  else if (kind !== null) ok = selected.some((a) => a.get("kind") === kind);
  else ok = selected.length > 0;
  const b = ok ? "true" : "false";
  return plain("completed", `condition_${b}`, b, b, ids(selected));
}

/** Does a map node run a model stage per item? */
function mapRunsStages(node: HDict): boolean {
  if (node.get("mode") !== null || str(node.get("prompt")) || str(node.get("system")) || node.get("tools") !== null) return true;
  const mp = dict(node.get("model_policy"));
  return mp.keys().some((k) => mp.get(k) !== null);
}

async function map(env: StageEnv, node: HDict, artifacts: readonly HDict[]): Promise<NodeResult> {
  const rt = env.ctx.runtime;
  const id = display(node.get("id"));
  const mpol = dict(node.get("map_policy"));
  const selected = selectFor(node, artifacts);
  const itemKind = str(mpol.get("item_artifact_kind"));
  const inputKinds = list(dict(node.get("input_contract")).get("input_kinds"));
  let items: Value[];
  if (itemKind !== null) items = selected.filter((a) => a.get("kind") === itemKind);
  else if (inputKinds.length > 0) items = selected.filter((a) => inputKinds.includes(a.get("kind")));
  else items = list(mpol.get("items"));
  const maxItems = mpol.get("max_items");
  if (typeof maxItems === "number") items = items.slice(0, Math.max(0, maxItems));
  const n = items.length;
  const jp = dict(node.get("join_policy"));
  const strategy = str(jp.get("strategy")) ?? "all";
  const minCompleted = jp.get("min_completed");
  const needed = strategy === "first" ? Math.min(1, n) : strategy === "quorum" ? Math.min(Math.max(typeof minCompleted === "number" ? minCompleted : 1, 1), n) : n;
  const maxConc = mpol.get("max_concurrent");
  const limit = typeof maxConc === "number" && maxConc > 0 ? maxConc : Math.max(n, 1);
  const outKind = str(mpol.get("output_kind")) ?? firstOutputKind(node, "artifact");
  const stages = mapRunsStages(node);

  const done: { index: number; artifacts: HDict[] }[] = [];
  let failures = 0;
  const runItem = async (i: number): Promise<HDict[]> => {
    const item = items[i]!;
    if (!stages) {
      const text = typeof item === "string" ? item : item instanceof HDict && item.get("_type") === "artifact" ? (str(item.get("text")) ?? stringifyJsonKeepingFloats(toJson(item.get("data")))) : stringifyJsonKeepingFloats(toJson(item));
      return [normalizeArtifact(rt, HDict.of({ kind: outKind, title: `map ${id} item ${i}`, text, source: id, stage: id, metadata: HDict.of({ index: i }) }))];
    }
    const copy = node
      .with("id", `${id}_map_${i}`)
      .with("kind", "stage")
      .with("output_contract", dict(node.get("output_contract")).with("output_kinds", [outKind]));
    const itemArts = item instanceof HDict && item.get("_type") === "artifact" ? [item] : [...artifacts];
    const r = await runModelStage(env, copy, itemArts, `${env.task}\n\nMap item ${i + 1} of ${n}`);
    if (r.status === "failed") throw new Error(String(r.meta.error ?? "failed"));
    return r.artifacts.map((a) => a.with("metadata", dict(a.get("metadata")).with("index", i)));
  };
  // Branches run with at most `limit` in flight; once `needed` completed,
  // no further branch starts and late ones are dropped.
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n && done.length < needed) {
      const i = next++;
      try {
        const arts = await runItem(i);
        if (done.length < needed) done.push({ index: i, artifacts: arts });
      } catch (e) {
        if (env.ctx.signal.aborted) throw e;
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, Math.max(n, 1)) }, () => worker()));
  done.sort((a, b) => a.index - b.index);
  const produced = done.flatMap((d) => d.artifacts);
  const consumed = ids(selected);
  if (produced.length === 0 && failures > 0) {
    const r = plain("failed", "mapped", "failed", `map failed after ${failures} branch failures`, consumed);
    r.meta.error = r.text;
    return r;
  }
  const r = plain(failures > 0 ? "partial" : "completed", "mapped", "mapped", `mapped ${done.length} of ${n} items`, consumed, produced);
  return r;
}

function reduce(env: StageEnv, node: HDict, artifacts: readonly HDict[]): NodeResult {
  const id = display(node.get("id"));
  const selected = selectFor(node, artifacts);
  const rp = dict(node.get("reduce_policy"));
  const text = selected.map((a) => str(a.get("text")) ?? stringifyJsonKeepingFloats(toJson(a.get("data")))).join(str(rp.get("separator")) ?? "\n\n");
  const consumed = ids(selected);
  const art = normalizeArtifact(env.ctx.runtime, HDict.of({ kind: firstOutputKind(node, "summary"), title: `reduce ${id} output`, text, source: id, stage: id, lineage: consumed }));
  return plain("completed", "reduced", "reduced", text, consumed, [art]);
}

function escalation(env: StageEnv, node: HDict, artifacts: readonly HDict[]): NodeResult {
  const id = display(node.get("id"));
  const ep = dict(node.get("escalation_policy"));
  const reason = str(ep.get("reason")) ?? "manual review required";
  const consumed = ids(selectFor(node, artifacts));
  const art = normalizeArtifact(
    env.ctx.runtime,
    HDict.of({ kind: firstOutputKind(node, "plan"), title: `escalation ${id}`, text: reason, data: HDict.of({ queue: ep.get("queue"), level: ep.get("level"), reason }), source: id, stage: id, lineage: consumed }),
  );
  return plain("completed", "escalated", "escalated", reason, consumed, [art]);
}

/** A sub-agent node (§1.6 subagent): the stage runs as a delegated worker
 * whose identity and request are recorded with the stage. */
async function subagent(env: StageEnv, node: HDict, artifacts: readonly HDict[]): Promise<NodeResult> {
  const rt = env.ctx.runtime;
  const meta = dict(node.get("metadata"));
  const workerId = `worker_${uuidV7(rt)}`;
  const name = str(meta.get("worker_name")) ?? display(node.get("id"));
  const request = HDict.of({
    task: env.task,
    payload: meta.get("request"),
    research_questions: list(meta.get("research_questions")),
    action_items: list(meta.get("action_items")),
    workflow_stages: list(meta.get("workflow_stages")),
    verification_steps: list(meta.get("verification_steps")),
  });
  const r = await runModelStage(env, node.with("kind", "stage"), artifacts, env.task);
  const worker = HDict.of({ id: workerId, name, mode: "stage", status: r.status, request, node_id: node.get("id") });
  const out = r.artifacts.map((a) => a.with("metadata", dict(a.get("metadata")).with("delegated", true).with("worker_id", workerId)));
  const result = normalizeArtifact(
    rt,
    HDict.of({
      kind: "worker_result",
      title: `worker ${name} result`,
      text: r.text,
      data: HDict.of({ request, result: HDict.of({ status: r.status, summary: r.text }), provenance: HDict.of({ worker_id: workerId, node_id: node.get("id") }) }),
      source: display(node.get("id")),
      stage: display(node.get("id")),
      freshness: "fresh",
      relevance: float(1),
      lineage: r.consumed,
    }),
  );
  const ok = r.status !== "failed";
  return {
    ...r,
    kind: "subagent",
    outcome: ok ? "subagent_completed" : r.outcome,
    branch: ok ? "success" : r.branch,
    artifacts: [...out, result],
    meta: { ...r.meta, worker, worker_id: workerId },
  };
}

/** Execute one node (§1.6). */
export async function executeNode(env: StageEnv, node: HDict, artifacts: readonly HDict[]): Promise<NodeResult> {
  switch (node.get("kind")) {
    case "fork":
      return plain("completed", "forked", "fork", "forked", ids(selectFor(node, artifacts)));
    case "join":
      return plain("completed", "joined", "join", "joined", ids(selectFor(node, artifacts)));
    case "condition":
      return condition(node, selectFor(node, artifacts));
    case "map":
      return map(env, node, artifacts);
    case "reduce":
      return reduce(env, node, artifacts);
    case "escalation":
      return escalation(env, node, artifacts);
    case "subagent":
      return subagent(env, node, artifacts);
    default:
      return runModelStage(env, node, artifacts, env.task);
  }
}
