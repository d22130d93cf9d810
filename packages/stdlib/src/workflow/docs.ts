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
  artifact: ["artifact(payload)", "The normalised artifact record `{_type: \"artifact\", id, kind, title, text, data, source, created_at, freshness, priority, lineage, relevance, estimated_tokens, stage, metadata}` (kind aliases, priority by kind, tokens = ceil(bytes/4))."],
  artifact_workspace_file: ["artifact_workspace_file(path, content, options?)", "A `workspace_file` artifact."],
  artifact_workspace_snapshot: ["artifact_workspace_snapshot(paths, summary?, options?)", "A `workspace_snapshot` artifact."],
  artifact_editor_selection: ["artifact_editor_selection(path, text, options?)", "An `editor_selection` artifact titled `selection PATH`."],
  artifact_verification_result: ["artifact_verification_result(title, text, options?)", "A `verification_result` artifact."],
  artifact_test_result: ["artifact_test_result(title, text, options?)", "A `test_result` artifact."],
  artifact_command_result: ["artifact_command_result(command, output, options?)", "A `command_result` artifact (non-string output as compact JSON text)."],
  artifact_diff: ["artifact_diff(path, before, after, options?)", "A `diff` artifact whose text is the unified diff of before -> after."],
  artifact_git_diff: ["artifact_git_diff(diff_text, options?)", "A `git_diff` artifact."],
  artifact_diff_review: ["artifact_diff_review(target, summary?, options?)", "A `diff_review` of `target` (lineage: the target's plus its id)."],
  artifact_review_decision: ["artifact_review_decision(target, decision, options?)", "A `review_decision` on `target`."],
  artifact_patch_proposal: ["artifact_patch_proposal(target, patch, options?)", "A `patch_proposal` for `target`."],
  artifact_verification_bundle: ["artifact_verification_bundle(title, checks, options?)", "A `verification_bundle` artifact."],
  artifact_apply_intent: ["artifact_apply_intent(target, intent, options?)", "An `apply_intent` for `target`."],
  artifact_derive: ["artifact_derive(parent, kind?, extra?)", "A copy of `parent` with id `<parent id>_derived`, the new kind, the parent in its lineage and `extra.text` when given."],
  artifact_select: ["artifact_select(artifacts, policy)", "The artifacts a context policy selects, in its order (filters, pins, priority, freshness, recency, relevance, budgets)."],
  select_artifacts_adaptive: ["select_artifacts_adaptive(artifacts, policy)", "`artifact_select` after dropping stale evidence and repeated texts and micro-compacting oversized artifacts."],
  artifact_context: ["artifact_context(artifacts, policy)", "The selected artifacts rendered as `<artifact>` blocks (or JSON with `render: \"json\"`)."],
  run_record: ["run_record(payload)", "The normalised run record (§4.5 keys; `id`, `started_at`, `status: \"running\"`, `root_run_id`, the replay fixture and `observability` filled in)."],
  run_record_save: ["run_record_save(run, path?)", "Writes the run as pretty JSON (default `.harn-runs/<id>.json`, directories created); returns `{path, run}`."],
  run_record_load: ["run_record_load(path)", "The run record stored at `path`."],
  run_record_fixture: ["run_record_fixture(run)", "The replay fixture of a run: its status and one assertion per stage."],
  run_record_eval: ["run_record_eval(run, fixture?)", "`{pass, failures, stage_count}`: the run checked against a fixture (default: its own)."],
  run_record_eval_suite: ["run_record_eval_suite(items)", "`{pass, total, passed, failed, cases}` over runs or `{run, fixture?, path?, label?}` items."],
  run_record_diff: ["run_record_diff(left, right)", "Stage, tool and observability differences of two runs, status change and count deltas, and whether they are identical."],
};
