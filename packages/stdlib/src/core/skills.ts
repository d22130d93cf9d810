/**
 * Skill registries (spec/core-gaps.md §7.2): `skill_registry()`,
 * `skill_define(reg, name, config)` and `skill_find(reg, name)`. A
 * `skill NAME { … }` declaration binds NAME to the registry holding that
 * one skill (the evaluator calls these builtins). Registries are values:
 * defining returns a new one.
 */
import { HarnError, HDict, type Value } from "@harn/vm";
import { builtinModule } from "../registry/define";

const STRING_FIELDS = ["short", "description", "when_to_use", "prompt", "invocation", "model", "effort"];
const LIST_FIELDS = ["paths", "allowed_tools", "mcp", "requires_mcp"];

function isRegistry(v: Value): v is HDict {
  return v instanceof HDict && v.get("_type") === "skill_registry";
}

function skills(reg: HDict, fn: string): Value[] {
  const list = reg.get("skills");
  if (!Array.isArray(list)) throw HarnError.thrown(`${fn}: argument must be a skill registry (created with skill_registry())`);
  return list;
}

export const SKILLS_BUILTINS = builtinModule("core/skills", (def) => {
  def("skill_registry", () => HDict.of({ _type: "skill_registry", skills: [] }));
  def("skill_define", (args) => {
    if (args.length < 3) throw HarnError.thrown("skill_define: requires registry, name, and config dict");
    const [reg, name, config] = args as [Value, Value, Value];
    if (!(reg instanceof HDict)) throw HarnError.thrown("skill_define: first argument must be a skill registry");
    if (!isRegistry(reg)) throw HarnError.thrown("skill_define: argument must be a skill registry (created with skill_registry())");
    const list = skills(reg, "skill_define");
    if (typeof name !== "string" || name === "") throw HarnError.thrown("skill_define: skill name must be a non-empty string");
    if (!(config instanceof HDict)) throw HarnError.thrown("skill_define: third argument must be a config dict");
    for (const k of STRING_FIELDS) {
      const v = config.get(k);
      if (v !== null && typeof v !== "string") throw HarnError.thrown(`skill_define: '${k}' must be a string`);
    }
    for (const k of LIST_FIELDS) {
      const v = config.get(k);
      if (v !== null && !Array.isArray(v)) throw HarnError.thrown(`skill_define: '${k}' must be a list`);
    }
    const entry = new Map(config.map);
    entry.set("name", name);
    if (config.get("description") === null) entry.set("description", config.get("short") ?? "");
    const skill = new HDict(entry);
    const i = list.findIndex((s) => s instanceof HDict && s.get("name") === name);
    const next = i >= 0 ? list.map((s, j) => (j === i ? skill : s)) : [...list, skill];
    return reg.with("skills", next);
  });
  def("skill_find", (args) => {
    if (args.length < 2) throw HarnError.thrown("skill_find: requires registry and name");
    const reg = args[0]!;
    if (!isRegistry(reg)) throw HarnError.thrown("skill_find: first argument must be a skill registry");
    const name = args[1];
    return skills(reg, "skill_find").find((s) => s instanceof HDict && s.get("name") === name) ?? null;
  });
});
