/**
 * The eval builtins (spec/workflows.md §4.6, §4.7): suite manifests, eval
 * packs (which `eval_pack` declarations build) and recorded metrics.
 */
import { HDict, RuntimeSlot, type Value } from "@harn/vm";
import { builtinModule } from "../../registry/define";
import { fail } from "../artifacts/record";
import { packManifest } from "./pack";
import { runPack } from "./pack_run";
import { runSuite, suiteManifest } from "./suite";

/** The metrics `eval_metric` recorded in this runtime, in order. */
const METRICS = new RuntimeSlot("workflow.evalMetrics", () => [] as HDict[]);

export const EVAL_BUILTINS = builtinModule("workflow/evals", (def, rt) => {
  def("eval_suite_manifest", (args) => suiteManifest(rt, args[0] ?? null));
  def("eval_suite_run", (args) => runSuite(rt, args[0] ?? null));
  def("eval_pack_manifest", (args) => packManifest(rt, args[0] ?? null));
  def("eval_pack_run", (args) => runPack(rt, args[0] ?? null));
  def("eval_metric", (args) => {
    const [name = null, value = null, metadata = null] = args;
    if (typeof name !== "string" || name === "") throw fail("eval_metric: missing name");
    if (value === null) throw fail("eval_metric: missing value");
    const entry: Record<string, Value> = { name, value };
    if (metadata !== null) entry.metadata = metadata;
    rt.slot(METRICS).push(HDict.of(entry));
    return null;
  });
  def("eval_metrics", () => rt.slot(METRICS).slice());
});
