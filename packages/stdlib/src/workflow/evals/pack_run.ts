/**
 * Running an eval pack (spec/workflows.md §4.7): each case's run checked
 * against its replay fixture, thresholds, a baseline and the deterministic
 * assertions of its rubrics; failures of non-blocking cases become
 * warnings or informational notes. LLM judges are not called: a rubric's
 * `judge` and `prompt` are kept in the manifest for hosts that grade runs.
 */
import { compare, equals, HDict, isNumeric, toJsNumber, type Runtime, type Value } from "@harn/vm";
import { artifactKinds, normalizeRun } from "../records/run_record";
import { evalRun, loadRun } from "../records/builtins";
import { packManifest } from "./pack";
import { compareToBaseline, dicts, loadJsonDict, str, text, underBase } from "./suite";

const B = "eval_pack_run";

/** A run or replay fixture named by a case: inline in the manifest or a file. */
interface Source {
  value: HDict | null;
  path: string | null;
  failure: string | null;
}

function fromFixture(rt: Runtime, fixtures: Map<string, HDict>, id: string, kinds: string[], root: string | null): Source {
  const fx = fixtures.get(id);
  if (fx === undefined) return { value: null, path: null, failure: `case references unknown fixture '${id}'` };
  const kind = str(fx.get("kind"));
  if (kind !== null && !kinds.includes(kind)) return { value: null, path: null, failure: `fixture '${id}' is a ${kind} fixture, not a ${kinds[0]}` };
  const inline = fx.get("inline");
  if (inline instanceof HDict) return { value: inline, path: null, failure: null };
  const path = str(fx.get("path"));
  if (path === null) return { value: null, path: null, failure: `fixture '${id}' has no path or inline value` };
  return { value: null, path: underBase(root, path), failure: null };
}

/** Thresholds (a [TS decision]: the spec names them without keys) and the
 * figure of a run each one bounds. */
const MEASURES: Record<string, (run: HDict) => number> = {
  stage_count: (run) => dicts(run.get("stages")).length,
  failed_stages: (run) => dicts(run.get("stages")).filter((s) => s.get("status") === "failed").length,
  input_tokens: (run) => num(usage(run).get("input_tokens")),
  output_tokens: (run) => num(usage(run).get("output_tokens")),
  total_tokens: (run) => num(usage(run).get("input_tokens")) + num(usage(run).get("output_tokens")),
  cost_usd: (run) => num(usage(run).get("total_cost")),
  duration_ms: (run) => num(usage(run).get("total_duration_ms")),
  tool_calls: (run) => dicts(run.get("tool_recordings")).length,
};
const usage = (run: HDict): HDict => (run.get("usage") instanceof HDict ? (run.get("usage") as HDict) : HDict.empty());
const num = (v: Value): number => (isNumeric(v) ? toJsNumber(v) : 0);

function checkThresholds(run: HDict, thresholds: HDict, failures: string[]): void {
  for (const [key, limit] of thresholds.map) {
    const m = /^(max|min)_(.+)$/.exec(key);
    const measure = m ? MEASURES[m[2]!] : undefined;
    if (!m || measure === undefined) {
      failures.push(`unknown threshold '${key}'`);
      continue;
    }
    if (!isNumeric(limit)) {
      failures.push(`threshold ${key} must be a number, got ${text(limit)}`);
      continue;
    }
    const actual = measure(run);
    const bound = toJsNumber(limit);
    if (m[1] === "max" && actual > bound) failures.push(`${m[2]} ${actual} exceeds ${key} ${bound}`);
    if (m[1] === "min" && actual < bound) failures.push(`${m[2]} ${actual} is below ${key} ${bound}`);
  }
}

/** The last stage of `node` in the run. */
function stageOf(run: HDict, node: string): HDict | null {
  return dicts(run.get("stages")).filter((s) => s.get("node_id") === node).at(-1) ?? null;
}

/** `a.b.0.c` read from a dict (list segments by index). */
function atPath(v: Value, path: string): Value {
  for (const seg of path.split(".")) {
    if (v instanceof HDict) v = v.get(seg);
    else if (Array.isArray(v) && /^\d+$/.test(seg)) v = v[Number(seg)] ?? null;
    else return null;
  }
  return v;
}

