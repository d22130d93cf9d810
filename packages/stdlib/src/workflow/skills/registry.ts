/**
 * Skill registries (spec/workflows.md §2.1, §2.5): `skill_registry`,
 * `skill_define` with its validation texts and the helpers over registries,
 * plus the always-on catalog. A registry is an immutable dict
 * `{_type: "skill_registry", skills: [...]}`; every builtin returns a new
 * one. Errors are thrown strings.
 */
import { display, HarnError, HDict, type Value } from "@harn/vm";
import { isCallableValue } from "../../core/args";

const TYPE = "skill_registry";

export function skillRegistry(entries: readonly Value[]): HDict {
  return HDict.of({ _type: TYPE, skills: entries.slice() });
}

export function isSkillRegistry(v: Value | undefined): v is HDict {
  return v instanceof HDict && v.get("_type") === TYPE;
}

/** The entries of a registry (dicts only). */
export function skillEntries(reg: HDict): HDict[] {
  const s = reg.get("skills");
  return Array.isArray(s) ? s.filter((x): x is HDict => x instanceof HDict) : [];
}

const fail = (text: string) => HarnError.thrown(text);

/** `<builtin>: argument must be a skill registry (created with skill_registry())`. */
function checkType(v: HDict, builtin: string): HDict {
  if (v.get("_type") !== TYPE) throw fail(`${builtin}: argument must be a skill registry (created with skill_registry())`);
  return v;
}

/** The first argument of a helper taking more arguments. */
function firstRegistry(v: Value | undefined, builtin: string): HDict {
  if (!(v instanceof HDict)) throw fail(`${builtin}: first argument must be a skill registry`);
  return checkType(v, builtin);
}

/** The only argument of a one-argument helper. */
function soleRegistry(v: Value | undefined, builtin: string): HDict {
  if (!(v instanceof HDict)) throw fail(`${builtin}: requires a skill registry`);
  return checkType(v, builtin);
}

const STRING_FIELDS = ["short", "description", "when_to_use", "prompt", "invocation", "model", "effort"];
const LIST_FIELDS = ["paths", "allowed_tools", "mcp", "requires_mcp"];

/** `skill_define(registry, name, config)`. */
export function skillDefine(args: Value[]): HDict {
  if (args.length < 3) throw fail("skill_define: requires registry, name, and config dict");
  const reg = firstRegistry(args[0], "skill_define");
  const name = args[1];
  if (typeof name !== "string" || name === "") throw fail("skill_define: skill name must be a non-empty string");
  const config = args[2];
  if (!(config instanceof HDict)) throw fail("skill_define: third argument must be a config dict");
  for (const k of STRING_FIELDS) {
    if (config.has(k) && typeof config.get(k) !== "string") throw fail(`skill_define: '${k}' must be a string`);
  }
  for (const k of LIST_FIELDS) {
    if (config.has(k) && !Array.isArray(config.get(k))) throw fail(`skill_define: '${k}' must be a list`);
  }
  const allowed = config.get("allowed_tools");
  if (Array.isArray(allowed)) {
    for (const raw of allowed) {
      const e = typeof raw === "string" ? raw : display(raw);
      if (!e.includes(":")) continue;
      if (e.startsWith("namespace:")) {
        if (e.length === "namespace:".length) throw fail("skill_define: 'allowed_tools' entry 'namespace:' missing a tag after the colon");
        continue;
      }
      throw fail(`skill_define: 'allowed_tools' entry '${e}' contains ':' — only the \`namespace:<tag>\` prefix is recognized`);
    }
  }
  const entry = new Map<string, Value>([["name", name]]);
  const short = config.get("short");
  entry.set("description", config.has("description") ? config.get("description") : typeof short === "string" ? short : "");
  for (const k of config.keys()) entry.set(k, config.get(k));
  entry.set("name", name);
  return replaceOrAppend(reg, new HDict(entry));
}

/** A new registry with `entry` replacing the entry of its name in place,
 * or appended. */
export function replaceOrAppend(reg: HDict, entry: HDict): HDict {
  const list = skillEntries(reg);
  const name = entry.get("name");
  const at = list.findIndex((e) => e.get("name") === name);
  if (at >= 0) list[at] = entry;
  else list.push(entry);
  return skillRegistry(list);
}

function dataOnlyEntry(e: HDict): HDict {
  let out = e;
  for (const k of e.keys()) if (isCallableValue(e.get(k))) out = out.without(k);
  return out;
}

function str(v: Value): string {
  return typeof v === "string" ? v : v === null ? "" : display(v);
}

