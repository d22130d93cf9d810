/**
 * Closures whose body is JavaScript: what a builtin returns when the value
 * it makes must be callable like any Harn function (tool_synthesize).
 */
import type { CallContext } from "../runtime";
import { HClosure, type Value } from "../values";
import { ClosureImpl, FnProto } from "./frame";

const NO_SPAN = { start: 0, end: 0, line: 0, column: 0, endLine: 0, endColumn: 0 };

/** A closure named `name` with parameters `params` (for display and
 * reflection) whose calls run `body` with the arguments as given and the
 * caller's context. */
export function nativeClosure(name: string, params: string[], body: (args: Value[], ctx: CallContext) => Value | Promise<Value>): HClosure {
  const proto = new FnProto(name, "<native>", NO_SPAN);
  proto.params = params.map((p, slot) => ({ name: p, slot, def: null, rest: false, type: null, span: NO_SPAN }));
  return new HClosure(name, params, new ClosureImpl(proto, [], body));
}