function opHolds(op: string, actual: Value, expected: Value): boolean | null {
  switch (op) {
    case "eq":
    case "==":
      return equals(actual, expected);
    case "ne":
    case "!=":
      return !equals(actual, expected);
    case "contains":
      if (typeof actual === "string") return typeof expected === "string" && actual.includes(expected);
      return Array.isArray(actual) && actual.some((x) => equals(x, expected));
    case "exists":
      return (actual !== null) === (expected === null || expected === true);
    case "gt":
    case ">":
      return isNumeric(actual) && isNumeric(expected) && compare(actual, expected) > 0;
    case "gte":
    case ">=":
      return isNumeric(actual) && isNumeric(expected) && compare(actual, expected) >= 0;
    case "lt":
    case "<":
      return isNumeric(actual) && isNumeric(expected) && compare(actual, expected) < 0;
    case "lte":
    case "<=":
      return isNumeric(actual) && isNumeric(expected) && compare(actual, expected) <= 0;
    default:
      return null;
  }
}

/** The failure of one rubric assertion against `run`, or null. */
function checkAssertion(run: HDict, a: HDict): string | null {
  const kind = (str(a.get("kind")) ?? "").replaceAll("_", "-");
  const expected = a.get("expected");
  const node = str(a.get("stage"));
  const stage = node === null ? null : stageOf(run, node);
  if (node !== null && stage === null) return `stage ${node} is missing`;
  switch (kind) {
    case "run-status":
    case "status":
      return equals(run.get("status"), expected) ? null : `run status ${text(run.get("status"))} did not match expected ${text(expected)}`;
    case "stage-status":
    case "stage-outcome":
    case "stage-branch": {
      const field = kind.slice("stage-".length);
      if (stage === null) return `${kind} needs a stage`;
      return equals(stage.get(field), expected) ? null : `stage ${node} ${field} ${text(stage.get(field))} did not match expected ${text(expected)}`;
    }
    case "visible-text": {
      const needle = str(a.get("contains")) ?? (typeof expected === "string" ? expected : "");
      const texts = (stage === null ? dicts(run.get("stages")) : [stage]).map((s) => s.get("visible_text"));
      if (texts.some((t) => typeof t === "string" && t.includes(needle))) return null;
      return stage === null ? `no stage's visible text contains ${JSON.stringify(needle)}` : `stage ${node} visible text does not contain ${JSON.stringify(needle)}`;
    }
    case "artifact-kind": {
      const want = text(expected);
      const kinds = stage === null ? [...dicts(run.get("stages")).flatMap(artifactKinds), ...artifactKinds(run)] : artifactKinds(stage);
      if (kinds.includes(want)) return null;
      return stage === null ? `run has no artifact of kind ${want}` : `stage ${node} is missing an artifact of kind ${want}`;
    }
    case "path": {
      const path = str(a.get("path"));
      if (path === null) return "path assertion needs a path";
      const op = str(a.get("op")) ?? "eq";
      const actual = atPath(stage ?? run, path);
      const holds = opHolds(op, actual, expected);
      if (holds === null) return `unknown op '${op}'`;
      if (holds) return null;
      const shown = stage === null ? path : `stage ${node} ${path}`;
      return op === "eq" || op === "==" ? `${shown} is ${text(actual)}, expected ${text(expected)}` : `${shown} is ${text(actual)}, expected ${op} ${text(expected)}`;
    }
    default:
      return `unknown assertion kind '${text(a.get("kind"))}'`;
  }
}

