/**
 * Linting one file of a run, the same way on the main thread and in a
 * worker (see worker-pool.ts): read, parse, record its imports in the
 * module graph, lint. Only plain data goes in and comes out, so outcomes
 * cross thread boundaries as they are.
 */
import { isAscii } from "node:buffer";
import { readFileSync } from "node:fs";
import type { ReadResult } from "./file-reader";
import { syntaxDiagnostic, type Diagnostic, type ParseResult, type Program } from "@harn/parser";
import type { Token } from "@harn/lexer";
import type { LintConfig } from "./config";
import { FileHasher } from "./cache";
import { Linter } from "./linter";
import { absolute, ProjectGraph } from "./project";
import { parseForLint } from "./ast-util";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A file's bytes, or why they could not be read. */
export function readBytes(file: string): ReadResult {
  try {
    return readFileSync(file);
  } catch (e) {
    const code = e && typeof e === "object" && "code" in e ? String((e as { code: unknown }).code) : null;
    return { code, message: e instanceof Error ? e.message : String(e) };
  }
}

/** What every file of a run shares. */
export interface RunSettings {
  /** `--require-file-header`: the opt-in rule on for every file. */
  requireFileHeader: boolean;
  /** Builtin names the runtime registers. */
  builtins: string[];
  /** Bundled `std/...` module sources. */
  stdModules: [string, string][];
  /** `--cache`: each outcome carries what its cache entry needs. */
  cache?: boolean;
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
  /** The lint findings; or, when `fatal`, why the file was not linted: its
   * syntax errors, or one spanless diagnostic (code `io`) when it is not
   * text. */
  diagnostics: Diagnostic[];
  fatal: boolean;
  /** Why the file could not be read at all (plain data: it may cross
   * threads; the caller words it). */
  readError: { code: string | null; message: string } | null;
  /** Not linted: its tree is deeper than this thread's stack can walk
   * (`RunContext.maxDepth`); a thread with a deep stack must lint it. */
  deferred: boolean;
  /** With `RunSettings.cache`: the hash of the file's bytes, the modules
   * it imports with theirs, and the names it imports by name. */
  cached?: { hash: string; deps: [string, string][]; contrib: string[] };
}

/** How deep a tree the main thread's stack walks safely: the recursive
 * walks of lint take a few frames per level, and Node's default stack
 * (~1 MB) ends near 1,500 levels of `a + b + …` (measured). Deeper trees
 * exist only with flat chains (MAX_CHAIN) and are linted on a worker
 * thread with a deep stack (worker-pool.ts). */
export const MAIN_THREAD_DEPTH = 800;

/** A thread's view of the run: its module graph and the shared settings. */
export class RunContext {
  readonly graph: ProjectGraph;
  readonly builtins: ReadonlySet<string>;
  private readonly linter = new Linter();
  private readonly hasher = new FileHasher();

  constructor(
    readonly settings: RunSettings,
    /** The deepest tree this thread lints; deeper ones are deferred. */
    readonly maxDepth = MAIN_THREAD_DEPTH,
    /** Files' bytes reach `graph.noteImportsAhead` before they are linted
     * (ProjectOptions.importsAhead). */
    importsAhead = false,
  ) {
    this.graph = new ProjectGraph({ stdModules: new Map(settings.stdModules), importsAhead });
    this.builtins = new Set(settings.builtins);
  }

  /** Lint a parsed file with its configuration. */
  lint(file: string, source: string, program: Program, tokens: Token[], config: LintConfig): Diagnostic[] {
    return this.linter.lint(program, {
      source,
      tokens,
      file,
      externallyImported: this.graph.externallyImported,
      wildcardExports: this.graph.wildcardExports(file, program),
      importedHandles: this.graph.importedHandles(file, program),
      modules: (path) => this.graph.moduleAt(file, path),
      builtins: this.builtins,
      rules: this.rulesOf(config),
    });
  }

  /** With `--require-file-header`, each configuration's rules with that
   * rule on: made once per configuration (the linter keeps what it works
   * out from a rules object). */
  private readonly withHeader = new WeakMap<LintConfig, LintConfig["rules"]>();

