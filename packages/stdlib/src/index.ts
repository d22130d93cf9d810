/**
 * The Harn standard library: builtins and method tables, installed into a
 * Runtime. Each domain exports its builtins as modules (registry/define.ts);
 * method tables have install functions. `installStdlib` installs them all:
 * the core at once, the large and rarely used groups as stubs that load
 * their implementation on first use (lazy/loader.ts).
 * `@harn/stdlib/eager` installs everything at once, and `@harn/stdlib/agent`
 * is the agent layer's API for hosts (`harn chat`).
 */
import type { Runtime } from "@harn/vm";
import { LAZY_GROUPS } from "./lazy/groups";
import { installLazyGroup, type LazyGroup } from "./lazy/loader";
import { installSchemaLowering } from "./schema/hook";
import { installToolsNamespace } from "./longrun/tools_namespace";
import { installWorkflowNamespace } from "./workflow/namespace";
import { ASSERT_BUILTINS } from "./core/assert";
import { BYTES_BUILTINS } from "./core/bytes";
import { CIRCUITS_BUILTINS } from "./core/circuit";
import { CONVERT_BUILTINS } from "./core/convert";
import { ENCODING_BUILTINS } from "./core/encoding";
import { ENV_BUILTINS } from "./core/env";
import { FS_BUILTINS } from "./core/fs";
import { HOST_BUILTINS } from "./core/host";
import { ITER_BUILTINS } from "./core/iter";
import { JSON_BUILTINS } from "./core/json";
import { LISTS_BUILTINS } from "./core/lists";
import { LOGGING_BUILTINS } from "./core/logging";
import { MATH_BUILTINS } from "./core/math";
import { OUTPUT_BUILTINS } from "./core/output";
import { PATHS_BUILTINS } from "./core/paths";
import { PROCESS_BUILTINS } from "./core/process";
import { RANDOM_BUILTINS } from "./core/random";
import { RESULT_BUILTINS } from "./core/result";
import { SETS_BUILTINS } from "./core/sets";
import { SHARED_BUILTINS } from "./core/shared";
import { MAILBOX_BUILTINS } from "./core/mailbox";
import { SUPERVISOR_BUILTINS } from "./core/supervisor";
import { RACE_BUILTINS } from "./core/race";
import { WAITPOINT_BUILTINS } from "./core/waitpoint";
import { MONITOR_BUILTINS } from "./core/monitor";
import { STREAM_BUILTINS } from "./core/stream";
import { SYNC_BUILTINS } from "./core/sync";
import { TASK_CONTEXT_BUILTINS } from "./core/task_context";
import { SLEEP_BUILTINS } from "./core/sleep";
import { STRINGS_BUILTINS } from "./core/strings";
import { TERMINAL_BUILTINS } from "./core/terminal";
import { installDictMethods } from "./methods/dict";
import { installGeneratorMethods } from "./methods/generator";
import { installIterMethods } from "./methods/iter";
import { installListMethods } from "./methods/list";
import { installRangeMethods } from "./methods/range";
import { installSetMethods } from "./methods/set";
import { installStringMethods } from "./methods/string";
import { STD_MODULE_BUILTINS } from "./std/index";
import { ATOMIC_BUILTINS } from "./core/atomics";
import { CHANNEL_BUILTINS } from "./core/channels";
import { installModule, type BuiltinModule } from "./registry/define";

const lazy = (name: string): LazyGroup => LAZY_GROUPS.find((g) => g.name === name)!;

/** One step of the stdlib's installation: a module of builtins
 * (registry/define.ts), a lazy group of them, or anything else a runtime
 * gets (method tables, the schema lowering, `std/...` sources). */
export type InstallStep = BuiltinModule | LazyGroup | ((rt: Runtime) => void);

/** Every install step in order (a lazy group's stubs take its place, so
 * builtin names keep the order "did you mean" suggestions iterate in). */
