/**
 * The `harn.toml` keys `harn check` reads (spec/cli.md §4, §0.5):
 * `[check].disable_rules` (the only lint configuration check honours: no
 * `[lint]` keys, default complexity, no file-header rule), `[check].strict`
 * (warnings fail the run) and `[workspace].pipelines` (for `--workspace`).
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { findManifest } from "@harn/lint";
import { parse as parseToml } from "smol-toml";

export class CheckConfigError extends Error {}

export interface CheckConfig {
  /** The manifest it came from (null: defaults). */
  path: string | null;
  disableRules: string[];
  strict: boolean;
  /** `[check].preflight_severity` (null: not set). */
  preflightSeverity: PreflightSeverity | null;
  /** `[workspace].pipelines`, resolved against the manifest's directory
   * (shown relative to the current directory when inside it); null when
   * absent. */
  pipelines: string[] | null;
}

export type PreflightSeverity = "error" | "warning" | "off";
export const PREFLIGHT_SEVERITIES: readonly PreflightSeverity[] = ["error", "warning", "off"];

const DEFAULTS: CheckConfig = { path: null, disableRules: [], strict: false, preflightSeverity: null, pipelines: null };

type Table = Record<string, unknown>;

function table(doc: Table, name: string, path: string): Table {
  const v = doc[name];
  if (v === undefined) return {};
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new CheckConfigError(`${path}: [${name}] must be a table`);
  return v as Table;
}

function strings(v: unknown, path: string, key: string): string[] | null {
  if (v === undefined) return null;
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v as string[];
  throw new CheckConfigError(`${path}: ${key} must be a list of strings`);
}

export function readCheckConfig(manifest: string): CheckConfig {
  let doc: Table;
  try {
    doc = parseToml(readFileSync(manifest, "utf8")) as Table;
  } catch (e) {
    const msg = e instanceof Error ? e.message.split("\n")[0]! : String(e);
    throw new CheckConfigError(`failed to parse ${manifest}: ${msg}`);
  }
  const check = table(doc, "check", manifest);
  const workspace = table(doc, "workspace", manifest);
  const strict = check.strict;
  if (strict !== undefined && typeof strict !== "boolean") throw new CheckConfigError(`${manifest}: [check].strict must be true or false`);
  const pipelines = strings(workspace.pipelines, manifest, "[workspace].pipelines");
  const severity = check.preflight_severity;
  if (severity !== undefined && !PREFLIGHT_SEVERITIES.includes(severity as PreflightSeverity)) {
    throw new CheckConfigError(`${manifest}: [check].preflight_severity must be "error", "warning" or "off"`);
  }
  return {
    path: manifest,
    disableRules: strings(check.disable_rules, manifest, "[check].disable_rules") ?? [],
    strict: strict ?? false,
    preflightSeverity: (severity as PreflightSeverity | undefined) ?? null,
    pipelines: pipelines && pipelines.map((p) => shown(resolve(dirname(manifest), p))),
  };
}

function shown(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
}

/** Finds and reads manifests, each directory and manifest once per run. */
export class CheckConfigResolver {
  private readonly byDir = new Map<string, string | null>();
  private readonly byPath = new Map<string, CheckConfig>();

  /** The configuration for a file (its directory) or a directory target. Throws CheckConfigError. */
  forDir(dir: string): CheckConfig {
    const abs = resolve(dir);
    let manifest = this.byDir.get(abs);
    if (manifest === undefined) this.byDir.set(abs, (manifest = findManifest(abs)));
    if (manifest === null) return DEFAULTS;
    let cfg = this.byPath.get(manifest);
    if (!cfg) this.byPath.set(manifest, (cfg = readCheckConfig(manifest)));
    return cfg;
  }

  forFile(file: string): CheckConfig {
    return this.forDir(dirname(resolve(file)));
  }
}
