/**
 * Script-level access to handles and the pending feedback queue:
 * `cancel_handle` (agents.md §1.11), `pending_feedback_drain`,
 * `handle_wait`, `handle_status` (§1.16) and `agent_inject_feedback`
 * (§2.12).
 */
import { HarnError, HDict, type CallContext, type Value } from "@harn/vm";
import { fromJson, parseJson } from "../core/json";
import { hostlibError, typeName } from "./hostlib_errors";
import { countOption, optionsDict } from "./options";
import { longRunState, type FeedbackItem } from "./state";
import { builtinModule } from "../registry/define";

const CANCEL_BUILTIN = "hostlib_tools_cancel_handle";

/**
 * The `handle_id` of a cancel request: a dict `{handle_id}` (an envelope is
 * such a dict). Errors are the host-library dicts of §1.11.
 */
export function cancelRequestId(request: Value | undefined): string {
  if (request === undefined || request === null) throw hostlibError("missing_parameter", CANCEL_BUILTIN, "request");
  if (!(request instanceof HDict)) {
    throw hostlibError("invalid_parameter", CANCEL_BUILTIN, "request", `expected a dict (JSON request body), got ${typeName(request)}`);
  }
  const id = request.get("handle_id");
  if (id === null) throw hostlibError("missing_parameter", CANCEL_BUILTIN, "handle_id");
  if (typeof id !== "string") throw hostlibError("invalid_parameter", CANCEL_BUILTIN, "handle_id", `expected string, got ${typeName(id)}`);
  return id;
}

/** `{handle_id, cancelled}`: true once, then false; never an error for
 * unknown or finished handles. */
export function cancelById(ctx: CallContext, id: string): HDict {
  return HDict.of({ handle_id: id, cancelled: longRunState(ctx.runtime).cancel(id) });
}

/** Handle id from an id string or a dict carrying `handle_id`. */
function handleIdArg(v: Value | undefined, builtin: string): string {
  if (typeof v === "string") return v;
  if (v instanceof HDict) {
    const id = v.get("handle_id");
    if (typeof id === "string") return id;
  }
  throw HarnError.runtime(`${builtin}: expected a handle id or handle dict`);
}

/** What scripts see of a queued item's payload: the completion object
 * itself, else the content parsed like `json_parse` (nil when it is not
 * JSON). */
function payloadValue(item: FeedbackItem): Value {
  if (item.payload) return fromJson(item.payload);
  try {
    return parseJson(item.content);
  } catch {
    return null;
  }
}

function itemValues(items: FeedbackItem[]): Value {
  const out: Value[] = [];
  for (const it of items) {
    out.push(HDict.of({ session_id: it.sessionId, kind: it.kind, content: it.content, payload: payloadValue(it) }));
  }
  return out;
}

export const FEEDBACK_BUILTINS = builtinModule("longrun/feedback_builtins", (def) => {
  def("cancel_handle", (args, ctx) => {
    const x = args[0];
    const id = typeof x === "string" ? x : cancelRequestId(x);
    return cancelById(ctx, id);
  });

  def("pending_feedback_drain", (args, ctx) => {
    const s = args[0];
    if (s !== undefined && s !== null && typeof s !== "string") {
      throw HarnError.runtime("pending_feedback_drain: session_id must be a string");
    }
    const sessionId = typeof s === "string" ? s : (ctx.sessionId ?? "");
    return itemValues(longRunState(ctx.runtime).drainSession(sessionId));
  });

  def("handle_wait", (args, ctx) => {
    const id = handleIdArg(args[0], "handle_wait");
    const timeout = countOption(optionsDict(args[1]), "timeout_ms");
    return longRunState(ctx.runtime)
      .waitForPayload(id, timeout, ctx.signal)
      .then((item) => (item ? payloadValue(item) : null));
  });

  def("handle_status", (args, ctx) => {
    const id = handleIdArg(args[0], "handle_status");
    return longRunState(ctx.runtime).status(id);
  });

  def("agent_inject_feedback", (args, ctx) => {
    const names = ["session_id", "kind", "content"] as const;
    for (let i = 0; i < 3; i++) {
      if (typeof args[i] !== "string") {
        throw HarnError.runtime(`agent_inject_feedback(session_id, kind, content): ${names[i]} must be a string`);
      }
    }
    longRunState(ctx.runtime).inject(args[0] as string, args[1] as string, args[2] as string);
    return null;
  });
});