export const INSTALL_STEPS: readonly InstallStep[] = [
  OUTPUT_BUILTINS,
  TERMINAL_BUILTINS,
  LOGGING_BUILTINS,
  CONVERT_BUILTINS,
  RESULT_BUILTINS,
  STRINGS_BUILTINS,
  LISTS_BUILTINS,
  SETS_BUILTINS,
  MATH_BUILTINS,
  RANDOM_BUILTINS,
  JSON_BUILTINS,
  ASSERT_BUILTINS,
  ITER_BUILTINS,
  PATHS_BUILTINS,
  FS_BUILTINS,
  ENV_BUILTINS,
  PROCESS_BUILTINS,
  HOST_BUILTINS,
  ENCODING_BUILTINS,
  BYTES_BUILTINS,
  SLEEP_BUILTINS,
  CIRCUITS_BUILTINS,
  SHARED_BUILTINS,
  MAILBOX_BUILTINS,
  SYNC_BUILTINS,
  TASK_CONTEXT_BUILTINS,
  SUPERVISOR_BUILTINS,
  RACE_BUILTINS,
  WAITPOINT_BUILTINS,
  MONITOR_BUILTINS,
  STREAM_BUILTINS,

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
  installToolsNamespace,
  lazy("agent"),
  lazy("workflow"),
  installWorkflowNamespace,
  lazy("mcp"),
  installSchemaLowering,
  lazy("schema"),
  STD_MODULE_BUILTINS,
  lazy("formats"),
  CHANNEL_BUILTINS,
  ATOMIC_BUILTINS,
];

export function installStdlib(rt: Runtime): void {
  for (const step of INSTALL_STEPS) {
    if (typeof step === "function") step(rt);
    else if ("install" in step) installModule(rt, step);
    else installLazyGroup(rt, step);
  }
}

/** Load the lazy groups that define any of `names` (hosts call it with the
 * names a program uses, `builtinNamesIn`, before running it). */
export { preloadBuiltins, preloadAllBuiltins, isGroupLoaded, type LazyGroup } from "./lazy/loader";
export { builtinNamesIn, builtinNamesOfStdModule } from "./lazy/scan";
export { LAZY_GROUPS } from "./lazy/groups";
export { builtinModule, installModule, installModules, type BuiltinModule, type BuiltinOptions, type Define } from "./registry/define";
export { setScriptFile } from "./core/script";
export { setInteractive } from "./core/interactive";

export { formatPlainFloat, JsonError, parseJson, parseJsonOrThrow, stringifyJson, quoteJson } from "./core/json";
/** Whether a program naming `names` reads the project's discovered skills
 * (the `skills` global, `load_skill`; workflows.md §2.3). */
export function usesProjectSkills(names: ReadonlySet<string>): boolean {
  return names.has("skills") || names.has("load_skill");
}

/** Bind the `skills` global of the project holding `file` (hosts call it
 * before the program runs, when `usesProjectSkills`). */
export function bindProjectSkills(rt: Runtime, file: string | null): Promise<void> {
  return import("./workflow/skills/files").then((m) => m.bindProjectSkills(rt, file));
}

/** What a killed harn left running (core/run_registry.ts): hosts reap it
 * when they start. */
export { reapDeadRuns } from "./core/run_registry";

/** The LLM provider layer's types (its code is part of the agent layer,
 * `@harn/stdlib/agent`); turn observation and interruption are small and
 * usable before that layer loads. */
export type * from "./llm/index";
export { interruptTurns, setTurnObserver } from "./llm/turns";
export { useProjectLlmConfig } from "./llm/config";
export { mockFixtureLine, recordLlmResponses } from "./llm/record";
export { setDaemonJournal, type DaemonJournalEntry } from "./agent/daemon/journal";
export { readRootSync as readDaemonRootSync } from "./agent/daemon/file-store";
export { costUsd } from "./agent/llm/budget";

/** Host controls of background sub-agents, usable before the agent layer
 * has loaded. The rest of the agent and long-running layers (chat
 * exchanges, mock fixtures, handle state) is `@harn/stdlib/agent`. */
export { setBackgroundGrace, cancelBackgroundTasks } from "./agent/background/settings";
export type { HandleRecord, HandleStatus, FeedbackListener, HostBridge } from "./longrun/index";
export type { ChatExchange, ChatPrompt } from "./agent/index";

/** `harn.toml` `[[mcp]]` servers (spec/mcp.md §2.2): register them and
 * connect the eager ones before the script runs. The MCP layer loads
 * only here, for projects that declare servers. */
export async function startDeclaredMcpServers(rt: Runtime, entries: unknown[], log: (line: string) => void): Promise<void> {
  const { startDeclaredServers } = await import("./mcp/registry");
  await startDeclaredServers(rt, entries, log);
}
export { makeDirs, makeDirsSync } from "./core/make-dirs";
