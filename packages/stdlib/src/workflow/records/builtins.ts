/**
 * The run-record builtins (spec/workflows.md §4.5): `run_record`, saving
 * and loading, replay fixtures, evaluation (one run, a suite) and diffs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import nodePath from "node:path";
import { display, HDict, type Runtime, type Value } from "@harn/vm";
import { fromJson, parseJsonKeepingFloats, stringifyJsonKeepingFloats, toJson } from "../../core/json";
import { osErrorText } from "../../core/oserror";
import { resolvePath } from "../../core/paths";
import { builtinModule } from "../../registry/define";
import { fail } from "../artifacts/record";
import { artifactKinds, normalizeRun, observability, runFixture } from "./run_record";
import { makeDirsSync } from "../../core/make-dirs";

const dicts = (v: Value): HDict[] => (Array.isArray(v) ? v.filter((x): x is HDict => x instanceof HDict) : []);
const text = (v: Value): string => (v === null ? "nil" : typeof v === "string" ? v : display(v));

function runArg(rt: Runtime, v: Value, builtin: string): HDict {
  if (!(v instanceof HDict)) throw fail(`${builtin}: missing run record`);
  return v.get("_type") === "run_record" ? v : normalizeRun(rt, v);
}

/** The last stage of each node id. */
function stagesByNode(run: HDict): Map<string, HDict> {
  const m = new Map<string, HDict>();
  for (const s of dicts(run.get("stages"))) m.set(text(s.get("node_id")), s);
  return m;
}

/** `run_record_eval(run, fixture?)` → `{pass, failures, stage_count}`. */
export function evalRun(rt: Runtime, run: HDict, fixtureArg: Value): HDict {
  const given = run.get("replay_fixture");
  const fixture = fixtureArg instanceof HDict ? fixtureArg : given instanceof HDict ? given : runFixture(rt, run);
  const failures: string[] = [];
  const expected = fixture.get("expected_status");
  if (expected !== null && expected !== run.get("status")) failures.push(`run status ${text(run.get("status"))} did not match expected ${text(expected)}`);
  const stages = stagesByNode(run);
  for (const a of dicts(fixture.get("stage_assertions"))) {
    const nodeId = text(a.get("node_id"));
    const s = stages.get(nodeId);
    if (!s) {
      failures.push(`stage ${nodeId} is missing`);
      continue;
    }
    for (const field of ["status", "outcome", "branch"]) {
      const want = a.get(`expected_${field}`);
      if (want !== null && want !== s.get(field)) failures.push(`stage ${nodeId} ${field} ${text(s.get(field))} did not match expected ${text(want)}`);
    }
    const kinds = artifactKinds(s);
    for (const k of Array.isArray(a.get("required_artifact_kinds")) ? (a.get("required_artifact_kinds") as Value[]) : []) {
      if (!kinds.includes(text(k))) failures.push(`stage ${nodeId} is missing an artifact of kind ${text(k)}`);
    }
    const needle = a.get("visible_text_contains");
    const visible = s.get("visible_text");
    if (typeof needle === "string" && needle !== "" && !(typeof visible === "string" && visible.includes(needle))) {
      failures.push(`stage ${nodeId} visible text does not contain ${JSON.stringify(needle)}`);
    }
  }
  return HDict.of({ pass: failures.length === 0, failures, stage_count: dicts(run.get("stages")).length });
}

function countBy(names: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const n of names) m.set(n, (m.get(n) ?? 0) + 1);
  return m;
}

/** `run_record_diff(left, right)`. */
export function diffRuns(left: HDict, right: HDict): HDict {
  const l = stagesByNode(left);
  const r = stagesByNode(right);
  const stageDiffs: HDict[] = [];
  for (const [node, ls] of l) {
    const rs = r.get(node);
    if (!rs) {
      stageDiffs.push(HDict.of({ node_id: node, change: "removed", details: [] }));
      continue;
    }
    const details: string[] = [];
    for (const f of ["status", "outcome", "branch"]) {
      if (ls.get(f) !== rs.get(f)) details.push(`${f}: ${text(ls.get(f))} -> ${text(rs.get(f))}`);
    }
    const lk = artifactKinds(ls).join(", ");
    const rk = artifactKinds(rs).join(", ");
    if (lk !== rk) details.push(`artifact kinds: [${lk}] -> [${rk}]`);
    if (ls.get("visible_text") !== rs.get("visible_text")) details.push("visible text changed");
    if (details.length > 0) stageDiffs.push(HDict.of({ node_id: node, change: "changed", details }));
  }
  for (const node of r.keys()) if (!l.has(node)) stageDiffs.push(HDict.of({ node_id: node, change: "added", details: [] }));
  const toolNames = (run: HDict) => dicts(run.get("tool_recordings")).map((t) => text(t.get("tool_name") ?? t.get("name")));
  const lt = countBy(toolNames(left));
  const rt = countBy(toolNames(right));
  const toolDiffs: HDict[] = [];
  for (const name of [...new Set([...lt.keys(), ...rt.keys()])].sort()) {
    if ((lt.get(name) ?? 0) !== (rt.get(name) ?? 0)) toolDiffs.push(HDict.of({ tool_name: name, left_count: lt.get(name) ?? 0, right_count: rt.get(name) ?? 0 }));
  }
  const lo = observability(left);
  const ro = observability(right);
  const obsDiffs: HDict[] = [];
  for (const f of ["action_graph_nodes", "action_graph_edges", "verification_outcomes", "transcript_pointers"]) {
    const a = dicts(lo.get(f)).length;
    const b = dicts(ro.get(f)).length;
    if (a !== b) obsDiffs.push(HDict.of({ field: f, left: a, right: b }));
  }
  const delta = (k: string) => dicts(right.get(k)).length - dicts(left.get(k)).length;
  const statusChanged = left.get("status") !== right.get("status");
  const deltas = { transition_count_delta: delta("transitions"), artifact_count_delta: delta("artifacts"), checkpoint_count_delta: delta("checkpoints") };
  return HDict.of({
    left_run_id: left.get("id"),
    right_run_id: right.get("id"),
    identical: !statusChanged && stageDiffs.length === 0 && toolDiffs.length === 0 && obsDiffs.length === 0 && Object.values(deltas).every((d) => d === 0),
    status_changed: statusChanged,
    left_status: left.get("status"),
    right_status: right.get("status"),
    stage_diffs: stageDiffs,
    tool_diffs: toolDiffs,
    observability_diffs: obsDiffs,
    ...deltas,
  });
}