function describe(reg: HDict): string {
  const list = skillEntries(reg);
  if (list.length === 0) return "Available skills:\n(none)";
  const lines = ["Available skills:"];
  for (const e of list) {
    const desc = str(e.get("description"));
    lines.push(desc === "" ? `- ${str(e.get("name"))}` : `- ${str(e.get("name"))}: ${desc}`);
    const when = str(e.get("when_to_use"));
    if (when !== "") lines.push(`  when: ${when}`);
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------
// Catalog (§2.5)

export interface CatalogEntry {
  name: string;
  description: string;
  when_to_use: string;
}

/** The catalog name of an entry: `<namespace>/<name>` when namespaced. */
export function catalogName(e: HDict): string {
  const ns = str(e.get("namespace"));
  const name = str(e.get("name"));
  return ns === "" ? name : `${ns}/${name}`;
}

export function catalogEntries(reg: HDict): CatalogEntry[] {
  const out = skillEntries(reg).map((e) => {
    const short = str(e.get("short"));
    return { name: catalogName(e), description: short !== "" ? short : str(e.get("description")), when_to_use: str(e.get("when_to_use")) };
  });
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const CATALOG_HEADER =
  "## Available skills\n\nThese skills are available. Call `load_skill({ name: \"<skill-id>\" })` to load the full body of a skill when it becomes relevant.\n\n";

const omitted = (k: number) => `\n\n... ${k} more skill(s) omitted to stay within budget.`;

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

function catalogBlock(e: CatalogEntry): string {
  let s = e.description === "" ? `- \`${e.name}\`` : `- \`${e.name}\`: ${e.description}`;
  if (e.when_to_use !== "") s += `\n  when: ${e.when_to_use}`;
  return s;
}

/** The always-on catalog within `budget` bytes (§2.5 budget algorithm). */
export function renderCatalog(entries: readonly CatalogEntry[], budget: number): string {
  if (entries.length === 0) return `${CATALOG_HEADER}(none)`;
  const effective = Math.max(budget, bytes(CATALOG_HEADER) + bytes(omitted(1)));
  const blocks = entries.map(catalogBlock);
  const visible: string[] = [];
  let total = bytes(CATALOG_HEADER);
  for (const b of blocks) {
    const add = bytes(b) + (visible.length > 0 ? 1 : 0);
    if (total + add > effective) break;
    visible.push(b);
    total += add;
  }
  let k = blocks.length - visible.length;
  if (k === 0) return CATALOG_HEADER + visible.join("\n");
  for (;;) {
    // With no entry left the notice follows the header's blank line.
    const text = CATALOG_HEADER + (visible.length > 0 ? visible.join("\n") + omitted(k) : omitted(k).trimStart());
    if (bytes(text) <= effective || visible.length === 0) return text;
    visible.pop();
    k++;
  }
}

function catalogArg(v: Value | undefined): CatalogEntry[] {
  if (isSkillRegistry(v)) return catalogEntries(v);
  if (Array.isArray(v)) {
    return v.map((x) => {
      const d = x instanceof HDict ? x : HDict.empty();
      return { name: str(d.get("name")), description: str(d.get("description")), when_to_use: str(d.get("when_to_use")) };
    });
  }
  throw fail("render_always_on_catalog: first argument must be a catalog entry list or skill registry");
}

export function defineSkillRegistryBuiltins(def: (name: string, fn: (args: Value[]) => Value) => void): void {
  def("skill_registry", () => skillRegistry([]));
  def("skill_define", (args) => skillDefine(args));
  def("skill_find", (args) => {
    if (args.length < 2) throw fail("skill_find: requires registry and name");
    const reg = firstRegistry(args[0], "skill_find");
    return skillEntries(reg).find((e) => e.get("name") === args[1]) ?? null;
  });
  def("skill_list", (args) => skillEntries(soleRegistry(args[0], "skill_list")).map(dataOnlyEntry));
  def("skill_select", (args) => {
    if (args.length < 2) throw fail("skill_select: requires registry and names list");
    const reg = firstRegistry(args[0], "skill_select");
    const names = args[1];
    if (!Array.isArray(names)) throw fail("skill_select: second argument must be a list of skill names");
    return skillRegistry(skillEntries(reg).filter((e) => names.includes(e.get("name"))));
  });
  def("skill_remove", (args) => {
    if (args.length < 2) throw fail("skill_remove: requires registry and name");
    const reg = firstRegistry(args[0], "skill_remove");
    return skillRegistry(skillEntries(reg).filter((e) => e.get("name") !== args[1]));
  });
  def("skill_count", (args) => skillEntries(soleRegistry(args[0], "skill_count")).length);
  def("skill_describe", (args) => describe(soleRegistry(args[0], "skill_describe")));
  def("skills_catalog_entries", (args) =>
    catalogEntries(soleRegistry(args[0], "skills_catalog_entries")).map((e) => HDict.of({ name: e.name, description: e.description, when_to_use: e.when_to_use })),
  );
  def("render_always_on_catalog", (args) => {
    const budget = args[1];
    const entries = catalogArg(args[0]);
    if (typeof budget !== "number" || !Number.isInteger(budget) || budget <= 0) {
      throw fail("render_always_on_catalog: second argument must be a positive integer budget");
    }
    return renderCatalog(entries, budget);
  });
}
