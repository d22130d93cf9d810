/**
 * The agent layer (spec/agents.md §2–§3, extensions.md §1–§2): the mock
 * provider and `llm_mock*`, `llm_call`, tool registries and declarations,
 * `agent_loop` with long-running agent tools and `agent_resume`, and
 * background sub-agents.
 */
import type { BuiltinModule } from "../registry/define";
import { BACKGROUND_BUILTINS } from "./background/tools";
import { DAEMONS_BUILTINS } from "./daemon/index";
import { LLM_CALL_BUILTINS } from "./llm/builtins";
import { LLM_STREAM_BUILTINS } from "./llm/stream";
import { AGENT_LOOP_BUILTINS } from "./loop/builtins";
import { SESSION_BUILTINS } from "./session_builtins";
import { AGENT_VALUES_BUILTINS } from "./agent_values";
import { COMPLETION_BUILTINS } from "./llm/completion";
import { RATE_LIMITS_BUILTINS } from "./llm/rate_limit";
import { LLM_INTROSPECTION_BUILTINS } from "./llm/introspection";
import { MOCK_BUILTINS } from "./mock/builtins";
import { TOOL_HOOKS_BUILTINS } from "./tools/hooks";
import { PLAN_BUILTINS } from "./tools/plan";
import { TOOL_REGISTRY_BUILTINS } from "./tools/registry";
import { TOOL_SYNTHESIS_BUILTINS } from "./tools/synthesize";
import { TRANSCRIPT_BUILTINS } from "./transcript/builtins";
import { COMPACTION_BUILTINS } from "./transcript/compact";
import { WORKER_BUILTINS } from "./workers/builtins";
import { CHECKPOINT_BUILTINS } from "./checkpoint/builtins";
import { HITL_BUILTINS } from "./hitl/builtins";
import { COMMAND_POLICY_BUILTINS } from "./permissions/command_policy";

export { LONG_RUNNING_NOTE } from "./tools/spec";
export { MockProvider } from "./mock/provider";
export { mockState, globMatch, matchText } from "./mock/state";
export { runAgentLoop } from "./loop/start";
export { respondHitl, onHitlRequested } from "./hitl/requests";
export { loadMockFixtures } from "./mock/builtins";
export { chatExchange, collectTools, savedMessages, type ChatExchange, type ChatPrompt } from "./chat";

/** The agent group's builtin modules (lazy/groups.ts), in install order. */
export const AGENT_MODULES: readonly BuiltinModule[] = [
  MOCK_BUILTINS,
  LLM_CALL_BUILTINS,
  LLM_STREAM_BUILTINS,
  COMPLETION_BUILTINS,
  RATE_LIMITS_BUILTINS,
  LLM_INTROSPECTION_BUILTINS,
  AGENT_VALUES_BUILTINS,
  TOOL_REGISTRY_BUILTINS,
  TOOL_HOOKS_BUILTINS,
  TOOL_SYNTHESIS_BUILTINS,
  PLAN_BUILTINS,
  AGENT_LOOP_BUILTINS,
  TRANSCRIPT_BUILTINS,
  COMPACTION_BUILTINS,
  SESSION_BUILTINS,
  BACKGROUND_BUILTINS,
  WORKER_BUILTINS,
  CHECKPOINT_BUILTINS,
  HITL_BUILTINS,
  COMMAND_POLICY_BUILTINS,
  DAEMONS_BUILTINS,
];

/** Host controls of background sub-agents (usable before this layer loads). */
export { setBackgroundGrace, cancelBackgroundTasks } from "./background/settings";
