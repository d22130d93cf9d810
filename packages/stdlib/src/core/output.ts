/**
 * Output builtins (spec/stdlib.md §3, semantics.md §3.4). Only the first
 * argument is printed. stdout goes through `ctx.out` (the evaluator buffers
 * it per task); stderr through `ctx.err`.
 */
import { display, type Value } from "@harn/vm";
import { writeStderr } from "./terminal";
import { builtinModule } from "../registry/define";

function text(args: Value[]): string {
  if (args.length === 0) return "";
  const v = args[0]!;
  return typeof v === "string" ? v : display(v);
}

export const OUTPUT_BUILTINS = builtinModule("core/output", (def) => {
  def("println", (args, ctx) => {
    ctx.out(text(args) + "\n");
    return null;
  });
  def("print", (args, ctx) => {
    ctx.out(text(args));
    return null;
  });
  def("log", (args, ctx) => {
    ctx.out("[harn] " + text(args) + "\n");
    return null;
  });
  def("eprintln", (args, ctx) => {
    writeStderr(ctx, text(args) + "\n");
    return null;
  });
  def("eprint", (args, ctx) => {
    writeStderr(ctx, text(args));
    return null;
  });
});
