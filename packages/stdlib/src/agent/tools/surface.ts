/**
 * `tool_surface_validate(surface, options?)` (spec/workflows.md §3.6):
 * checks the tools a model will see against their annotations, the
 * capability and approval policies and the prompts that mention them.
 */
import { HDict, type Value } from "@harn/vm";
import { toolEntries } from "./spec";

interface Diagnostic {
  code: string;
  severity: "error" | "warning";
  message: string;
  tool?: string;
  field?: string;
}

const SIDE_EFFECT_RANK = ["none", "read_only", "workspace_write", "process_exec", "network"];

const strs = (v: Value): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const dictOf = (v: Value): HDict | null => (v instanceof HDict ? v : null);

/** Names a prompt refers to: `name(` calls and names inside `<tool_call>`
 * blocks, snake_case-looking only. */
function promptReferences(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*\(/g)) names.add(m[1]!);
  for (const block of text.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)) {
    for (const m of block[1]!.matchAll(/\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b/g)) names.add(m[1]!);
  }
  return [...names];
}

function promptTexts(surface: HDict): string[] {
  const out: string[] = [];
  for (const k of ["system", "prompt"]) if (typeof surface.get(k) === "string") out.push(surface.get(k) as string);
  const prompts = surface.get("prompts");
  if (typeof prompts === "string") out.push(prompts);
  else out.push(...strs(prompts));
  return out;
}

