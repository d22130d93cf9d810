/**
 * Channels (spec/stdlib.md §18.2, semantics.md §9.5): the builtins over the
 * vm's channel primitives (the evaluator also iterates channels itself).
 */
import {
  channelReceive,
  channelSend,
  channelTryReceive,
  closeChannel,
  display,
  durationMs,
  HarnError,
  HChannel,
  HDict,
  makeChannel,
  selectChannels,
  type Value,
} from "@harn/vm";
import { builtinModule } from "../registry/define";

/** A channel's name is the display form of whatever was passed
 * (semantics.md §9.5: `channel(5)` is named `5`, `channel(2.0)` `2.0`). */
function displayName(v: Value): string {
  return typeof v === "string" ? v : display(v);
}

function needChannel(fn: string, args: Value[], min = 1): HChannel {
  if (args.length < min) throw HarnError.thrown(fn === "send" ? "send: requires channel and value" : `${fn}: requires a channel`);
  const ch = args[0];
  if (!(ch instanceof HChannel)) throw HarnError.thrown(`${fn}: first argument must be a channel`);
  return ch;
}

export const CHANNEL_BUILTINS = builtinModule("core/channels", (def) => {
  def("channel", (args) => {
    const name = args.length > 0 && args[0] !== null ? displayName(args[0]!) : "default";
    const cap = typeof args[1] === "number" ? args[1] : 256;
    return makeChannel(name, cap);
  });
  def("send", (args, ctx) => channelSend(needChannel("send", args, 2), args[1] ?? null, ctx.signal));
  def("receive", (args, ctx) => channelReceive(needChannel("receive", args), ctx.signal));
  def("try_receive", (args) => channelTryReceive(needChannel("try_receive", args)));
  def("close_channel", (args) => {
    closeChannel(needChannel("close_channel", args));
    return null;
  });
  def("select", (args, ctx) => {
    if (args.length === 0) throw HarnError.thrown("select: requires at least one channel");
    if (!args.every((a) => a instanceof HChannel)) throw HarnError.thrown("select: all arguments must be channels");
    return selectChannels(args as HChannel[], null, ctx.signal, ctx.runtime.clock).then(
      (r) => r ?? HDict.of({ channel: null, index: -1, value: null }),
    );
  });
  def("channel_select", (args, ctx) => {
    const list = args[0];
    if (!Array.isArray(list) || !list.every((a) => a instanceof HChannel)) throw HarnError.thrown("channel_select: expected a list of channels");
    const t = args.length > 1 && args[1] !== null ? durationMs(args[1]!) : null;
    return selectChannels(list as HChannel[], t, ctx.signal, ctx.runtime.clock);
  });
});
