/**
 * The Harn standard library: builtins and method tables, installed into a
 * Runtime. Each domain has its own `install…` function; `installStdlib`
 * installs them all — the core at once, the large and rarely used groups as
 * stubs that load their implementation on first use (lazy/loader.ts).
 * `@harn/stdlib/eager` installs everything at once, and `@harn/stdlib/agent`
 * is the agent layer's API for hosts (`harn chat`).
 */
import type { Runtime } from "@harn/vm";
import { LAZY_GROUPS } from "./lazy/groups";
import { installLazyGroup, type LazyGroup } from "./lazy/loader";
import { installSchemaLowering } from "./schema/hook";
import { installAssert } from "./core/assert";
import { installBytes } from "./core/bytes";
import { installCircuits } from "./core/circuit";
import { installConvert } from "./core/convert";
import { installEncoding } from "./core/encoding";
import { installEnv } from "./core/env";
import { installFs } from "./core/fs";
import { installHost } from "./core/host";
import { installIter } from "./core/iter";
import { installJson } from "./core/json";
import { installLists } from "./core/lists";
import { installLogging } from "./core/logging";
import { installMath } from "./core/math";
import { installOutput } from "./core/output";
import { installPaths } from "./core/paths";
import { installProcess } from "./core/process";
import { installRandom } from "./core/random";
import { installResult } from "./core/result";
import { installSets } from "./core/sets";
import { installShared } from "./core/shared";
import { installSync } from "./core/sync";
import { installTaskContext } from "./core/task_context";
import { installSleep } from "./core/sleep";
import { installStrings } from "./core/strings";
import { installTerminal } from "./core/terminal";
import { installDictMethods } from "./methods/dict";
import { installGeneratorMethods } from "./methods/generator";
import { installIterMethods } from "./methods/iter";
import { installListMethods } from "./methods/list";
import { installRangeMethods } from "./methods/range";
import { installSetMethods } from "./methods/set";
import { installStringMethods } from "./methods/string";
import { installStdModules } from "./std/index";

const lazy = (name: string): LazyGroup => LAZY_GROUPS.find((g) => g.name === name)!;

/** Every install step in order (a lazy group's stubs take its place, so
 * builtin names keep the order "did you mean" suggestions iterate in). */
export const INSTALL_STEPS: readonly (((rt: Runtime) => void) | LazyGroup)[] = [
  installOutput,
  installTerminal,
  installLogging,
  installConvert,
  installResult,
  installStrings,
  installLists,
  installSets,
  installMath,
  installRandom,
  installJson,
  installAssert,
  installIter,
  installPaths,
  installFs,
  installEnv,
  installProcess,
  installHost,
  installEncoding,
  installBytes,
  installSleep,
  installCircuits,
  installShared,
  installSync,
  installTaskContext,

  installStringMethods,
  installListMethods,
  installDictMethods,
  installSetMethods,
  installIterMethods,
  installRangeMethods,
  installGeneratorMethods,

  lazy("regex"),
  lazy("time"),
  lazy("http"),
  lazy("templates"),
  lazy("longrun"),
  lazy("agent"),
  installSchemaLowering,
  lazy("schema"),
  installStdModules,
  lazy("formats"),
];

export function installStdlib(rt: Runtime): void {
  for (const step of INSTALL_STEPS) {
    if (typeof step === "function") step(rt);
    else installLazyGroup(rt, step);
  }
}

/** Load the lazy groups that define any of `names` (hosts call it with the
 * names a program uses, `builtinNamesIn`, before running it). */
export { preloadBuiltins, preloadAllBuiltins, isGroupLoaded, type LazyGroup } from "./lazy/loader";
export { builtinNamesIn, builtinNamesOfStdModule } from "./lazy/scan";
export { LAZY_GROUPS } from "./lazy/groups";

export { formatPlainFloat, JsonError, parseJson, parseJsonOrThrow, stringifyJson, quoteJson } from "./core/json";

/** The LLM provider layer's types (its code is part of the agent layer,
 * `@harn/stdlib/agent`); turn observation and interruption are small and
 * usable before that layer loads. */
export type * from "./llm/index";
export { interruptTurns, setTurnObserver } from "./llm/turns";
export { mockFixtureLine, recordLlmResponses } from "./llm/record";
export { setDaemonJournal, type DaemonJournalEntry } from "./agent/daemon/journal";
export { costUsd } from "./agent/llm/budget";

/** Host controls of background sub-agents, usable before the agent layer
 * has loaded. The rest of the agent and long-running layers (chat
 * exchanges, mock fixtures, handle state) is `@harn/stdlib/agent`. */
export { setBackgroundGrace, cancelBackgroundTasks } from "./agent/background/settings";
export type { HandleRecord, HandleStatus, FeedbackListener, HostBridge } from "./longrun/index";
export type { ChatExchange, ChatPrompt } from "./agent/index";
