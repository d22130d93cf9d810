/**
 * The output formats over one set of findings: ESLint JSON, SARIF 2.1.0
 * (validated against the official schema), GitHub workflow commands, and
 * the human code frames.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { describe, expect, test } from "vitest";
import { plainStyle } from "@harn/parser";
import { formatGithub, formatHuman, formatJson, formatSarif, lintSource, type FileReport } from "../src/index";

const SOURCE = `pipeline main() {
  let handle = walk_dir("docs", {long_running: true})
  var count = 0
  log(handle, count)
  if count > 0 { break }
}
`;

function report(): FileReport {
  const r = lintSource(SOURCE, { file: "jobs/index.harn" });
  return { path: "jobs/index.harn", source: SOURCE, diagnostics: r.diagnostics, fatal: false };
}

const parseError: FileReport = {
  path: "bad.harn",
  source: "let x = )\n",
  diagnostics: [
    {
      code: "syntax",
      severity: "error",
      message: "expected expression, found )",
      span: { start: 8, end: 9, line: 1, column: 9, endLine: 1, endColumn: 10 },
      label: "unexpected token",
    },
  ],
  fatal: true,
};

describe("json (ESLint shape)", () => {
  test("one result per file with 1-based positions, severities and counts", () => {
    const [res] = JSON.parse(formatJson([report()]));
    expect(res.filePath).toBe(resolve("jobs/index.harn"));
    expect(res.messages.map((m: { ruleId: string; severity: number; line: number; column: number }) => [m.ruleId, m.severity, m.line, m.column])).toEqual([
      ["long-running-without-cleanup", 1, 2, 16],
      ["mutable-never-reassigned", 1, 3, 3],
      ["break-outside-loop", 2, 5, 18],
    ]);
    expect([res.errorCount, res.warningCount, res.fixableErrorCount, res.fixableWarningCount, res.fatalErrorCount]).toEqual([1, 2, 0, 1, 0]);
    const fix = res.messages[1].fix;
    expect(fix).toEqual({ range: [SOURCE.indexOf("var"), SOURCE.indexOf("var") + 3], text: "let" });
  });
  test("a parse error is a fatal message with a null ruleId", () => {
    const [res] = JSON.parse(formatJson([parseError]));
    expect(res.messages).toEqual([
      { ruleId: null, fatal: true, severity: 2, message: "expected expression, found )", line: 1, column: 9, endLine: 1, endColumn: 10 },
    ]);
    expect([res.errorCount, res.fatalErrorCount]).toEqual([1, 1]);
  });
});

const SARIF_OPTIONS = { toolVersion: "0.1.0", docsBase: "https://example.test/harn/docs/rules/" };

describe("sarif", () => {
  const schema = JSON.parse(readFileSync(new URL("./fixtures/sarif-2.1.0-rtm.5.schema.json", import.meta.url), "utf8"));
  // the official schema's language-tag pattern is not valid as a `u`
  // regex; `uri`, `uri-reference` and `date-time` formats are checked
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false, logger: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);

  test("the log validates against the SARIF 2.1.0 schema", () => {
    const log = JSON.parse(formatSarif([report(), parseError], SARIF_OPTIONS));
    const ok = validate(log);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });
  test("results carry rule, level, region and fixes", () => {
    const log = JSON.parse(formatSarif([report()], SARIF_OPTIONS));
    const run = log.runs[0];
    expect(log.version).toBe("2.1.0");
    expect(run.tool.driver.name).toBe("harn-lint");
    expect(run.columnKind).toBe("utf16CodeUnits");
    const [lr, mut, brk] = run.results;
    expect([lr.ruleId, lr.level, brk.level]).toEqual(["long-running-without-cleanup", "warning", "error"]);
    expect(run.tool.driver.rules[lr.ruleIndex].id).toBe("long-running-without-cleanup");
    expect(lr.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: "jobs/index.harn", uriBaseId: "%SRCROOT%" },
      region: { startLine: 2, startColumn: 16, endLine: 2, endColumn: 54 },
    });
    expect(mut.fixes[0].artifactChanges[0].replacements).toEqual([
      { deletedRegion: { startLine: 3, startColumn: 3, endLine: 3, endColumn: 6 }, insertedContent: { text: "let" } },
    ]);
  });
  test("file names with `:`, `#` or spaces are valid URIs; an unreadable file is a tool notification", () => {
    const odd: FileReport = { ...report(), path: "jobs/a:b #1.harn" };
    const unreadable: FileReport = {
      path: "/tmp/locked file.harn",
      source: "",
      diagnostics: [{ code: "io", severity: "error", message: "cannot read /tmp/locked file.harn: Permission denied (os error 13)", span: null }],
      fatal: true,
    };
    const log = JSON.parse(formatSarif([odd, unreadable], SARIF_OPTIONS));
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    const run = log.runs[0];
    expect(run.results[0].locations[0].physicalLocation.artifactLocation.uri).toBe("jobs/a%3Ab%20%231.harn");
    expect(run.invocations[0]).toEqual({
      executionSuccessful: false,
      toolExecutionNotifications: [
        {
          level: "error",
          message: { text: "cannot read /tmp/locked file.harn: Permission denied (os error 13)" },
          locations: [{ physicalLocation: { artifactLocation: { uri: "file:///tmp/locked%20file.harn" } } }],
        },
      ],
    });
  });
  test("every rule is described for code scanning: full description, help text and markdown, helpUri", () => {
    const docs = (id: string) => ({ summary: `What ${id} finds.`, markdown: `# \`${id}\`\n\nWhat ${id} finds.\n` });
    const log = JSON.parse(formatSarif([], { ...SARIF_OPTIONS, ruleDoc: docs }));
    const driver = log.runs[0].tool.driver;
    expect(driver.informationUri).toBe(SARIF_OPTIONS.docsBase);
    const rule = driver.rules.find((r: { id: string }) => r.id === "unused-variable");
    expect(rule).toMatchObject({
      fullDescription: { text: "What unused-variable finds." },
      help: { text: "unused-variable\n\nWhat unused-variable finds.\n", markdown: "# `unused-variable`\n\nWhat unused-variable finds.\n" },
      helpUri: "https://example.test/harn/docs/rules/unused-variable.md",
    });
    expect(validate(log)).toBe(true);
  });
  test("an empty run is valid too", () => {
    expect(validate(JSON.parse(formatSarif([], SARIF_OPTIONS)))).toBe(true);
  });
});

describe("github workflow commands", () => {
  test("one annotation per finding, escaped", () => {
    const lines = formatGithub([report(), parseError]).trimEnd().split("\n");
    expect(lines[0]).toBe(
      "::warning file=jobs/index.harn,line=2,col=16,endLine=2,endColumn=54,title=harn lint%3A long-running-without-cleanup::`walk_dir` starts long-running work without a defer/finally cleanup path: `handle` is still running when the pipeline ends at line 6%0Ahelp: cancel `handle` on every path: `defer { cancel_handle(handle) }` right after it starts, or in a `finally`",
    );
    expect(lines[2]).toMatch(/^::error file=jobs\/index\.harn,line=5,col=18,.*title=harn lint%3A break-outside-loop::`break` used outside of a loop/);
    expect(lines[3]).toBe("::error file=bad.harn,line=1,col=9,endLine=1,endColumn=10,title=harn%3A parse error::expected expression, found )");
  });
});

describe("human", () => {
  test("code frames on stderr, clean files on stdout", () => {
    const clean: FileReport = { path: "ok.harn", source: "log(1)\n", diagnostics: [], fatal: false };
    const out = formatHuman([report(), clean], plainStyle);
    expect(out.stdout).toBe("ok.harn: no issues found\n");
    expect(out.stderr.split("\n").slice(0, 6).join("\n")).toBe(
      [
        "warning: `walk_dir` starts long-running work without a defer/finally cleanup path: `handle` is still running when the pipeline ends at line 6",
        "  --> jobs/index.harn:2:16",
        "   |",
        ' 2 |   let handle = walk_dir("docs", {long_running: true})',
        "   |                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ lint[long-running-without-cleanup]",
        "   = help: cancel `handle` on every path: `defer { cancel_handle(handle) }` right after it starts, or in a `finally`",
      ].join("\n"),
    );
  });
});

describe("human code frames (lint.md §5.3)", () => {
  const frame = (source: string, file = "f.harn"): string => {
    const r = lintSource(source, { file });
    return formatHuman([{ path: file, source, diagnostics: r.diagnostics, fatal: false }], plainStyle).stderr;
  };
  test("a two-digit line widens the gutter", () => {
    const src = `${"\n".repeat(11)}pipeline main() {\n  var count = 0\n  log(count)\n}\n`;
    expect(frame(src)).toBe(
      [
        "warning: variable `count` is declared as `var` but never reassigned",
        "   --> f.harn:13:3",
        "    |",
        " 13 |   var count = 0",
        "    |   ^^^^^^^^^^^^^ lint[mutable-never-reassigned]",
        "    = help: use `let` instead of `var`",
        "",
      ].join("\n"),
    );
  });
  test("a three-digit line", () => {
    const src = `${"\n".repeat(99)}let total = 3\n`;
    expect(frame(src).split("\n").slice(1, 5)).toEqual([
      "    --> f.harn:100:1",
      "     |",
      " 100 | let total = 3",
      "     | ^^^^^^^^^^^^^ lint[unused-variable]",
    ]);
  });
  test("a zero-width span gets one caret", () => {
    const src = "let a = 1\nlet b = a\nlog(b)\n";
    expect(frame(src)).toBe(
      [
        "warning: top-level items should be separated by a blank line",
        "  --> f.harn:2:1",
        "   |",
        " 2 | let b = a",
        "   | ^ lint[blank-line-between-items]",
        "   = help: insert a blank line above the next item (doc comments stay glued to the item they describe)",
        "",
      ].join("\n"),
    );
  });
  test("a multi-line span is capped at the end of its first line", () => {
    const src = "fn helper() {\n  return 1\n}\n";
    expect(frame(src).split("\n").slice(3, 5)).toEqual([" 1 | fn helper() {", "   | ^^^^^^^^^^^^^ lint[unused-function]"]);
  });
});
