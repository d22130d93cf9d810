/**
 * The `harn.toml` keys `harn check` reads (spec/cli.md §4, §0.5):
 * `[check].disable_rules` (the only lint configuration check honours: no
 * `[lint]` keys, default complexity, no file-header rule), [extension]
 * `[check].checked_handles`, `[check].strict`
 * (warnings fail the run) and `[workspace].pipelines` (for `--workspace`).
 */
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { ConfigError, manifestBool, ManifestResolver, manifestTable, readManifest } from "@harn/lint";

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

function strings(v: unknown, path: string, key: string): string[] | null {
  if (v === undefined) return null;
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v as string[];
  throw new ConfigError(path, `${path}: ${key} must be a list of strings`);
}

export function readCheckConfig(manifest: string): CheckConfig {
  const doc = readManifest(manifest);
  const check = manifestTable(doc.check, manifest, "check");
  const workspace = manifestTable(doc.workspace, manifest, "workspace");
  const strict = manifestBool(check.strict, manifest, "[check].strict");
  // accepted (a boolean) and without effect: handles are followed by default
  manifestBool(check.checked_handles, manifest, "[check].checked_handles");
  const pipelines = strings(workspace.pipelines, manifest, "[workspace].pipelines");
  const severity = check.preflight_severity;
  if (severity !== undefined && !PREFLIGHT_SEVERITIES.includes(severity as PreflightSeverity)) {
    throw new ConfigError(manifest, `${manifest}: [check].preflight_severity must be "error", "warning" or "off"`);
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

/** The `harn check` configuration of each file or directory. Throws ConfigError (from @harn/lint). */
export class CheckConfigResolver extends ManifestResolver<CheckConfig> {
  constructor() {
    super(readCheckConfig, DEFAULTS);
  }
}
