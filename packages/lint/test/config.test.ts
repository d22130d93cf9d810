/** harn.toml discovery and keys (cli.md §0.5, lint.md §5.7). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ConfigError, ConfigResolver, findManifest, readLintConfig } from "../src/index";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "harn-lint-config-"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("findManifest", () => {
  test("walks up to the nearest harn.toml", () => {
    mkdirSync(join(root, "a/b/c"), { recursive: true });
    writeFileSync(join(root, "a/harn.toml"), "");
    expect(findManifest(join(root, "a/b/c"))).toBe(join(root, "a/harn.toml"));
  });
  test("stops after the first directory with .git, whose own manifest still counts", () => {
    mkdirSync(join(root, "repo/.git"), { recursive: true });
    mkdirSync(join(root, "repo/src"), { recursive: true });
    writeFileSync(join(root, "harn.toml"), "");
    expect(findManifest(join(root, "repo/src"))).toBeNull();
    writeFileSync(join(root, "repo/harn.toml"), "");
    expect(findManifest(join(root, "repo/src"))).toBe(join(root, "repo/harn.toml"));
  });
  test("looks at no more than 16 directories", () => {
    const deep = join(root, ...Array.from({ length: 17 }, (_, i) => `d${i}`));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(root, "harn.toml"), "");
    expect(findManifest(deep)).toBeNull();
    expect(findManifest(join(root, "d0/d1"))).toBe(join(root, "harn.toml"));
  });
});

describe("readLintConfig", () => {
  test("reads [lint] and [check], with the dash aliases", () => {
    const p = join(root, "harn.toml");
    writeFileSync(
      p,
      '[lint]\ndisabled = ["trailing-comma"]\nrequire-file-header = true\ncomplexity_threshold = 30\nchecked_handles = true\n[check]\nstrict = true\ndisable_rules = ["shadow-variable"]\n',
    );
    // each key is the setting of one rule; checked_handles is accepted and does nothing
    expect(readLintConfig(p)).toEqual({
      path: p,
      rules: {
        "require-file-header": { severity: "warning" },
        "cyclomatic-complexity": { options: { threshold: 30 } },
        "trailing-comma": { severity: "off" },
        "shadow-variable": { severity: "off" },
      },
      strict: true,
      warnings: [],
    });
  });
  test("an unknown rule id is a warning naming the manifest and the nearest id", () => {
    const p = join(root, "harn.toml");
    writeFileSync(p, '[lint]\ndisabled = ["trailing-coma", "unreachable-code"]\n[check]\ndisable_rules = ["no-such-thing"]\n');
    expect(readLintConfig(p).warnings).toEqual([
      `${p}: unknown rule \`trailing-coma\` in [lint].disabled (did you mean \`trailing-comma\`?)`,
      `${p}: unknown rule \`no-such-thing\` in [check].disable_rules`,
    ]);
  });
  test("[lint.options.RULE] sets a rule's options, checked against its defaults", () => {
    const p = join(root, "harn.toml");
    writeFileSync(p, '[lint.options.cyclomatic-complexity]\nthreshold = 12\ncolour = "red"\n[lint.options.no-such-rule]\nx = 1\n');
    const c = readLintConfig(p);
    expect(c.rules).toEqual({ "cyclomatic-complexity": { options: { threshold: 12 } } });
    expect(c.warnings).toEqual([
      `${p}: rule \`cyclomatic-complexity\` has no option \`colour\` (it has \`threshold\`)`,
      `${p}: unknown rule \`no-such-rule\` in [lint.options]`,
    ]);
    writeFileSync(p, '[lint.options.cyclomatic-complexity]\nthreshold = "high"\n');
    expect(() => readLintConfig(p)).toThrow("[lint.options.cyclomatic-complexity].threshold must be a number");
  });
  test("[lint.severity] overrides severities; off disables", () => {
    const p = join(root, "harn.toml");
    writeFileSync(p, '[lint.severity]\nshadow-variable = "error"\ntrailing-comma = "off"\nunused-variable = "info"\n');
    const c = readLintConfig(p);
    expect(c.rules).toEqual({ "shadow-variable": { severity: "error" }, "trailing-comma": { severity: "off" }, "unused-variable": { severity: "info" } });
    writeFileSync(p, '[lint.severity]\nshadow-variable = "fatal"\n');
    expect(() => readLintConfig(p)).toThrow('[lint.severity].shadow-variable must be "error", "warning", "info" or "off"');
  });
  test.each([
    ["[lint\n", /^failed to parse .*harn\.toml: /],
    ['[lint]\ndisabled = "x"\n', /\[lint\]\.disabled must be a list of rule ids$/],
    ["[check]\nstrict = 1\n", /\[check\]\.strict must be true or false$/],
    ['[lint]\ncomplexity_threshold = "high"\n', /complexity_threshold must be an integer$/],
  ])("a bad manifest is a ConfigError: %j", (text, message) => {
    const p = join(root, "harn.toml");
    writeFileSync(p, text);
    expect(() => readLintConfig(p)).toThrow(ConfigError);
    expect(() => readLintConfig(p)).toThrow(message);
  });
  test("defaults without a manifest", () => {
    mkdirSync(join(root, ".git"));
    expect(new ConfigResolver().forFile(join(root, "x.harn")).path).toBeNull();
  });
});
