/**
 * Signatures and docs of the template builtins for the builtin table
 * (registry/docs.ts): the spec's words where it documents the builtin, a
 * short summary where it only mentions it. Read by the build only.
 */
import type { BuiltinDocs } from "../registry/docs";

export const TEMPLATE_DOCS: BuiltinDocs = {
  prompt_mark_rendered: ["prompt_mark_rendered(prompt_id)", "Records that a rendered prompt was used; returns its int ordinal."],
  render: ["render(path, bindings?)", "Read the template file (resolved against the asset root, §2.6; `@/` and `@alias/` forms supported) and render it with the `bindings` dict. Read failure throws `Failed to read template <resolved>: <os error>`."],
  render_prompt: ["render_prompt(path, bindings?)", "Read the template file (resolved against the asset root, §2.6; `@/` and `@alias/` forms supported) and render it with the `bindings` dict. Read failure throws `Failed to read template <resolved>: <os error>`."],
  render_string: ["render_string(template, bindings?)", "Render an inline template string (includes resolve against the current module's asset root)."],
  render_with_provenance: ["render_with_provenance(path, bindings?)", "Returns `{text, template_uri, prompt_id, spans}`; `prompt_mark_rendered(prompt_id)` → int ordinal (type error `prompt_mark_rendered: prompt_id must be a string`)."],
};
