import type { Diagnostic, Span } from "@harn/parser";

/** One checker finding: the project's one diagnostic type with code
 * `type`. Only errors are produced: the runner does not print checker
 * warnings (spec/semantics.md §1.4, cli.md §5.2.1). The message is the
 * reference's text, reported alone (no prefix, no line suffix); the
 * carets (label "") and the help line are ours. */
export function typeError(message: string, span: Span, help: string): Diagnostic {
  return { code: "type", severity: "error", message, span, label: "", help };
}

/** A module an import names, parsed. `file` is the key further relative
 * imports of that module resolve from. */
export interface ResolvedModule {
  file: string;
  program: import("@harn/parser").Program;
}

export interface CheckOptions {
  /** The importing file (relative imports resolve from it). */
  file: string;
  /** Every builtin function name of the runtime. */
  builtins: ReadonlySet<string>;
  /** Resolve and parse an import; null when it cannot be (the runtime
   * reports that itself; the checker then gives up on call targets). */
  resolveImport: (fromFile: string, path: string) => ResolvedModule | null;
  /** False skips the call-target check (the REPL, core-gaps.md §9.6). */
  callTargets?: boolean;
}