export function validateSurface(surface: HDict): HDict {
  const diags: Diagnostic[] = [];
  const all = toolEntries(surface.get("tools")).entries;
  const policy = dictOf(surface.get("policy"));
  const allowed = strs(policy?.get("tools") ?? null);
  const active = allowed.length > 0 ? all.filter((t) => allowed.includes(String(t.get("name")))) : all;
  const nativeNames = (Array.isArray(surface.get("native_tools")) ? (surface.get("native_tools") as Value[]) : [])
    .map((t) => (t instanceof HDict ? t.get("name") : t))
    .filter((n): n is string => typeof n === "string");
  const activeNames = new Set([...active.map((t) => String(t.get("name"))), ...nativeNames]);
  const annotations = (t: HDict) => dictOf(t.get("annotations"));
  const kindOf = (t: HDict) => annotations(t)?.get("kind") ?? null;
  const warn = (code: string, message: string, tool?: string, field?: string) => diags.push({ code, severity: "warning", message, tool, field });
  const error = (code: string, message: string, tool?: string, field?: string) => diags.push({ code, severity: "error", message, tool, field });

  const hasReader = active.some((t) => kindOf(t) === "read" || kindOf(t) === "search") || activeNames.has("read_command_output");
  for (const t of active) {
    const name = String(t.get("name"));
    const params = t.get("parameters");
    const ann = annotations(t);
    if (!(params instanceof HDict)) warn("TOOL_SURFACE_MISSING_SCHEMA", `active tool '${name}' has no parameter schema`, name);
    if (ann === null) warn("TOOL_SURFACE_MISSING_ANNOTATIONS", `active tool '${name}' has no ToolAnnotations`, name);
    if (ann === null || typeof ann.get("side_effect_level") !== "string") warn("TOOL_SURFACE_MISSING_SIDE_EFFECT_LEVEL", `active tool '${name}' has no side-effect level`, name);
    if (typeof t.get("executor") !== "string") warn("TOOL_SURFACE_MISSING_EXECUTOR", `active tool '${name}' has no declared executor`, name);
    const readers = strs(ann?.get("result_readers") ?? null);
    if (ann?.get("kind") === "execute" && ann.get("emits_artifacts") === true && !readers.some((r) => activeNames.has(r)) && !hasReader) {
      error("TOOL_SURFACE_MISSING_RESULT_READER", `execute tool '${name}' can emit output artifacts but has no active result reader`, name, "result_readers");
    }
    for (const r of readers) if (!activeNames.has(r)) warn("TOOL_SURFACE_UNKNOWN_RESULT_READER", `tool '${name}' declares result reader '${r}' that is not active`, name);
  }

  for (const c of (Array.isArray(policy?.get("tool_arg_constraints")) ? (policy!.get("tool_arg_constraints") as Value[]) : []).filter((x): x is HDict => x instanceof HDict)) {
    const tool = String(c.get("tool"));
    const t = active.find((x) => x.get("name") === tool);
    if (!t) {
      warn("TOOL_SURFACE_UNKNOWN_ARG_CONSTRAINT_TOOL", `ToolArgConstraint references tool '${tool}' which is not active`, tool);
      continue;
    }
    const key = c.get("arg_key");
    const params = t.get("parameters");
    if (typeof key === "string" && !(params instanceof HDict && params.has(key))) {
      warn("TOOL_SURFACE_UNKNOWN_ARG_CONSTRAINT_KEY", `ToolArgConstraint for '${tool}' targets unknown argument '${key}'`, tool, `tool_arg_constraints.${key}`);
    }
  }

  const approval = dictOf(surface.get("approval_policy"));
  for (const key of ["auto_approve", "auto_deny", "require_approval"]) {
    for (const p of strs(approval?.get(key) ?? null)) {
      if (p.includes("*") || activeNames.has(p)) continue;
      const field = `approval_policy.${key}`;
      warn("TOOL_SURFACE_APPROVAL_PATTERN_NO_MATCH", `${field} pattern '${p}' matches no active tool`, undefined, field);
    }
  }

  const texts = promptTexts(surface);
  const searchActive = surface.get("tool_search") !== null && surface.get("tool_search") !== false;
  for (const ref of [...new Set(texts.flatMap(promptReferences))]) {
    const entry = all.find((t) => t.get("name") === ref);
    if (!activeNames.has(ref)) {
      if (entry) warn("TOOL_SURFACE_PROMPT_TOOL_NOT_IN_POLICY", `prompt references tool '${ref}' outside the active policy`, ref);
      else warn("TOOL_SURFACE_UNKNOWN_PROMPT_TOOL", `prompt references tool '${ref}' which is not active`, ref);
    } else if (entry?.get("defer_loading") === true && !searchActive) {
      warn("TOOL_SURFACE_DEFERRED_TOOL_PROMPT_REFERENCE", `prompt references deferred tool '${ref}' but tool_search is not active`, ref);
    }
  }
  for (const t of active) {
    const aliases = dictOf(dictOf(annotations(t)?.get("arg_schema") ?? null)?.get("arg_aliases") ?? null);
    if (aliases === null) continue;
    for (const alias of aliases.keys()) {
      if (!texts.some((x) => new RegExp(`\\b${alias.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).test(x))) continue;
      const name = String(t.get("name"));
      warn("TOOL_SURFACE_DEPRECATED_ARG_ALIAS", `prompt mentions alias '${alias}' for tool '${name}'; use canonical argument '${String(aliases.get(alias))}'`, name);
    }
  }

  const ceiling = policy?.get("side_effect_level");
  if (typeof ceiling === "string" && SIDE_EFFECT_RANK.includes(ceiling)) {
    for (const t of active) {
      const level = annotations(t)?.get("side_effect_level");
      if (typeof level === "string" && SIDE_EFFECT_RANK.indexOf(level) > SIDE_EFFECT_RANK.indexOf(ceiling)) {
        const name = String(t.get("name"));
        error("TOOL_SURFACE_SIDE_EFFECT_CEILING_EXCEEDED", `tool '${name}' requires side-effect level '${level}' but policy ceiling is '${ceiling}'`, name);
      }
    }
  }

  return HDict.of({
    valid: !diags.some((d) => d.severity === "error"),
    diagnostics: diags.map((d) =>
      HDict.of({ code: d.code, severity: d.severity, message: d.message, ...(d.tool !== undefined ? { tool: d.tool } : {}), ...(d.field !== undefined ? { field: d.field } : {}) }),
    ),
  });
}
