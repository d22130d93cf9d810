/**
 * A RuleTester in the style of ESLint's: one table of valid and invalid
 * cases per rule. A valid case must give no finding of the rule; an
 * invalid one exactly the listed findings, in order (each by message id,
 * or a message, and optionally line, column and severity), and, when
 * `output` is given, that text once the rule's fixes are applied (null:
 * no fix is offered).
 */
import { describe, expect, test } from "vitest";
import { applyFixes, lintSource, RULES_BY_ID, type Diagnostic, type LintOptions } from "../src/index";

type Options = Omit<LintOptions, "source">;

export interface ValidCase {
  name?: string;
  code: string;
  options?: Options;
}

export interface ExpectedError {
  messageId?: string;
  /** The whole message, or a pattern it must match. */
  message?: string | RegExp;
  line?: number;
  column?: number;
  severity?: Diagnostic["severity"];
  /** For a case testing a group of rules: which one reports. */
  rule?: string;
}

export interface InvalidCase extends ValidCase {
  /** A message id stands for `{ messageId }`. */
  errors: (string | ExpectedError)[];
  output?: string | null;
}

export interface RuleCases {
  valid: (string | ValidCase)[];
  invalid: InvalidCase[];
}

/** Lint `code` as a file `test.harn`; it must parse. */
export function lintCase(code: string, options: Options = {}): Diagnostic[] {
  const r = lintSource(code, { file: "test.harn", ...options });
  if (r.parseErrors.length > 0) throw new Error(`test source does not parse: ${r.parseErrors.map((e) => e.message).join("; ")}`);
  return r.diagnostics;
}

/** Does `message` read as the rule's template `id`, placeholders filled? */
export function matchesMessageId(rule: string, id: string, message: string): boolean {
  const t = RULES_BY_ID.get(rule)?.meta.messages[id];
  if (!t) throw new Error(`rule ${rule} has no message id ${id}`);
  const pattern = t.message
    .split(/\{\w+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^]*?");
  return new RegExp(`^${pattern}$`).test(message);
}

function title(c: ValidCase, i: number): string {
  return c.name ?? `#${i + 1}: ${c.code.split("\n").find((l) => l.trim() !== "" && !l.startsWith("pipeline"))?.trim() ?? c.code}`;
}

/** Register the table's tests for `rules` (one id, or several that share
 * an analysis). */
export function ruleTester(rules: string | string[], cases: RuleCases): void {
  const ids = new Set(typeof rules === "string" ? [rules] : rules);
  for (const id of ids) if (!RULES_BY_ID.has(id)) throw new Error(`no rule ${id}`);
  const mine = (c: ValidCase): Diagnostic[] => lintCase(c.code, c.options).filter((d) => ids.has(d.code));
  describe([...ids].join(", "), () => {
    describe("valid", () => {
      cases.valid.forEach((v, i) => {
        const c = typeof v === "string" ? { code: v } : v;
        test(title(c, i), () => {
          expect(mine(c).map((d) => `${d.span!.line}: ${d.message}`)).toEqual([]);
        });
      });
    });
    describe("invalid", () => {
      cases.invalid.forEach((c, i) => {
        test(title(c, i), () => {
          const got = mine(c);
          const shown = got.map((d) => `${d.code} ${d.span!.line}:${d.span!.column} ${d.severity}: ${d.message}`);
          expect(got.length, `findings:\n${shown.join("\n")}`).toBe(c.errors.length);
          c.errors.forEach((raw, k) => {
            const e = typeof raw === "string" ? { messageId: raw } : raw;
            const d = got[k]!;
            const where = `finding ${k + 1}: ${shown[k]}`;
            if (e.rule !== undefined) expect(d.code, where).toBe(e.rule);
            if (e.messageId !== undefined) expect(matchesMessageId(d.code, e.messageId, d.message), `${where}\nexpected message id ${e.messageId}`).toBe(true);
            if (typeof e.message === "string") expect(d.message, where).toBe(e.message);
            else if (e.message) expect(d.message, where).toMatch(e.message);
            if (e.line !== undefined) expect(d.span!.line, where).toBe(e.line);
            if (e.column !== undefined) expect(d.span!.column, where).toBe(e.column);
            if (e.severity !== undefined) expect(d.severity, where).toBe(e.severity);
          });
          if (c.output !== undefined) {
            const fixable = got.filter((d) => d.fix && d.fix.length > 0);
            if (c.output === null) expect(fixable).toEqual([]);
            else {
              const out = applyFixes(c.code, got).text;
              expect(out).toBe(c.output);
              expect(() => lintCase(out, c.options)).not.toThrow();
            }
          }
        });
      });
    });
  });
}
