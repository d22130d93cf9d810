/**
 * Inline suppression comments (extensions.md §6; lint.md §5.8 asks for an
 * opt-in that changes nothing for files without them):
 *
 *   // harn-lint-disable-next-line rule-a, rule-b
 *   call(x)  // harn-lint-disable-line rule-a
 *   // harn-lint-disable rule-a        ...        // harn-lint-enable rule-a
 *
 * Without rule ids a directive covers every rule. Text after ` -- ` is a
 * free-form reason. A directive (or one rule id of it) that suppresses
 * nothing is reported as `unused-suppression`, as is an unknown rule id.
 * Directives naming rules that are switched off for this run (disabled in
 * harn.toml, or opt-in and not enabled) are left alone: the same file may
 * be linted with them on elsewhere.
 */
import type { Span } from "@harn/parser";
import type { SourceText } from "./source/source-text";
import type { Diagnostic } from "./types";

import { renderMessage } from "./messages";
import { unusedSuppression } from "./rules/unused-suppression";

export const UNUSED_SUPPRESSION = unusedSuppression.id;

interface Directive {
  kind: "line" | "next-line" | "disable" | "enable";
  /** Rule ids, or null for all rules. */
  rules: string[] | null;
  span: Span;
  line: number;
}

interface Region {
  directive: Directive;
  rule: string | null;
  fromLine: number;
  toLine: number;
  used: boolean;
}

/** The directive word must end at a space or the end of the comment:
 * `harn-lint-disable-lines` is not `harn-lint-disable` with a rule `-lines`. */
const DIRECTIVE = /^harn-lint-(disable-next-line|disable-line|disable|enable)(?=\s|$)(.*)$/s;

function parseDirectives(src: SourceText): Directive[] {
  const out: Directive[] = [];
  for (const t of src.comments()) {
    const body = t.image.startsWith("//") ? t.image.replace(/^\/\/+/, "") : t.image.replace(/^\/\*+/, "").replace(/\*\/$/, "");
    const m = DIRECTIVE.exec(body.trim());
    if (!m) continue;
    const rest = m[2]!.split(" -- ")[0]!.trim();
    const rules = rest === "" ? null : rest.split(/[\s,]+/).filter((r) => r !== "");
    out.push({
      kind: m[1] === "disable-next-line" ? "next-line" : m[1] === "disable-line" ? "line" : (m[1] as "disable" | "enable"),
      rules: rules && rules.length > 0 ? rules : null,
      span: src.span(t.start, t.end),
      line: src.lineOf(t.start),
    });
  }
  return out;
}

function regions(ds: Directive[], lastLine: number): Region[] {
  const out: Region[] = [];
  const open = new Map<string | null, Region[]>();
  for (const d of ds) {
    const ids: (string | null)[] = d.rules ?? [null];
    if (d.kind === "next-line" || d.kind === "line") {
      const at = d.kind === "line" ? d.line : d.line + 1;
      for (const rule of ids) out.push({ directive: d, rule, fromLine: at, toLine: at, used: false });
    } else if (d.kind === "disable") {
      for (const rule of ids) {
        const r: Region = { directive: d, rule, fromLine: d.line, toLine: lastLine, used: false };
        out.push(r);
        const list = open.get(rule) ?? [];
        list.push(r);
        open.set(rule, list);
      }
    } else {
      // `enable` closes the matching open regions (all of them when blanket)
      const keys = d.rules ? ids : [...open.keys()];
      for (const rule of keys) {
        for (const r of open.get(rule) ?? []) r.toLine = d.line;
        open.delete(rule);
      }
    }
  }
  return out;
}

/**
 * Drop suppressed diagnostics and add `unused-suppression` findings.
 * `knownRules` are all rule ids; `activeRules` those that ran.
 */
export function applySuppressions(
  ds: Diagnostic[],
  src: SourceText,
  knownRules: ReadonlySet<string>,
  activeRules: ReadonlySet<string>,
): Diagnostic[] {
  // cheap exit: no directive text anywhere
  if (!src.text.includes("harn-lint-")) return ds;
  const directives = parseDirectives(src);
  if (directives.length === 0) return ds;
  const rs = regions(directives, src.lineCount);
  const kept: Diagnostic[] = [];
  for (const d of ds) {
    let suppressed = false;
    for (const r of rs) {
      const line = d.span!.line;
      if (line < r.fromLine || line > r.toLine) continue;
      if (r.rule !== null && r.rule !== d.code) continue;
      r.used = true;
      suppressed = true;
    }
    if (!suppressed) kept.push(d);
  }
  if (!activeRules.has(UNUSED_SUPPRESSION)) return kept;
  for (const r of rs) {
    if (r.used) continue;
    const several = (r.directive.rules?.length ?? 0) > 1;
    if (r.rule !== null && !knownRules.has(r.rule)) {
      kept.push(unused(r.directive.span, "unknownRule", r.rule));
      continue;
    }
    if (r.rule !== null && !activeRules.has(r.rule)) continue;
    kept.push(unused(r.directive.span, r.rule === null ? "unused" : several ? "unusedOneRule" : "unusedRule", r.rule));
  }
  return kept;
}

function unused(span: Span, messageId: string, rule: string | null): Diagnostic {
  const text = renderMessage(unusedSuppression.meta.messages[messageId]!, rule === null ? undefined : { rule });
  return { code: UNUSED_SUPPRESSION, severity: "warning", ...text, span, label: `lint[${UNUSED_SUPPRESSION}]` };
}
