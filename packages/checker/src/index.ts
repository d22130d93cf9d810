/**
 * @harn/checker: the static checks the reference runs after parsing and
 * before compiling (spec/semantics.md §10.1, cli.md §2.2 step 2). An error
 * aborts a run before anything executes. Zero false positives is the rule:
 * a diagnostic is produced only where the types involved are certain.
 */
import type { Program } from "@harn/parser";
import { checkCallTargets } from "./call-targets";
export { hasImports } from "./call-targets";
import { TypeWalk } from "./check";
import type { Diagnostic } from "@harn/parser";
import type { CheckOptions } from "./diagnostic";
import { checkVariance } from "./variance";

export type { CheckOptions, ResolvedModule } from "./diagnostic";

/** The checker's errors for one parsed file, in source order. */
export function check(program: Program, opts: CheckOptions): Diagnostic[] {
  const out: Diagnostic[] = [];
  checkVariance(program.items, out);
  new TypeWalk(program, out).run(program);
  if (opts.callTargets !== false) checkCallTargets(program, opts, out);
  return out.sort((a, b) => (a.span?.start ?? 0) - (b.span?.start ?? 0));
}
