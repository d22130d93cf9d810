/**
 * Rules with `meta.triggers` are not run on files that mention none of
 * their trigger words (src/gates.ts). That may never change a finding:
 * every conformance script is linted with the gates and with every rule
 * run everywhere, and the findings compared.
 */
import { parse } from "@harn/parser";
import { expect, test } from "vitest";
import { ALL_RULES, Linter } from "../src/index";
import type { HandleSummary, RuleTriggers } from "../src/index";
import { conformanceScripts } from "./helpers";

/** Lint with every rule's triggers taken away (so every rule runs). */
function ungated<T>(run: () => T): T {
  const saved = new Map<(typeof ALL_RULES)[number], RuleTriggers>();
  for (const r of ALL_RULES) if (r.meta.triggers) saved.set(r, r.meta.triggers);
  try {
    for (const r of saved.keys()) delete (r.meta as { triggers?: RuleTriggers }).triggers;
    return run();
  } finally {
    for (const [r, t] of saved) (r.meta as { triggers?: RuleTriggers }).triggers = t;
  }
}

test("the gates change no finding of any conformance script", () => {
  const parsed = conformanceScripts();
  const lintAll = () => {
    const linter = new Linter();
    return parsed.map((p) => linter.lint(p.r.program, { file: p.file, source: p.source, tokens: p.r.tokens }));
  };
  const gated = lintAll();
  const all = ungated(lintAll);
  expect(gated).toEqual(all);
  // the comparison means something: gated rules do report in these files
  const codes = new Set(all.flat().map((d) => d.code));
  const gatedIds = ALL_RULES.filter((r) => r.meta.triggers).map((r) => r.id);
  expect(gatedIds.filter((id) => codes.has(id)).length).toBeGreaterThanOrEqual(5);
});

const lint = (source: string, importedHandles?: ReadonlyMap<string, HandleSummary>) => {
  const r = parse(source, { file: "t.harn" });
  return new Linter().lint(r.program, { file: "t.harn", source, tokens: r.tokens, importedHandles }).map((d) => d.code);
};

test("a trigger word counts inside `${…}` and as a keyword, and an imported handle factory opens the handle rules", () => {
  // the only `llm_call` of the file sits in an interpolation
  const inside = 'pipeline main() {\n  let p = "${llm_call("hi", "sys ${name()}")}"\n  log(p)\n}\n';
  expect(ungated(() => lint(inside))).toEqual(lint(inside));
  // `require` is a keyword
  const req = "pipeline test_x() {\n  require 1 == 1\n}\n";
  expect(lint(req)).toContain("require-in-test");
  // through the `tools` namespace: `run_command` is a method name here
  const tools = 'pipeline main() {\n  let job = tools.run_command({argv: ["sleep", "9"], background: true})\n  log(job)\n}\n';
  expect(lint(tools)).toContain("long-running-without-cleanup");
  // `start` names no builtin: only its summary says it returns a handle
  const leak = "import { start } from \"jobs\"\npipeline main() {\n  let h = start()\n  log(h)\n}\n";
  const factory = new Map<string, HandleSummary>([["start", { settles: [], returnsHandle: true }]]);
  expect(lint(leak, factory)).toContain("long-running-without-cleanup");
  expect(lint(leak, new Map([["start", { settles: [], returnsHandle: false }]]))).not.toContain("long-running-without-cleanup");
});

test("cyclomatic-complexity runs where the file has enough branch words for its threshold", () => {
  const rules = { "cyclomatic-complexity": { options: { threshold: 3 } } };
  const run = (source: string) => {
    const r = parse(source, { file: "t.harn" });
    return new Linter().lint(r.program, { file: "t.harn", source, tokens: r.tokens, rules }).map((d) => d.code);
  };
  const branches = (n: number) => `fn f(x) {\n${"  if x > 0 {\n    log(x)\n  }\n".repeat(n)}}\nf(1)\n`;
  expect(run(branches(3))).toContain("cyclomatic-complexity");
  expect(ungated(() => run(branches(3)))).toEqual(run(branches(3)));
  expect(run(branches(2))).not.toContain("cyclomatic-complexity");
  expect(ungated(() => run(branches(2)))).toEqual(run(branches(2)));
});
