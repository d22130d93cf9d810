export * from "./values";
export * from "./errors";
export * from "./runtime";
export * as ops from "./ops";
export { ProgramRunner, type ModuleHost, type RunOptions } from "./eval/program";
export { CompileError } from "./eval/compile";
export { Task, CANCELLED_TEXT, ExitRequest } from "./eval/task";
export { LOCKS, NamedLocks, makeChannel, channelSend, channelReceive } from "./eval/concurrency";
export { suggest, levenshtein } from "./eval/suggest";
