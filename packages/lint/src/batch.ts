/**
 * Linting one file of a run, the same way on the main thread and in a
 * worker (see worker-pool.ts): read, parse, record its imports in the
 * module graph, lint. Only plain data goes in and comes out, so outcomes
 * cross thread boundaries as they are.
 */
import { readFileSync } from "node:fs";
import { parse, type ParseResult, type Program, type SyntaxDiagnostic } from "@harn/parser";
import type { Token } from "@harn/lexer";
import type { LintConfig } from "./config";
import { lintProgram } from "./linter";
import { ProjectGraph } from "./project";
import type { LintDiagnostic } from "./types";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A source file must be UTF-8: invalid bytes fail the read as the
 * reference's `read_to_string` does (`Error reading f.harn: stream did not
 * contain valid UTF-8`) rather than turning into U+FFFD and lex errors. */
function readSourceText(path: string): string {
  const bytes = readFileSync(path);
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new Error("stream did not contain valid UTF-8");
  }
}

/** What every file of a run shares. */
export interface RunSettings {
  requireFileHeader: boolean;
  checkedHandles: boolean;
  /** Builtin names the runtime registers. */
  builtins: string[];
  /** Bundled `std/...` module sources. */
  stdModules: [string, string][];
}

export interface FileJob {
  index: number;
  file: string;
  config: LintConfig;
}

export interface FileOutcome {
  index: number;
  file: string;
  source: string;
  /** Why the file could not be read (plain data: it may cross threads). */
  readError: { code: string | null; message: string } | null;
  parseErrors: SyntaxDiagnostic[];
  diagnostics: LintDiagnostic[];
}

/** A thread's view of the run: its module graph and the shared settings. */
export class RunContext {
  readonly graph: ProjectGraph;
  readonly builtins: ReadonlySet<string>;

  constructor(readonly settings: RunSettings) {
    this.graph = new ProjectGraph({ stdModules: new Map(settings.stdModules) });
    this.builtins = new Set(settings.builtins);
  }

  /** Lint a parsed file with its configuration. */
  lint(file: string, source: string, program: Program, tokens: Token[], config: LintConfig): LintDiagnostic[] {
    return lintProgram(program, {
      source,
      tokens,
      file,
      requireFileHeader: this.settings.requireFileHeader || config.requireFileHeader,
      ...(config.complexityThreshold !== null ? { complexityThreshold: config.complexityThreshold } : {}),
      externallyImported: this.graph.externallyImported,
      wildcardExports: this.graph.wildcardExports(file, program),
      builtins: this.builtins,
      disabled: config.disabled,
      checkedHandles: this.settings.checkedHandles || config.checkedHandles,
      severities: config.severities,
    });
  }

  /** Read, parse and lint one file; its tree is dropped afterwards. */
  run(job: FileJob): FileOutcome {
    const { outcome, parsed } = this.load(job);
    if (parsed !== null) outcome.diagnostics = this.lint(job.file, outcome.source, parsed.program, parsed.tokens, job.config);
    return outcome;
  }

  /** Read and parse a file and add it to the module graph, without linting
   * it: the outcome so far, and the parse when it succeeded (so a caller
   * that loads every file first, as `harn lint --fix` does, need not read
   * or parse a file again). */
  load(job: FileJob): { outcome: FileOutcome; parsed: ParseResult | null } {
    const outcome: FileOutcome = { index: job.index, file: job.file, source: "", readError: null, parseErrors: [], diagnostics: [] };
    try {
      outcome.source = readSourceText(job.file);
    } catch (e) {
      const code = e && typeof e === "object" && "code" in e ? String((e as { code: unknown }).code) : null;
      outcome.readError = { code, message: e instanceof Error ? e.message : String(e) };
      return { outcome, parsed: null };
    }
    const parsed = parse(outcome.source, { file: job.file });
    if (parsed.errors.length > 0) {
      outcome.parseErrors = parsed.errors;
      return { outcome, parsed: null };
    }
    this.graph.addFile(job.file, parsed.program);
    return { outcome, parsed };
  }

}
