/**
 * `harn.toml` discovery and the `[lint]` / `[check]` keys the linter reads
 * (spec/cli.md §0.5, lint.md §5.7). A manifest that does not parse, or
 * whose keys have the wrong types, is a ConfigError: `harn lint` cannot run
 * with it and exits 2 (extensions.md §6).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { closestName } from "@harn/parser";
import { RULE_ALIASES, RULES_BY_ID } from "./rules/index";
import type { Severity } from "./types";

export const MANIFEST = "harn.toml";
const MAX_DIRS = 16;

export class ConfigError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "ConfigError";
  }
}

export interface LintConfig {
  /** The manifest it came from (null: defaults). */
  path: string | null;
  /** `[lint].disabled` ∪ `[check].disable_rules`. */
  disabled: string[];
  requireFileHeader: boolean;
  complexityThreshold: number | null;
  /** `[lint].checked_handles`: path-sensitive handle lifecycles. */
  checkedHandles: boolean;
  /** `[check].strict`: warnings fail the run. */
  strict: boolean;
  /** `[lint.severity]`: per-rule severity overrides (extension; `off`
   * disables the rule). */
  severities: Record<string, Severity>;
  /** What is wrong but harmless (an unknown rule id): printed as warnings. */
  warnings: string[];
}

export const DEFAULT_CONFIG: LintConfig = {
  path: null,
  disabled: [],
  requireFileHeader: false,
  complexityThreshold: null,
  checkedHandles: false,
  strict: false,
  severities: {},
  warnings: [],
};

/**
 * The nearest `harn.toml` walking up from `dir`: at most 16 directories,
 * stopping after the first that contains `.git` (its own manifest still
 * counts).
 */
export function findManifest(dir: string): string | null {
  let d = resolve(dir);
  for (let i = 0; i < MAX_DIRS; i++) {
    const candidate = join(d, MANIFEST);
    if (existsSync(candidate)) return candidate;
    if (existsSync(join(d, ".git"))) return null;
    const up = dirname(d);
    if (up === d) return null;
    d = up;
  }
  return null;
}

type Table = Record<string, unknown>;

/** A manifest's TOML document; one that cannot be read or parsed is a
 * ConfigError (`failed to parse PATH: ` and the parser's first line). */
export function readManifest(path: string): Table {
  try {
    return parseToml(readFileSync(path, "utf8")) as Table;
  } catch (e) {
    const msg = e instanceof Error ? e.message.split("\n")[0]! : String(e);
    throw new ConfigError(path, `failed to parse ${path}: ${msg}`);
  }
}

/** The table `[name]` of the manifest at `path`, given its value `v` ({}
 * when absent); any other value is a ConfigError. */
export function manifestTable(v: unknown, path: string, name: string): Table {
  if (v === undefined) return {};
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new ConfigError(path, `${path}: [${name}] must be a table`);
  return v as Table;
}

function pick(t: Table, ...keys: string[]): unknown {
  for (const k of keys) if (t[k] !== undefined) return t[k];
  return undefined;
}

/** A `harn.toml` boolean (undefined when absent); `key` names it in the error. */
export function manifestBool(v: unknown, path: string, key: string): boolean | undefined {
  if (v === undefined || typeof v === "boolean") return v;
  throw new ConfigError(path, `${path}: ${key} must be true or false`);
}

function ids(v: unknown, path: string, key: string): string[] {
  if (v === undefined) return [];
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v as string[];
  throw new ConfigError(path, `${path}: ${key} must be a list of rule ids`);
}

const SEVERITIES = new Set(["error", "warning", "info", "off"]);

/** `[lint.severity]`: `rule-id = "error" | "warning" | "info" | "off"`. */
function severities(v: unknown, path: string): { severities: Record<string, Severity>; off: string[] } {
  const t = manifestTable(v, path, "lint.severity");
  const out: Record<string, Severity> = {};
  const off: string[] = [];
  for (const [rule, level] of Object.entries(t)) {
    if (typeof level !== "string" || !SEVERITIES.has(level)) {
      throw new ConfigError(path, `${path}: [lint.severity].${rule} must be "error", "warning", "info" or "off"`);
    }
    if (level === "off") off.push(rule);
    else out[rule] = level as Severity;
  }
  return { severities: out, off };
}

