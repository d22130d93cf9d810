/**
 * `harn.toml` discovery and the `[lint]` / `[check]` keys the linter reads
 * (spec/cli.md §0.5, lint.md §5.7). A manifest that does not parse, or
 * whose keys have the wrong types, is a ConfigError: `harn lint` cannot run
 * with it and exits 2 (extensions.md §6).
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { closestName } from "@harn/parser";
import { RULE_ALIASES, RULES_BY_ID } from "./rules/index";
import type { RuleSetting, Severity } from "./types";

import { findManifest } from "./manifest-path";

export { MANIFEST, findManifest } from "./manifest-path";

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
  /** Each rule's setting: `[lint].disabled` and `[check].disable_rules`
   * (off), `[lint.severity]`, `[lint.options.ID]`, and the reference's
   * `require_file_header` and `complexity_threshold`, which are settings
   * of one rule each. */
  rules: Record<string, RuleSetting>;
  /** `[check].strict`: warnings fail the run. */
  strict: boolean;
  /** What is wrong but harmless (an unknown rule id): printed as warnings. */
  warnings: string[];
}

export const DEFAULT_CONFIG: LintConfig = { path: null, rules: {}, strict: false, warnings: [] };

/** The setting that switches each of `ids` off. */
export function rulesOff(ids: Iterable<string>): Record<string, RuleSetting> {
  const out: Record<string, RuleSetting> = {};
  for (const id of ids) out[id] = { severity: "off" };
  return out;
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
function severities(v: unknown, path: string): Record<string, Severity | "off"> {
  const t = manifestTable(v, path, "lint.severity");
  const out: Record<string, Severity | "off"> = {};
  for (const [rule, level] of Object.entries(t)) {
    if (typeof level !== "string" || !SEVERITIES.has(level)) {
      throw new ConfigError(path, `${path}: [lint.severity].${rule} must be "error", "warning", "info" or "off"`);
    }
    out[rule] = level as Severity | "off";
  }
  return out;
}

/** `[lint.options.RULE]`: each value must have the type of the rule's
 * default; unknown rules and options are warnings. */
function ruleOptions(v: unknown, path: string, warnings: string[]): Record<string, Record<string, unknown>> {
  const t = manifestTable(v, path, "lint.options");
  const out: Record<string, Record<string, unknown>> = {};
  for (const [id, table] of Object.entries(t)) {
    const opts = manifestTable(table, path, `lint.options.${id}`);
    const rule = RULES_BY_ID.get(RULE_ALIASES.get(id) ?? id);
    if (!rule) {
      warnings.push(...unknownRules([id], path, "[lint.options]"));
      continue;
    }
    const defaults = (rule.meta.defaultOptions ?? {}) as Record<string, unknown>;
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(opts)) {
      if (!(key in defaults)) {
        const known = Object.keys(defaults);
        warnings.push(`${path}: rule \`${id}\` has no option \`${key}\`${known.length > 0 ? ` (it has ${known.map((k) => `\`${k}\``).join(", ")})` : ""}`);
        continue;
      }
      const want = typeof defaults[key];
      const got = typeof value === "bigint" ? "number" : typeof value;
      if (got !== want) throw new ConfigError(path, `${path}: [lint.options.${id}].${key} must be a ${want}`);
      kept[key] = typeof value === "bigint" ? Number(value) : value;
    }
    out[rule.id] = kept;
  }
  return out;
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
  // the path-sensitive handle analysis is the default now: the key stays valid
  manifestBool(pick(lint, "checked_handles", "checked-handles"), path, "[lint].checked_handles");
  const sev = severities(lint.severity, path);
  const lintDisabled = ids(lint.disabled, path, "[lint].disabled");
  const checkDisabled = ids(check.disable_rules, path, "[check].disable_rules");
  const warnings = [
    ...unknownRules(lintDisabled, path, "[lint].disabled"),
    ...unknownRules(checkDisabled, path, "[check].disable_rules"),
    ...unknownRules(Object.keys(sev), path, "[lint.severity]"),
  ];
  const options = ruleOptions(lint.options, path, warnings);
  const rules: Record<string, RuleSetting> = {};
  const set = (id: string, s: RuleSetting): void => {
    rules[id] = { ...rules[id], ...s };
  };
  if (manifestBool(pick(lint, "require_file_header", "require-file-header"), path, "[lint].require_file_header")) set("require-file-header", { severity: "warning" });
  if (threshold !== undefined) set("cyclomatic-complexity", { options: { threshold: Number(threshold) } });
  for (const [id, o] of Object.entries(options)) set(id, { options: { ...rules[id]?.options, ...o } });
  for (const [id, level] of Object.entries(sev)) set(id, { severity: level });
  for (const id of [...lintDisabled, ...checkDisabled]) set(id, { severity: "off" });
  return { path, rules, strict: manifestBool(check.strict, path, "[check].strict") ?? false, warnings };
}

/** Finds and reads manifests, each directory and manifest once per run:
 * `read` turns the nearest manifest into a configuration, `defaults`
 * applies where there is none. */
export class ManifestResolver<T> {
  private readonly byDir = new Map<string, string | null>();
  private readonly byPath = new Map<string, T>();
  private readonly byWrittenDir = new Map<string, T>();

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
    // by the directory as written first: the files of one directory share
    // its configuration without resolving each path
    const slash = file.lastIndexOf("/");
    const dir = slash < 0 ? "." : file.slice(0, slash) || "/";
    let cfg = this.byWrittenDir.get(dir);
    if (cfg === undefined) this.byWrittenDir.set(dir, (cfg = this.forDir(dirname(resolve(file)))));
    return cfg;
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
