export * from "./values";
export * from "./errors";
export * from "./runtime";
export { StdModuleSources } from "./std-sources";
export * as ops from "./ops";
export { ProgramRunner, type ModuleHost, type RunOptions } from "./eval/program";
export { CompileError } from "./eval/compile/base";
export { Task, CANCELLED_TEXT, ExitRequest, raceSignal } from "./eval/task";
export {
  LOCKS,
  NamedLocks,
  waitInQueue,
  type QueuedWaiter,
  makeChannel,
  channelSend,
  channelReceive,
  channelTryReceive,
  closeChannel,
  selectChannels,
  durationMs,
} from "./eval/concurrency";
export { suggest, levenshtein } from "./eval/suggest";
export { nativeClosure } from "./eval/native";
export { declaredTools, isToolDeclHandler, typeSchema as toolTypeSchema } from "./eval/tooldecl";
export { type Clock, type CancelTimer, realClock, monotonicMs } from "./clock";
export { VirtualClock, VIRTUAL_EPOCH_MS, type VirtualClockOptions } from "./virtual-clock";
export { Sfc32, seededRandom } from "./seeded-random";
