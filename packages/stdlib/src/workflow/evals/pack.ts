/**
 * Eval pack manifests (spec/workflows.md §4.7): `eval_pack_manifest`
 * normalises a pack into the serde-shaped dict every key present, checking
 * the type of each field it knows so a typo fails where it is written.
 */
import { display, HDict, isNumeric, toJsNumber, type Runtime, type Value } from "@harn/vm";
import { fail, newId } from "../artifacts/record";

const B = "eval_pack_manifest";
export const SEVERITIES = ["blocking", "warning", "informational"];

/** Reads the fields of one input dict, failing with its location. */
class Fields {
  constructor(
    private readonly d: HDict,
    private readonly where: string,
  ) {}

  private wrong(key: string, want: string, got: Value = this.d.get(key)): never {
    throw fail(`${B}: ${this.where}${key} must be ${want}, got ${display(got)}`);
  }

  str(key: string): string | null {
    const v = this.d.get(key);
    if (v === null || v === "") return null;
    return typeof v === "string" ? v : this.wrong(key, "a string");
  }

  dict(key: string): HDict {
    const v = this.d.get(key);
    if (v === null) return HDict.empty();
    return v instanceof HDict ? v : this.wrong(key, "a dict");
  }

  list(key: string): Value[] {
    const v = this.d.get(key);
    if (v === null) return [];
    return Array.isArray(v) ? v : this.wrong(key, "a list");
  }

  strings(key: string): string[] {
    return this.list(key).map((x, i) => (typeof x === "string" ? x : this.wrong(`${key}[${i}]`, "a string", x)));
  }

  /** A list of dicts, each read through `each`. */
  records(key: string, each: (f: Fields) => HDict): HDict[] {
    return this.list(key).map((x, i) => {
      if (!(x instanceof HDict)) return this.wrong(`${key}[${i}]`, "a dict", x);
      return each(new Fields(x, `${this.where}${key}[${i}].`));
    });
  }

  severity(key: string): string | null {
    const s = this.str(key);
    if (s !== null && !SEVERITIES.includes(s)) throw fail(`${B}: ${this.where}${key} must be one of blocking, warning, informational, got ${s}`);
    return s;
  }

  raw(key: string): Value {
    return this.d.get(key);
  }
}

const fixture = (f: Fields): HDict =>
  HDict.of({
    id: f.str("id"),
    kind: f.str("kind"),
    path: f.str("path"),
    trace_id: f.str("trace_id"),
    provider: f.str("provider"),
    event_kind: f.str("event_kind"),
    inline: f.raw("inline"),
    metadata: f.dict("metadata"),
  });

const assertion = (f: Fields): HDict =>
  HDict.of({
    kind: f.str("kind"),
    stage: f.str("stage"),
    path: f.str("path"),
    op: f.str("op"),
    expected: f.raw("expected"),
    contains: f.str("contains"),
    metadata: f.dict("metadata"),
  });

const rubric = (f: Fields): HDict =>
  HDict.of({
    id: f.str("id"),
    kind: f.str("kind") ?? "deterministic",
    description: f.str("description"),
    prompt: f.str("prompt"),
    assertions: f.records("assertions", assertion),
    judge: f.raw("judge"),
    calibration: f.raw("calibration"),
    thresholds: f.dict("thresholds"),
    metadata: f.dict("metadata"),
  });

const evalCase = (f: Fields): HDict =>
  HDict.of({
    id: f.str("id"),
    name: f.str("name"),
    description: f.str("description"),
    run: f.str("run"),
    run_path: f.str("run_path"),
    friction_events: f.list("friction_events"),
    fixture: f.str("fixture"),
    fixture_path: f.str("fixture_path"),
    compare_to: f.str("compare_to"),
    rubrics: f.strings("rubrics"),
    severity: f.severity("severity"),
    thresholds: f.dict("thresholds"),
    metadata: f.dict("metadata"),
  });

/** `eval_pack_manifest(payload)`. */
export function packManifest(rt: Runtime, p: Value): HDict {
  if (!(p instanceof HDict)) throw fail(`${B}: missing payload`);
  const f = new Fields(p, "");
  const version = p.get("version");
  if (version !== null && !isNumeric(version)) throw fail(`${B}: version must be an int, got ${display(version)}`);
  const d = new Fields(f.dict("defaults"), "defaults.");
  return HDict.of({
    version: version === null ? 1 : Math.trunc(toJsNumber(version)),
    id: f.str("id") ?? newId(rt, "eval_pack"),
    name: f.str("name"),
    description: f.str("description"),
    base_dir: f.str("base_dir"),
    baseline: f.str("baseline"),
    package: f.raw("package"),
    defaults: HDict.of({ severity: d.severity("severity"), fixture_root: d.str("fixture_root"), thresholds: d.dict("thresholds"), judge: d.raw("judge") }),
    fixtures: f.records("fixtures", fixture),
    rubrics: f.records("rubrics", rubric),
    judge: f.raw("judge"),
    cases: f.records("cases", evalCase),
    metadata: f.dict("metadata"),
  });
}
