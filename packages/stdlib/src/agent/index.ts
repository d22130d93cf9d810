/**
 * The agent layer (spec/agents.md §2–§3, extensions.md §1–§2): the mock
 * provider and `llm_mock*`, `llm_call`, tool registries and declarations,
 * `agent_loop` with long-running agent tools and `agent_resume`, and
 * background sub-agents.
 */
import type { Runtime } from "@harn/vm";
import { installBackgroundBuiltins } from "./background/tools";
import { installDaemons } from "./daemon/index";
import { installLlmCall } from "./llm/builtins";
import { installLlmStream } from "./llm/stream";
import { installAgentLoop } from "./loop/builtins";
import { installSessionBuiltins } from "./session_builtins";
import { installAgentValues } from "./agent_values";
import { installCompletion } from "./llm/completion";
import { installRateLimits } from "./llm/rate_limit";
import { installMockBuiltins } from "./mock/builtins";
import { installToolHooks } from "./tools/hooks";
import { installToolRegistry } from "./tools/registry";
import { installTranscriptBuiltins } from "./transcript/builtins";
import { installCompactionBuiltins } from "./transcript/compact";

export { LONG_RUNNING_NOTE } from "./tools/spec";
export { MockProvider } from "./mock/provider";
export { mockState, globMatch, matchText } from "./mock/state";
export { runAgentLoop } from "./loop/run";
export { loadMockFixtures } from "./mock/builtins";
export { chatExchange, collectTools, savedMessages, type ChatExchange, type ChatPrompt } from "./chat";

export function installAgents(rt: Runtime): void {
  installMockBuiltins(rt);
  installLlmCall(rt);
  installLlmStream(rt);
  installCompletion(rt);
  installRateLimits(rt);
  installAgentValues(rt);
  installToolRegistry(rt);
  installToolHooks(rt);
  installAgentLoop(rt);
  installTranscriptBuiltins(rt);
  installCompactionBuiltins(rt);
  installSessionBuiltins(rt);
  installBackgroundBuiltins(rt);
  installDaemons(rt);
}

/** Host controls of background sub-agents (usable before this layer loads). */
export { setBackgroundGrace, cancelBackgroundTasks } from "./background/settings";