/** `{pass, total, passed, failed, cases}` over case rows with a `pass` key. */
export function suiteReport(cases: HDict[]): HDict {
  const passed = cases.filter((c) => c.get("pass") === true).length;
  return HDict.of({ pass: passed === cases.length, total: cases.length, passed, failed: cases.length - passed, cases });
}

/** One suite case row (§4.5): the label defaults to the workflow name, then the run id. */
export function suiteCase(run: HDict, label: Value, failures: string[], sourcePath: string | null, comparison: HDict | null): HDict {
  return HDict.of({
    run_id: run.get("id"),
    workflow_id: run.get("workflow_id"),
    label: label ?? run.get("workflow_name") ?? run.get("id"),
    pass: failures.length === 0,
    failures,
    stage_count: dicts(run.get("stages")).length,
    source_path: sourcePath,
    comparison,
  });
}

export function loadRun(rt: Runtime, path: string, builtin: string): HDict {
  const full = resolvePath(rt, path);
  let raw: string;
  try {
    raw = readFileSync(full, "utf8");
  } catch (e) {
    throw fail(`${builtin}: failed to read ${path}: ${osErrorText(e)}`);
  }
  let v: Value;
  try {
    v = fromJson(parseJsonKeepingFloats(raw));
  } catch (e) {
    throw fail(`${builtin}: invalid run record JSON in ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!(v instanceof HDict)) throw fail(`${builtin}: ${path} does not hold a run record`);
  return normalizeRun(rt, v);
}

export const RUN_RECORD_BUILTINS = builtinModule("workflow/run_records", (def, rt) => {
  def("run_record", (args) => {
    const p = args[0] ?? null;
    if (!(p instanceof HDict)) throw fail("run_record: missing payload");
    return normalizeRun(rt, p);
  });
  def("run_record_save", (args) => {
    const run = runArg(rt, args[0] ?? null, "run_record_save");
    const given = args[1] ?? null;
    const path = typeof given === "string" && given !== "" ? given : nodePath.join(".harn-runs", `${text(run.get("id"))}.json`);
    const full = resolvePath(rt, path);
    const saved = normalizeRun(rt, run.with("persisted_path", path));
    try {
      makeDirsSync(nodePath.dirname(full));
      writeFileSync(full, stringifyJsonKeepingFloats(toJson(saved), 2) + "\n");
    } catch (e) {
      throw fail(`run_record_save: failed to write ${path}: ${osErrorText(e)}`);
    }
    return HDict.of({ path, run: saved });
  });
  def("run_record_load", (args) => {
    const path = args[0];
    if (typeof path !== "string" || path === "") throw fail("run_record_load: missing path");
    return loadRun(rt, path, "run_record_load");
  });
  def("run_record_fixture", (args) => runFixture(rt, runArg(rt, args[0] ?? null, "run_record_fixture")));
  def("run_record_eval", (args) => evalRun(rt, runArg(rt, args[0] ?? null, "run_record_eval"), args[1] ?? null));
  def("run_record_diff", (args) => diffRuns(runArg(rt, args[0] ?? null, "run_record_diff"), runArg(rt, args[1] ?? null, "run_record_diff")));
  def("run_record_eval_suite", (args) => {
    const items = args[0];
    if (!Array.isArray(items)) throw fail("run_record_eval_suite: missing list");
    return suiteReport(
      dicts(items).map((item) => {
        const isRun = item.get("_type") === "run_record" || !item.has("run");
        const run = runArg(rt, isRun ? item : item.get("run"), "run_record_eval_suite");
        const failures = evalRun(rt, run, isRun ? null : item.get("fixture")).get("failures") as string[];
        const path = isRun ? null : item.get("path");
        return suiteCase(run, isRun ? null : item.get("label"), failures, typeof path === "string" ? path : null, null);
      }),
    );
  });
});
