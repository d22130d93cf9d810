/**
 * Bundled `std/...` modules (spec/stdlib.md §24) are registered as Harn
 * source in `runtime.stdModules`, which the module loader reads. Modules
 * whose functions are computational are implemented natively: each public
 * function is a one-line Harn wrapper around a `__std_<module>_<name>`
 * builtin, so imports, selective imports and shadowing of same-named
 * builtins behave exactly like Harn-source modules while the work runs at
 * native speed.
 */
import type { BuiltinFn, Runtime } from "@harn/vm";
import type { Define } from "../registry/define";

export interface NativeFn {
  name: string;
  /** The Harn parameter list, defaults included: `"xs, sample = false"`. */
  params: string;
  fn: BuiltinFn;
}

function paramNames(params: string): string {
  return params
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .map((p) => p.split("=")[0]!.trim())
    .join(", ");
}

/** The internal builtin name behind a native std function. */
export function internalName(module: string, name: string): string {
  return `__std_${module.replace(/^std\//, "").replace(/\//g, "_")}_${name}`;
}

/**
 * Register a module made of native functions (plus optional extra Harn
 * source appended verbatim).
 */
export function defineNativeModule(def: Define, rt: Runtime, module: string, fns: NativeFn[], extra = ""): void {
  const prefix = internalName(module, "");
  for (const f of fns) def(prefix + f.name, f.fn);
  // The wrappers' text is built when a program imports the module (or
  // something lists the sources): most runs never read it.
  rt.stdModules.setLazy(module, () => {
    const lines: string[] = [`// ${module}: bundled with the runtime (native implementations)`];
    for (const f of fns) lines.push(`pub fn ${f.name}(${f.params}) {`, `  return ${prefix + f.name}(${paramNames(f.params)})`, "}");
    return lines.join("\n") + "\n" + extra;
  });
}
