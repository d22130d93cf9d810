/**
 * Signatures and docs of the workflow-layer builtins for the builtin table
 * (registry/docs.ts), in the words of spec/workflows.md. Read by the build only.
 */
import type { BuiltinDocs } from "../registry/docs";

export const WORKFLOW_DOCS: BuiltinDocs = {
  skill_registry: ["skill_registry()", "An empty skill registry `{_type: \"skill_registry\", skills: []}`; `skill NAME { … }` binds NAME to a registry holding that skill."],
  skill_define: [
    "skill_define(registry, name, config)",
    "A new registry with skill `name`: `{name, description}` plus every config key (`description` defaults to `short`, else `\"\"`); an existing entry of that name is replaced in place.",
  ],
  skill_find: ["skill_find(registry, name)", "The skill entry named `name`, or nil."],
  skill_list: ["skill_list(registry)", "The entries, without closure-valued keys."],
  skill_select: ["skill_select(registry, names)", "A registry with the named entries, in registry order."],
  skill_remove: ["skill_remove(registry, name)", "A registry without the named entry."],
  skill_count: ["skill_count(registry)", "The number of skills."],
  skill_describe: ["skill_describe(registry)", "`Available skills:` and one `- name: description` line per skill (plus `  when: …`)."],
  skills_catalog_entries: ["skills_catalog_entries(registry)", "`{name, description, when_to_use}` per skill, sorted by name (`namespace/name` when namespaced)."],
  render_always_on_catalog: ["render_always_on_catalog(entries_or_registry, budget)", "The `## Available skills` catalog text, within `budget` bytes (omitted skills counted)."],
  skill_render: [
    "skill_render(skill_or_body, args?)",
    "Substitutes `$$`, `$ARGUMENTS`, `$N`, `${HARN_SKILL_DIR}` and `${HARN_SESSION_ID}` in a skill body (a missing `$N` stays as written).",
  ],
  load_skill: ["load_skill(name)", "The rendered body of the project skill `name` (from the `skills` global)."],
};
