/**
 * The Harn standard library: builtins and method tables, installed into a
 * Runtime. Each domain has its own `install…` function; `installStdlib`
 * installs them all.
 */
import type { Runtime } from "@harn/vm";
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
import { installRegex } from "./regex/builtins";
import { installTime } from "./time/builtins";
import { installHttp } from "./http/builtins";
import { installTemplates } from "./template/builtins";
import { installLongRunning } from "./longrun/index";
import { installAgents } from "./agent/index";
import { installSchema } from "./schema/builtins";
import { installStdModules } from "./std/index";
import { installFormats } from "./formats/builtins";

export function installStdlib(rt: Runtime): void {
  installOutput(rt);
  installTerminal(rt);
  installLogging(rt);
  installConvert(rt);
  installResult(rt);
  installStrings(rt);
  installLists(rt);
  installSets(rt);
  installMath(rt);
  installRandom(rt);
  installJson(rt);
  installAssert(rt);
  installIter(rt);
  installPaths(rt);
  installFs(rt);
  installEnv(rt);
  installProcess(rt);
  installHost(rt);
  installEncoding(rt);
  installBytes(rt);
  installSleep(rt);
  installCircuits(rt);
  installShared(rt);

  installStringMethods(rt);
  installListMethods(rt);
  installDictMethods(rt);
  installSetMethods(rt);
  installIterMethods(rt);
  installRangeMethods(rt);
  installGeneratorMethods(rt);

  installRegex(rt);
  installTime(rt);
  installHttp(rt);
  installTemplates(rt);
  installLongRunning(rt);
  installAgents(rt);
  installSchema(rt);
  installStdModules(rt);
  installFormats(rt);
}

export { formatPlainFloat, JsonError, parseJson, parseJsonOrThrow, stringifyJson, quoteJson } from "./core/json";

/** The LLM provider layer (plain JSON; the agent builtins convert). */
export * from "./llm";

/** Long-running work: handles, the pending feedback queue, host tools. */
export {
  installLongRunning,
  longRunState,
  LongRunState,
  FeedbackItem,
  attachHostBridge,
  type HandleRecord,
  type HandleStatus,
  type FeedbackListener,
  type HostBridge,
} from "./longrun/index";

/** The agent layer: loop, tools, mock provider, background sub-agents. */
export { installAgents, setBackgroundGrace, cancelBackgroundTasks, loadMockFixtures, LONG_RUNNING_NOTE } from "./agent/index";
/** `harn chat`: one exchange of an interactive session (extensions.md §3.6). */
export { chatExchange, collectTools, savedMessages, type ChatExchange, type ChatPrompt } from "./agent/index";
