/**
 * Generator and stream methods (spec/semantics.md §7.9): `next()` resumes
 * the body to its next `yield`/`emit` and returns `{done, value}`; once
 * finished it keeps returning `{done: true, value: nil}`.
 */
import { HDict, HGenerator, type IterStep, type MethodFn, type Runtime } from "@harn/vm";
import { iterGenerator } from "../core/iter";
import { andThen } from "../core/maybe";

const FINISHED = () => HDict.of({ done: true, value: null });

export function installGeneratorMethods(rt: Runtime): void {
  const next: MethodFn = (recv) => {
    const g = recv as HGenerator;
    if (g.done) return FINISHED();
    return andThen(g.pull(), (s: IterStep) => {
      if (s.done) {
        g.done = true;
        return FINISHED();
      }
      return HDict.of({ done: false, value: s.value });
    });
  };
  const iter: MethodFn = (recv) => iterGenerator(recv as HGenerator);
  for (const kind of ["generator", "stream"]) {
    rt.defineMethod(kind, "next", next);
    rt.defineMethod(kind, "iter", iter);
  }
}