/** Rule ids in `ids` that no rule has: a misspelt id would switch nothing
 * off, silently. */
function unknownRules(ids: readonly string[], path: string, key: string): string[] {
  const known = [...RULES_BY_ID.keys(), ...RULE_ALIASES.keys()];
  return ids
    .filter((id) => !RULES_BY_ID.has(id) && !RULE_ALIASES.has(id))
    .map((id) => {
      const near = closestName(id, known);
      return `${path}: unknown rule \`${id}\` in ${key}${near ? ` (did you mean \`${near}\`?)` : ""}`;
    });
}

/** Read the lint-relevant keys of one manifest. */
export function readLintConfig(path: string): LintConfig {
  const doc = readManifest(path);
  const lint = manifestTable(doc.lint, path, "lint");
  const check = manifestTable(doc.check, path, "check");
  const threshold = pick(lint, "complexity_threshold", "complexity-threshold");
  if (threshold !== undefined && !(typeof threshold === "bigint" || (typeof threshold === "number" && Number.isInteger(threshold)))) {
    throw new ConfigError(path, `${path}: [lint].complexity_threshold must be an integer`);
  }
  const sev = severities(lint.severity, path);
  const lintDisabled = ids(lint.disabled, path, "[lint].disabled");
  const checkDisabled = ids(check.disable_rules, path, "[check].disable_rules");
  const warnings = [
    ...unknownRules(lintDisabled, path, "[lint].disabled"),
    ...unknownRules(checkDisabled, path, "[check].disable_rules"),
    ...unknownRules(Object.keys(manifestTable(lint.severity, path, "lint.severity")), path, "[lint.severity]"),
  ];
  return {
    path,
    disabled: [...lintDisabled, ...checkDisabled, ...sev.off],
    warnings,
    requireFileHeader: manifestBool(pick(lint, "require_file_header", "require-file-header"), path, "[lint].require_file_header") ?? false,
    complexityThreshold: threshold === undefined ? null : Number(threshold),
    checkedHandles: manifestBool(pick(lint, "checked_handles", "checked-handles"), path, "[lint].checked_handles") ?? false,
    strict: manifestBool(check.strict, path, "[check].strict") ?? false,
    severities: sev.severities,
  };
}

/** Finds and reads manifests, each directory and manifest once per run:
 * `read` turns the nearest manifest into a configuration, `defaults`
 * applies where there is none. */
export class ManifestResolver<T> {
  private readonly byDir = new Map<string, string | null>();
  private readonly byPath = new Map<string, T>();

  constructor(
    private readonly read: (manifest: string) => T,
    private readonly defaults: T,
  ) {}

  /** The configuration for a directory. Throws what `read` throws. */
  forDir(dir: string): T {
    const abs = resolve(dir);
    let manifest = this.byDir.get(abs);
    if (manifest === undefined) this.byDir.set(abs, (manifest = findManifest(abs)));
    if (manifest === null) return this.defaults;
    let cfg = this.byPath.get(manifest);
    if (!cfg) this.byPath.set(manifest, (cfg = this.read(manifest)));
    return cfg;
  }

  /** Every configuration read so far. */
  configs(): Iterable<T> {
    return this.byPath.values();
  }

  /** The configuration that applies to `file` (its directory's). */
  forFile(file: string): T {
    return this.forDir(dirname(resolve(file)));
  }
}

/** The lint configuration of each file. Throws ConfigError. */
export class ConfigResolver extends ManifestResolver<LintConfig> {
  constructor() {
    super(readLintConfig, DEFAULT_CONFIG);
  }

  /** The warnings of every manifest read so far, each once. */
  warnings(): string[] {
    return [...this.configs()].flatMap((c) => c.warnings);
  }
}