/** `eval_pack_run(manifest)`. */
export function runPack(rt: Runtime, payload: Value): HDict {
  const manifest = packManifest(rt, payload);
  const base = str(manifest.get("base_dir"));
  const defaults = manifest.get("defaults") as HDict;
  const fixtureRoot = str(defaults.get("fixture_root"));
  const root = fixtureRoot === null ? base : underBase(base, fixtureRoot);
  const fixtures = new Map(dicts(manifest.get("fixtures")).flatMap((f) => (str(f.get("id")) === null ? [] : [[str(f.get("id"))!, f] as const])));
  const rubrics = new Map(dicts(manifest.get("rubrics")).flatMap((r) => (str(r.get("id")) === null ? [] : [[str(r.get("id"))!, r] as const])));
  const cases = dicts(manifest.get("cases")).map((c, i) => {
    const id = str(c.get("id")) ?? `case_${i + 1}`;
    const severity = str(c.get("severity")) ?? str(defaults.get("severity")) ?? "blocking";
    const failures: string[] = [];
    let run: HDict | null = null;
    let source: string | null = null;
    const runId = str(c.get("run"));
    const runPath = str(c.get("run_path"));
    const named: Source =
      runId !== null
        ? fromFixture(rt, fixtures, runId, ["run-record", "run_record"], root)
        : runPath !== null
          ? { value: null, path: underBase(root, runPath), failure: null }
          : { value: null, path: null, failure: "case has no run (set run or run_path)" };
    if (named.failure !== null) failures.push(named.failure);
    else if (named.value !== null) run = named.value.get("_type") === "run_record" ? named.value : normalizeRun(rt, named.value);
    else if (named.path !== null) run = loadRun(rt, (source = named.path), B);
    if (run !== null) {
      const fixtureId = str(c.get("fixture"));
      const fixturePath = str(c.get("fixture_path"));
      const fx: Source =
        fixtureId !== null
          ? fromFixture(rt, fixtures, fixtureId, ["replay-fixture", "replay_fixture"], root)
          : { value: null, path: fixturePath === null ? null : underBase(root, fixturePath), failure: null };
      if (fx.failure !== null) failures.push(fx.failure);
      else failures.push(...(evalRun(rt, run, fx.value ?? (fx.path === null ? null : loadJsonDict(rt, fx.path, B))).get("failures") as string[]));
      const caseRubrics = (c.get("rubrics") as string[]).map((r) => [r, rubrics.get(r)] as const);
      // Later layers win: the pack's defaults, each rubric's, the case's own.
      const layers = [defaults, ...caseRubrics.flatMap(([, r]) => (r === undefined ? [] : [r])), c].map((d) => (d.get("thresholds") as HDict).map);
      checkThresholds(run, HDict.from(layers.flatMap((m) => [...m])), failures);
      const baseline = str(c.get("compare_to")) ?? str(manifest.get("baseline"));
      let comparison: HDict | null = null;
      if (baseline !== null) {
        const r = compareToBaseline(rt, run, underBase(root, baseline), baseline, B);
        comparison = r.comparison;
        if (r.failure !== null) failures.push(r.failure);
      }
      for (const [rid, r] of caseRubrics) {
        if (r === undefined) {
          failures.push(`case references unknown rubric '${rid}'`);
          continue;
        }
        for (const a of dicts(r.get("assertions"))) {
          const failure = checkAssertion(run, a);
          if (failure !== null) failures.push(`rubric ${rid}: ${failure}`);
        }
      }
      return row(id, c, severity, failures, run, source, comparison);
    }
    return row(id, c, severity, failures, null, source, null);
  });
  const count = (pred: (c: HDict) => boolean) => cases.filter(pred).length;
  const nonEmpty = (v: Value) => Array.isArray(v) && v.length > 0;
  return HDict.of({
    pack_id: manifest.get("id"),
    pass: count((c) => c.get("blocking") === true && c.get("pass") === false) === 0,
    total: cases.length,
    passed: count((c) => c.get("pass") === true),
    failed: count((c) => c.get("pass") === false),
    blocking_failed: count((c) => c.get("blocking") === true && c.get("pass") === false),
    warning_failed: count((c) => c.get("severity") === "warning" && nonEmpty(c.get("warnings"))),
    informational_failed: count((c) => c.get("severity") === "informational" && nonEmpty(c.get("informational"))),
    cases,
  });
}

function row(id: string, c: HDict, severity: string, found: string[], run: HDict | null, source: string | null, comparison: HDict | null): HDict {
  const blocking = severity === "blocking";
  return HDict.of({
    id,
    label: str(c.get("name")) ?? id,
    severity,
    pass: !blocking || found.length === 0,
    blocking,
    run_id: run?.get("id") ?? null,
    workflow_id: run?.get("workflow_id") ?? null,
    source_path: source,
    stage_count: run === null ? 0 : dicts(run.get("stages")).length,
    failures: blocking ? found : [],
    warnings: severity === "warning" ? found : [],
    informational: severity === "informational" ? found : [],
    comparison,
  });
}
