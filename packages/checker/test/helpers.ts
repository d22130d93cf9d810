/** A checker set up as the CLI sets it up: the builtins of a Runtime with
 * the stdlib installed, imports resolved from disk and `std/...`. */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, isAbsolute, resolve } from "node:path";
import { parse } from "@harn/parser";
import { installStdlib } from "@harn/stdlib";
import { ProgramRunner, Runtime } from "@harn/vm";
import type { Diagnostic } from "@harn/parser";
import { check, type ResolvedModule } from "../src/index";

const sink = { write() {} };
const rt = new Runtime({ stdout: sink, stderr: sink, cwd: process.cwd(), env: {}, argv: null });
installStdlib(rt);
// The interpreter adds its own builtins (channels, atomics) when created.
new ProgramRunner(rt, { file: "main.harn" });
export const BUILTINS: ReadonlySet<string> = new Set(rt.builtins.keys());

export function resolveImport(fromFile: string, path: string): ResolvedModule | null {
  let key: string | null = null;
  let source: string;
  if (path.startsWith("std/")) {
    if (!rt.stdModules.has(path)) return null;
    key = path;
    source = rt.stdModules.get(path)!;
  } else {
    const base = isAbsolute(path) ? path : resolve(dirname(fromFile), path);
    const candidates = extname(base) === ".harn" ? [base] : [base + ".harn", base, resolve(base, "index.harn")];
    key = candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
    if (key === null) return null;
    source = readFileSync(key, "utf8");
  }
  const r = parse(source, { file: key });
  return r.errors.length > 0 ? null : { file: key, program: r.program };
}

/** Parse (must succeed) and check a source text. */
export function checkSource(source: string, file = resolve("/tmp/checker-test/main.harn")): Diagnostic[] {
  const { program, errors } = parse(source, { file });
  if (errors.length > 0) throw new Error(`parse error: ${errors[0]!.message}`);
  return check(program, { file, builtins: BUILTINS, resolveImport });
}

export function messages(source: string): string[] {
  return checkSource(source).map((d) => d.message);
}
