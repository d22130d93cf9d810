/**
 * The VS Code extension: its TextMate grammar tokenizes Harn as an editor
 * would (vscode-textmate with the Oniguruma engine VS Code uses), its JSON
 * contributions are valid, and `vsce package` builds the .vsix offline
 * with everything the manifest names inside.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { KEYWORDS } from "@harn/lexer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as oniguruma from "vscode-oniguruma";
import { INITIAL, parseRawGrammar, Registry, type IGrammar } from "vscode-textmate";
import yauzl from "yauzl";

const here = dirname(fileURLToPath(import.meta.url));
const ext = join(here, "..");
const require = createRequire(import.meta.url);

let grammar: IGrammar;

beforeAll(async () => {
  const wasm = readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new Registry({
    onigLib: Promise.resolve({ createOnigScanner: (p: string[]) => new oniguruma.OnigScanner(p), createOnigString: (s: string) => new oniguruma.OnigString(s) }),
    loadGrammar: async (scope) => {
      if (scope !== "source.harn") return null;
      const path = join(ext, "syntaxes/harn.tmLanguage.json");
      return parseRawGrammar(readFileSync(path, "utf8"), path);
    },
  });
  grammar = (await registry.loadGrammar("source.harn"))!;
});

/** [text, innermost scope] of every token of `src`, line by line. */
function tokenize(src: string): [string, string][] {
  const out: [string, string][] = [];
  let state = INITIAL;
  for (const line of src.split("\n")) {
    const r = grammar.tokenizeLine(line, state);
    for (const t of r.tokens) out.push([line.slice(t.startIndex, t.endIndex), t.scopes[t.scopes.length - 1]!]);
    state = r.ruleStack;
  }
  return out;
}

const scopeOf = (src: string, text: string) => tokenize(src).find(([t]) => t.trim() === text)?.[1];

describe("the TextMate grammar", () => {
  it("gives every reserved word of the lexer a keyword scope", () => {
    for (const k of KEYWORDS) expect(scopeOf(`${k}`, k), k).toMatch(/^(keyword\.control|storage\.type|constant\.language)/);
  });

  it("highlights declarations, calls, strings with interpolation, comments, numbers and durations", () => {
    const src = [
      "/// Adds things.",
      "/** Block doc. */",
      "pub fn add(a: int, b: int) -> int {",
      '  let s = "sum ${a + b}\\n" // trailing',
      "  sleep(5s)",
      "  return a + 1.5",
      "}",
      'let raw = r"C:\\path"',
      '@retry(3)',
      'let t = """',
      "  ${name} done",
      '"""',
    ].join("\n");
    const toks = tokenize(src);
    const find = (text: string) => toks.find(([t]) => t.trim() === text)?.[1];
    expect(find("/// Adds things.")).toBe("comment.line.documentation.harn");
    expect(toks.find(([t]) => t.includes("Block doc"))?.[1]).toBe("comment.block.documentation.harn");
    expect(find("fn")).toBe("storage.type.function.harn");
    expect(find("add")).toBe("entity.name.function.harn");
    expect(find("sleep")).toBe("entity.name.function.call.harn");
    expect(find("${")).toBe("punctuation.section.interpolation.begin.harn");
    expect(find("\\n")).toBe("constant.character.escape.harn");
    expect(find("// trailing")).toBe("comment.line.double-slash.harn");
    expect(find("5s")).toBe("constant.numeric.duration.harn");
    expect(find("1.5")).toBe("constant.numeric.float.harn");
    expect(find('r"C:\\path"')).toBe("string.quoted.other.raw.harn");
    expect(find("retry")).toBe("storage.type.annotation.harn");
    expect(find("name")).toBe("source.harn.embedded");
    // the string ends where it ends: what follows is code again
    expect(scopeOf('let a = "x" + y', "y")).toBe("source.harn");
  });
});

describe("the manifest's contributions", () => {
  it("language configuration and snippets are valid JSON; every snippet has a prefix and a body", () => {
    const cfg = JSON.parse(readFileSync(join(ext, "language-configuration.json"), "utf8"));
    expect(cfg.comments).toEqual({ lineComment: "//", blockComment: ["/*", "*/"] });
    const snippets = JSON.parse(readFileSync(join(ext, "snippets/harn.json"), "utf8")) as Record<string, { prefix: string; body: string[] }>;
    expect(Object.keys(snippets).length).toBeGreaterThan(5);
    for (const [name, s] of Object.entries(snippets)) {
      expect(typeof s.prefix, name).toBe("string");
      expect(Array.isArray(s.body) && s.body.length > 0, name).toBe(true);
    }
  });
});

/** The names of the entries of a zip file. */
function zipEntries(path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const names: string[] = [];
      zip.on("entry", (e: { fileName: string }) => {
        names.push(e.fileName);
        zip.readEntry();
      });
      zip.on("end", () => resolve(names));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

describe("vsce package", () => {
  const out = mkdtempSync(join(tmpdir(), "harn-vsix-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("builds the .vsix without the network, with the client bundled and every contribution inside", async () => {
    const build = spawnSync(process.execPath, [join(ext, "build.mjs")], { encoding: "utf8" });
    expect(build.status, build.stderr).toBe(0);
    const vsix = join(out, "harn.vsix");
    const vsce = join(dirname(require.resolve("@vscode/vsce/package.json")), "vsce");
    // any attempt to reach the network fails at once (nothing listens on port 9)
    const offline = { ...process.env, HTTP_PROXY: "http://127.0.0.1:9", HTTPS_PROXY: "http://127.0.0.1:9", npm_config_offline: "true" };
    const r = spawnSync(process.execPath, [vsce, "package", "--no-dependencies", "--skip-license", "--allow-missing-repository", "--out", vsix], { cwd: ext, encoding: "utf8", env: offline, input: "" });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const names = await zipEntries(vsix);
    for (const f of ["extension/package.json", "extension/dist/extension.js", "extension/syntaxes/harn.tmLanguage.json", "extension/snippets/harn.json", "extension/language-configuration.json", "extension/readme.md"]) {
      expect(names, f).toContain(f);
    }
    expect(names.filter((n) => n.includes("node_modules") || n.includes("/src/"))).toEqual([]);
  });
});
