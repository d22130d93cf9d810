/**
 * Output builtins (spec/stdlib.md §3, semantics.md §3.4). Only the first
 * argument is printed. stdout goes through `ctx.out` (the evaluator buffers
 * it per task); stderr through `ctx.err`.
 */
import { display, type Runtime, type Value } from "@harn/vm";
import { writeStderr } from "./terminal";

function text(args: Value[]): string {
  if (args.length === 0) return "";
  const v = args[0]!;
  return typeof v === "string" ? v : display(v);
}

export function installOutput(rt: Runtime): void {
  rt.defineBuiltin("println", (args, ctx) => {
    ctx.out(text(args) + "\n");
    return null;
  });
  rt.defineBuiltin("print", (args, ctx) => {
    ctx.out(text(args));
    return null;
  });
  rt.defineBuiltin("log", (args, ctx) => {
    ctx.out("[harn] " + text(args) + "\n");
    return null;
  });
  rt.defineBuiltin("eprintln", (args, ctx) => {
    writeStderr(ctx, text(args) + "\n");
    return null;
  });
  rt.defineBuiltin("eprint", (args, ctx) => {
    writeStderr(ctx, text(args));
    return null;
  });
}
