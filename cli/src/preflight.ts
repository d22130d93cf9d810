/**
 * Preflight validation for `harn check` (spec/cli.md §4): what would fail
 * the moment the script runs, found without running it.
 *
 * - every `import` resolves: `std/...` to a bundled module, a relative or
 *   absolute path as `harn run` resolves it (`X.harn`, `X`, `X/index.harn`
 *   from the importing file's directory). The message is the one `harn run`
 *   would stop with: `Import error: cannot find module "{path}"`;
 * - every template that `render`, `render_prompt` or `render_with_provenance`
 *   names with a string literal exists, resolved from the file's directory
 *   or from `--bundle-root`: `template not found: {path}`. (`@alias/...`
 *   asset paths and computed paths are not checked.)
 *
 * Host capability contracts (`--host-capabilities`) are not checked.
 */
import { dirname, resolve } from "node:path";
import { forEachChild, type Diagnostic, type Node, type Program, type Span } from "@harn/parser";
import { isFile, resolveModulePath } from "./module-path";

export interface PreflightFinding {
  message: string;
  span: Span;
}

export interface PreflightOptions {
  /** Names of the bundled `std/...` modules. */
  stdModules: ReadonlySet<string>;
  /** Where template paths are resolved from, instead of the file's directory. */
  bundleRoot?: string;
}

const RENDER_BUILTINS: ReadonlySet<string> = new Set(["render", "render_prompt", "render_with_provenance"]);

function literal(n: Node | undefined): string | null {
  if (n === undefined) return null;
  if (n.kind === "StringLiteral" || n.kind === "RawStringLiteral") return n.value;
  return null;
}

export function preflight(program: Program, file: string, options: PreflightOptions): PreflightFinding[] {
  const findings: PreflightFinding[] = [];
  const templateBase = options.bundleRoot ?? dirname(resolve(file));
  const visit = (n: Node) => {
    if ((n.kind === "ImportDecl" || n.kind === "SelectiveImport") && resolveModulePath(file, n.path, options.stdModules) === null) {
      findings.push({ message: `Import error: cannot find module "${n.path}"`, span: n.span });
    }
    if (n.kind === "FunctionCall" && RENDER_BUILTINS.has(n.name)) {
      const path = literal(n.args[0]);
      if (path !== null && !path.startsWith("@") && !isFile(resolve(templateBase, path))) {
        findings.push({ message: `template not found: ${path}`, span: n.args[0]!.span });
      }
    }
    forEachChild(n, visit);
  };
  for (const item of program.items) visit(item);
  return findings;
}

/** The findings as diagnostics at `[check].preflight_severity` (none when
 * `off`), for `harn check` and `harn lsp`. */
export function preflightDiagnostics(program: Program, file: string, options: PreflightOptions, severity: "error" | "warning" | "off"): Diagnostic[] {
  if (severity === "off") return [];
  return preflight(program, file, options).map((f) => ({ code: "preflight", severity, message: f.message, span: f.span, label: "preflight" }));
}
