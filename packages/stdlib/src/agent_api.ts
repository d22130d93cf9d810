/**
 * `@harn/stdlib/agent`: the agent and long-running layers' API for hosts
 * and embedders (`harn chat`, `--llm-mock` fixtures, handle state). A
 * separate entry from `@harn/stdlib` because this code loads on demand:
 * `installStdlib` only installs stubs for these builtins (lazy/groups.ts),
 * and a host that imports this module statically pays for parsing it at
 * start-up.
 */
export { AGENT_MODULES, loadMockFixtures, LONG_RUNNING_NOTE, chatExchange, collectTools, savedMessages } from "./agent/index";
export type { ChatExchange, ChatPrompt } from "./agent/index";
export {
  LONGRUN_MODULES,
  longRunState,
  LongRunState,
  FeedbackItem,
  attachHostBridge,
  type HandleRecord,
  type HandleStatus,
  type FeedbackListener,
  type HostBridge,
} from "./longrun/index";
/** The LLM provider layer (plain JSON; the agent builtins convert). */
export * from "./llm/index";
