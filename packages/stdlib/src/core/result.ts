/**
 * Result helpers (spec/stdlib.md §5, semantics.md §8.9).
 */
import { display, err, HarnError, isResult, ok } from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";

export const RESULT_BUILTINS = builtinModule("core/result", (def) => {
  def("Ok", (args) => ok(arg(args, 0)));
  def("Err", (args) => err(arg(args, 0)));
  def("is_ok", (args) => {
    const r = arg(args, 0);
    return isResult(r) && r.variant === "Ok";
  });
  def("is_err", (args) => {
    const r = arg(args, 0);
    return isResult(r) && r.variant === "Err";
  });
  def("unwrap", (args) => {
    const r = arg(args, 0);
    if (!isResult(r)) return r;
    if (r.variant === "Ok") return r.fields[0] ?? null;
    throw HarnError.runtime("unwrap called on Err: " + display(r.fields[0] ?? null));
  });
  def("unwrap_or", (args) => {
    const r = arg(args, 0);
    if (!isResult(r)) return r;
    return r.variant === "Ok" ? (r.fields[0] ?? null) : arg(args, 1);
  });
  def("unwrap_err", (args) => {
    const r = arg(args, 0);
    if (isResult(r) && r.variant === "Err") return r.fields[0] ?? null;
    throw HarnError.runtime("unwrap_err called on non-Err");
  });
});
