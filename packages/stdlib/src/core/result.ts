/**
 * Result helpers (spec/stdlib.md §5, semantics.md §8.9).
 */
import { display, err, HarnError, isResult, ok, type Runtime } from "@harn/vm";
import { arg } from "./args";

export function installResult(rt: Runtime): void {
  rt.defineBuiltin("Ok", (args) => ok(arg(args, 0)));
  rt.defineBuiltin("Err", (args) => err(arg(args, 0)));
  rt.defineBuiltin("is_ok", (args) => {
    const r = arg(args, 0);
    return isResult(r) && r.variant === "Ok";
  });
  rt.defineBuiltin("is_err", (args) => {
    const r = arg(args, 0);
    return isResult(r) && r.variant === "Err";
  });
  rt.defineBuiltin("unwrap", (args) => {
    const r = arg(args, 0);
    if (!isResult(r)) return r;
    if (r.variant === "Ok") return r.fields[0] ?? null;
    throw HarnError.runtime("unwrap called on Err: " + display(r.fields[0] ?? null));
  });
  rt.defineBuiltin("unwrap_or", (args) => {
    const r = arg(args, 0);
    if (!isResult(r)) return r;
    return r.variant === "Ok" ? (r.fields[0] ?? null) : arg(args, 1);
  });
  rt.defineBuiltin("unwrap_err", (args) => {
    const r = arg(args, 0);
    if (isResult(r) && r.variant === "Err") return r.fields[0] ?? null;
    throw HarnError.runtime("unwrap_err called on non-Err");
  });
}
