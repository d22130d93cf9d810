/**
 * `on_event: { ev -> … }` on `llm_call` and `agent_loop`
 * (extensions.md §3.2): each normalized event of a model call reaches the
 * script as a dict, in arrival order, before the next one is read.
 */
import { HarnError, HBuiltinRef, HClosure, HDict, type CallContext, type Value } from "@harn/vm";
import type { LlmEvent } from "../../llm/types";

/** The script-visible form of an event: `{kind, …}` with the fields of
 * extensions.md §3.1 (`id` is absent on a fragment the wire did not tie to
 * a call). */
export function eventDict(ev: LlmEvent): HDict {
  switch (ev.kind) {
    case "text_delta":
    case "reasoning_delta":
      return HDict.of({ kind: ev.kind, text: ev.text });
    case "tool_call_start":
      return HDict.of({ kind: ev.kind, id: ev.id, name: ev.name });
    case "tool_call_delta":
      return ev.id === undefined
        ? HDict.of({ kind: ev.kind, args_fragment: ev.args_fragment })
        : HDict.of({ kind: ev.kind, id: ev.id, args_fragment: ev.args_fragment });
    case "completed":
      return HDict.of({
        kind: ev.kind,
        input_tokens: ev.input_tokens,
        output_tokens: ev.output_tokens,
        reasoning_tokens: ev.reasoning_tokens,
      });
  }
}

/** The `on_event` option bound to the calling context, or null when the
 * option is absent. A value that is not callable is a runtime error at the
 * call, not a silent no-op. What the callback throws ends the call. */
export function scriptEventHandler(ctx: CallContext, fn: Value, builtin: string): ((ev: LlmEvent) => unknown) | null {
  if (fn === null) return null;
  if (!(fn instanceof HClosure) && !(fn instanceof HBuiltinRef)) {
    throw HarnError.runtime(`${builtin}: on_event must be a closure`);
  }
  return (ev) => ctx.call(fn, [eventDict(ev)]);
}