  private rulesOf(config: LintConfig): LintConfig["rules"] {
    if (!this.settings.requireFileHeader) return config.rules;
    let rules = this.withHeader.get(config);
    if (rules === undefined) {
      rules = { ...config.rules, "require-file-header": { ...config.rules["require-file-header"], severity: "warning" } };
      this.withHeader.set(config, rules);
    }
    return rules;
  }

  /** Read, parse and lint one file; its tree is dropped afterwards.
   * `read`: its bytes, when read already (file-reader.ts). */
  run(job: FileJob, read?: ReadResult): FileOutcome {
    const outcome = this.lintJob(job, read);
    if (this.settings.cache && outcome.readError === null && !outcome.deferred) {
      const { files, names } = this.graph.closure(job.file);
      outcome.cached = {
        hash: this.hasher.hash(absolute(job.file)) ?? "",
        deps: files.map((f): [string, string] => [f, this.hasher.hash(f) ?? ""]),
        contrib: names,
      };
    }
    return outcome;
  }

  private lintJob(job: FileJob, read: ReadResult | undefined): FileOutcome {
    const { outcome, parsed } = this.load(job, read);
    if (parsed === null) return outcome;
    if (parsed.depth > this.maxDepth) {
      outcome.deferred = true;
      return outcome;
    }
    try {
      outcome.diagnostics = this.lint(job.file, outcome.source, parsed.program, parsed.tokens, job.config);
    } catch (e) {
      if (!(e instanceof RangeError && /call stack/.test(e.message))) throw e;
      outcome.fatal = true;
      const why = `it nests too deeply to lint here (${parsed.depth} levels)`;
      outcome.diagnostics = [{ code: "io", severity: "error", message: `cannot lint ${job.file}: ${why}`, span: null }];
    }
    return outcome;
  }

  /** Read and parse a file and add it to the module graph, without linting
   * it: the outcome so far, and the parse when it succeeded (so a caller
   * that loads every file first, as `harn lint --fix` does, need not read
   * or parse a file again). */
  load(job: FileJob, read: ReadResult = readBytes(job.file)): { outcome: FileOutcome; parsed: ParseResult | null } {
    const outcome: FileOutcome = { index: job.index, file: job.file, source: "", diagnostics: [], fatal: false, readError: null, deferred: false };
    const notText = (why: string): { outcome: FileOutcome; parsed: null } => {
      outcome.fatal = true;
      outcome.diagnostics = [{ code: "io", severity: "error", message: `cannot lint ${job.file}: ${why}`, span: null }];
      return { outcome, parsed: null };
    };
    if (!Buffer.isBuffer(read)) {
      outcome.readError = read;
      outcome.fatal = true;
      return { outcome, parsed: null };
    }
    const bytes = read;
    if (this.settings.cache) this.hasher.remember(absolute(job.file), bytes);
    // a binary file would be hundreds of lexer errors: it is one finding
    if (bytes.includes(0)) return notText("it is a binary file (it contains NUL bytes)");
    try {
      // most files are ASCII, where Latin-1 is the same text and the
      // decoder's set-up costs more than the decoding
      outcome.source = isAscii(bytes) ? bytes.toString("latin1") : STRICT_UTF8.decode(bytes);
    } catch {
      return notText("stream did not contain valid UTF-8");
    }
    // generated code may chain thousands of terms (MAX_CHAIN)
    const parsed = parseForLint(outcome.source, job.file);
    if (parsed.errors.length > 0) {
      outcome.fatal = true;
      outcome.diagnostics = parsed.errors.map(syntaxDiagnostic);
      return { outcome, parsed: null };
    }
    // The graph's summaries walk the tree recursively too: a tree too deep
    // for this thread goes into the graph of the deep-stack thread that
    // lints it (its imported names come back with that thread's reply).
    if (parsed.depth <= this.maxDepth) this.graph.addFile(job.file, parsed.program, outcome.source);
    return { outcome, parsed };
  }

}
