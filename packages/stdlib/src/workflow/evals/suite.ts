/**
 * Eval suite manifests (spec/workflows.md §4.6): a list of saved runs, each
 * checked against its replay fixture and optionally against a baseline run,
 * reported in the shape of `run_record_eval_suite` (§4.5).
 */
import { readFileSync } from "node:fs";
import nodePath from "node:path";
import { display, HDict, type Runtime, type Value } from "@harn/vm";
import { fromJson, parseJsonKeepingFloats } from "../../core/json";
import { osErrorText } from "../../core/oserror";
import { resolvePath } from "../../core/paths";
import { fail, newId } from "../artifacts/record";
import { diffRuns, evalRun, loadRun, suiteCase, suiteReport } from "../records/builtins";

export const str = (v: Value): string | null => (typeof v === "string" && v !== "" ? v : null);
export const text = (v: Value): string => (v === null ? "nil" : typeof v === "string" ? v : display(v));
export const dicts = (v: Value): HDict[] => (Array.isArray(v) ? v.filter((x): x is HDict => x instanceof HDict) : []);

/** `path` as given when absolute or without a base, else joined to `base`. */
export function underBase(base: string | null, path: string): string {
  return base === null || nodePath.isAbsolute(path) ? path : nodePath.join(base, path);
}

/** The JSON dict stored at `path` (a replay fixture or a run). */
export function loadJsonDict(rt: Runtime, path: string, builtin: string): HDict {
  let v: Value;
  try {
    v = fromJson(parseJsonKeepingFloats(readFileSync(resolvePath(rt, path), "utf8")));
  } catch (e) {
    const why = e instanceof SyntaxError ? `invalid JSON: ${e.message}` : osErrorText(e);
    throw fail(`${builtin}: failed to read ${path}: ${why}`);
  }
  if (!(v instanceof HDict)) throw fail(`${builtin}: ${path} does not hold a JSON object`);
  return v;
}

/** The failure a baseline comparison adds when the runs differ (§4.6). */
export function compareToBaseline(rt: Runtime, run: HDict, baselinePath: string, shownPath: string, builtin: string): { comparison: HDict; failure: string | null } {
  const comparison = diffRuns(loadRun(rt, baselinePath, builtin), run);
  const changes = dicts(comparison.get("stage_diffs")).length;
  const failure = comparison.get("identical") === true ? null : `run differs from baseline ${shownPath} with ${changes} stage changes`;
  return { comparison, failure };
}

function optString(builtin: string, d: HDict, key: string, where: string): string | null {
  const v = d.get(key);
  if (v === null) return null;
  if (typeof v !== "string") throw fail(`${builtin}: ${where}${key} must be a string, got ${display(v)}`);
  return v === "" ? null : v;
}

/** `eval_suite_manifest(payload)`. */
export function suiteManifest(rt: Runtime, p: Value): HDict {
  const b = "eval_suite_manifest";
  if (!(p instanceof HDict)) throw fail(`${b}: missing payload`);
  const cases = p.get("cases");
  if (cases !== null && !Array.isArray(cases)) throw fail(`${b}: cases must be a list`);
  return HDict.of({
    _type: "eval_suite_manifest",
    id: optString(b, p, "id", "") ?? newId(rt, "eval_suite"),
    name: optString(b, p, "name", ""),
    base_dir: optString(b, p, "base_dir", ""),
    cases: (cases ?? []).map((c, i) => {
      if (!(c instanceof HDict)) throw fail(`${b}: cases[${i}] must be a dict`);
      const where = `cases[${i}].`;
      return HDict.of({
        label: optString(b, c, "label", where),
        run_path: optString(b, c, "run_path", where),
        fixture_path: optString(b, c, "fixture_path", where),
        compare_to: optString(b, c, "compare_to", where),
      });
    }),
  });
}

/** `eval_suite_run(manifest)` → the suite report of §4.5. */
export function runSuite(rt: Runtime, m: Value): HDict {
  const b = "eval_suite_run";
  if (!(m instanceof HDict)) throw fail(`${b}: missing manifest`);
  const manifest = suiteManifest(rt, m);
  const base = str(manifest.get("base_dir"));
  return suiteReport(
    dicts(manifest.get("cases")).map((c, i) => {
      const runPath = str(c.get("run_path"));
      if (runPath === null) throw fail(`${b}: case ${i + 1} has no run_path`);
      const source = underBase(base, runPath);
      const run = loadRun(rt, source, b);
      const fixturePath = str(c.get("fixture_path"));
      const fixture = fixturePath === null ? null : loadJsonDict(rt, underBase(base, fixturePath), b);
      const failures = [...(evalRun(rt, run, fixture).get("failures") as string[])];
      const compareTo = str(c.get("compare_to"));
      let comparison: HDict | null = null;
      if (compareTo !== null) {
        const r = compareToBaseline(rt, run, underBase(base, compareTo), compareTo, b);
        comparison = r.comparison;
        if (r.failure !== null) failures.push(r.failure);
      }
      return suiteCase(run, c.get("label"), failures, source, comparison);
    }),
  );
}
