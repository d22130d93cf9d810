/**
 * The skill builtins (spec/workflows.md §2): the registry helpers and the
 * catalog (registry.ts), `skill_render` and the `load_skill` builtin over
 * the project's discovered skills (files.ts).
 */
import { display, HarnError, HDict, type Value } from "@harn/vm";
import { builtinModule } from "../../registry/define";
import { boundSkills, findSkill, skillBody, skillDirOf, substitute } from "./files";
import { defineSkillRegistryBuiltins } from "./registry";

function renderArgs(v: Value | undefined): string[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw HarnError.thrown("skill_render: second argument must be a list of strings");
  return v as string[];
}

export const SKILL_BUILTINS = builtinModule("workflow/skills", (def, rt) => {
  defineSkillRegistryBuiltins(def);
  def("skill_render", (args) => {
    if (args.length === 0 || args[0] === null) throw HarnError.thrown("skill_render: requires a skill entry or body string");
    const target = args[0]!;
    const sessionId = rt.env.HARN_SESSION_ID ?? null;
    if (typeof target === "string") return substitute(target, { args: renderArgs(args[1]), skillDir: null, sessionId });
    if (!(target instanceof HDict)) throw HarnError.thrown("skill_render: first argument must be a skill entry or a string body");
    const list = renderArgs(args[1]);
    let entry = target;
    // A compact card without a directory: the discovered skill of its name.
    if (typeof entry.get("body") !== "string" && skillDirOf(entry) === null) {
      const reg = boundSkills(rt);
      const found = reg && typeof entry.get("name") === "string" ? findSkill(reg, entry.get("name") as string) : null;
      if (found) entry = found;
    }
    return substitute(skillBody(entry), { args: list, skillDir: skillDirOf(entry), sessionId });
  });
  def("load_skill", async (args) => {
    const a = args[0] ?? null;
    const raw = a instanceof HDict ? a.get("name") : a;
    const name = raw === null ? "" : typeof raw === "string" ? raw : display(raw);
    if (name.trim() === "") throw HarnError.runtime("load_skill: requires a non-empty skill name");
    const reg = boundSkills(rt);
    const entry = reg ? findSkill(reg, name) : null;
    if (!entry) throw HarnError.runtime(`load_skill: skill '${name}' not found`);
    return substitute(skillBody(entry), { args: [], skillDir: skillDirOf(entry), sessionId: rt.env.HARN_SESSION_ID ?? null });
  });
});
