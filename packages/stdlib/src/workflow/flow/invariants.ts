/**
 * Flow invariant results (spec/workflows.md §5.10): the verdict an
 * `@invariant` function returns (allow, warn, block, require approval),
 * with evidence pointers, a remediation and a confidence.
 */
import { display, float, HDict, isNumeric, toJsNumber, type Value } from "@harn/vm";
import { builtinModule } from "../../registry/define";
import { fail } from "../artifacts/record";

const result = (verdict: HDict): HDict => HDict.of({ verdict, evidence: [], remediation: null, confidence: float(1) });

function str(builtin: string, args: Value[], i: number, what: string): string {
  const v = args[i] ?? null;
  if (typeof v !== "string") throw fail(`${builtin}: ${what} must be a string, got ${display(v)}`);
  return v;
}

function int(builtin: string, args: Value[], i: number, what: string): Value {
  const v = args[i] ?? null;
  if (!isNumeric(v)) throw fail(`${builtin}: ${what} must be a number, got ${display(v)}`);
  return v;
}

function resultArg(builtin: string, v: Value): HDict {
  if (v instanceof HDict && v.get("verdict") instanceof HDict) return v;
  throw fail(`${builtin}: expected an invariant result, got ${display(v)}`);
}

const verdictKind = (r: HDict): Value => (r.get("verdict") as HDict).get("kind");

export const FLOW_INVARIANT_BUILTINS = builtinModule("workflow/flow_invariants", (def) => {
  def("flow_invariant_allow", () => result(HDict.of({ kind: "allow" })));
  def("flow_invariant_warn", (args) => result(HDict.of({ kind: "warn", reason: str("flow_invariant_warn", args, 0, "reason") })));
  def("flow_invariant_block", (args) => {
    const code = str("flow_invariant_block", args, 0, "code");
    const message = str("flow_invariant_block", args, 1, "message");
    return result(HDict.of({ kind: "block", error: HDict.of({ code, message }) }));
  });
  def("flow_invariant_require_approval", (args) => {
    const b = "flow_invariant_require_approval";
    const kind = str(b, args, 0, "approver kind");
    const value = str(b, args, 1, "approver");
    let approver: HDict;
    if (kind === "principal") approver = HDict.of({ kind, id: value });
    else if (kind === "role") approver = HDict.of({ kind, name: value });
    else throw fail(`${b}: approver kind must be "principal" or "role", got ${JSON.stringify(kind)}`);
    return result(HDict.of({ kind: "require_approval", approver }));
  });
  def("flow_invariant_kind", (args) => verdictKind(resultArg("flow_invariant_kind", args[0] ?? null)));
  def("flow_invariant_is_blocking", (args) => verdictKind(resultArg("flow_invariant_is_blocking", args[0] ?? null)) === "block");
  def("flow_invariant_confidence", (args) => {
    const c = resultArg("flow_invariant_confidence", args[0] ?? null).get("confidence");
    return float(isNumeric(c) ? toJsNumber(c) : 1);
  });
  def("flow_evidence_atom", (args) => {
    const b = "flow_evidence_atom";
    return HDict.of({ kind: "atom_pointer", atom: str(b, args, 0, "atom"), start: int(b, args, 1, "start"), end: int(b, args, 2, "end") });
  });
  def("flow_evidence_metadata", (args) => {
    const b = "flow_evidence_metadata";
    return HDict.of({ kind: "metadata_path", dir: str(b, args, 0, "dir"), namespace: str(b, args, 1, "namespace"), key: str(b, args, 2, "key") });
  });
  def("flow_evidence_transcript", (args) => {
    const b = "flow_evidence_transcript";
    return HDict.of({ kind: "transcript_excerpt", transcript_id: str(b, args, 0, "transcript id"), start: int(b, args, 1, "start"), end: int(b, args, 2, "end") });
  });
  def("flow_evidence_citation", (args) => {
    const b = "flow_evidence_citation";
    return HDict.of({ kind: "external_citation", url: str(b, args, 0, "url"), quote: str(b, args, 1, "quote"), fetched_at: str(b, args, 2, "fetched_at") });
  });
  def("flow_remediation", (args) => HDict.of({ description: str("flow_remediation", args, 0, "description") }));
  def("flow_with_evidence", (args) => {
    const r = resultArg("flow_with_evidence", args[0] ?? null);
    const list = args[1] ?? null;
    if (!Array.isArray(list)) throw fail(`flow_with_evidence: evidence must be a list, got ${display(list)}`);
    return r.with("evidence", list.slice());
  });
  def("flow_with_remediation", (args) => {
    const r = resultArg("flow_with_remediation", args[0] ?? null);
    const rem = args[1] ?? null;
    if (rem !== null && !(rem instanceof HDict)) throw fail(`flow_with_remediation: remediation must be a dict, got ${display(rem)}`);
    return r.with("remediation", rem);
  });
  def("flow_with_confidence", (args) => {
    const r = resultArg("flow_with_confidence", args[0] ?? null);
    const x = args[1] ?? null;
    if (!isNumeric(x)) throw fail(`flow_with_confidence: confidence must be a number, got ${display(x)}`);
    return r.with("confidence", float(Math.min(1, Math.max(0, toJsNumber(x)))));
  });
});
