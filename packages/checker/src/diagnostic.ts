import type { Span } from "@harn/parser";

/** One checker finding. Only errors are produced: the runner does not print
 * checker warnings (spec/semantics.md §1.4, cli.md §5.2.1). */
export interface CheckDiagnostic {
  severity: "error";
  /** The reference's text, reported alone (no prefix, no line suffix). */
  message: string;
  span: Span | null;
  help?: string;
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
}
