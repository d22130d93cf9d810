/**
 * The runtime's LLM client with the mock provider registered on it.
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";
import type { LlmClient } from "../../llm/client";
import { LLM_CLIENT } from "../../llm/index";
import { MockProvider } from "../mock/provider";
import { mockState } from "../mock/state";

const AGENT_CLIENT = new RuntimeSlot<LlmClient>("agent.client", (rt) => {
  const client = rt.slot(LLM_CLIENT);
  client.register(new MockProvider(mockState(rt), rt.clock));
  return client;
});

export function agentClient(rt: Runtime): LlmClient {
  return rt.slot(AGENT_CLIENT);
}
