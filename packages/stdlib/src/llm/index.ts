/**
 * The LLM provider layer: adapters, normalized events, accumulator,
 * classification, retries and fallback. Plain JSON in and out; the
 * `llm_call` / `agent_loop` builtins convert to and from Harn values.
 */

import { unseededRandom } from "../core/random";
import { RuntimeSlot, type Runtime } from "@harn/vm";
import { runtimeFetch } from "../http/transport";
import { LlmClient } from "./client";
import { LLM_RECORDER } from "./record";
import { turnControl } from "./turns";

export type {
  LlmClock,
  LlmCompletedEvent,
  LlmContentBlock,
  LlmEvent,
  LlmMessage,
  LlmMessageToolCall,
  LlmProvider,
  LlmRequest,
  LlmResponse,
  LlmToolCall,
  LlmToolChoice,
  LlmToolDefinition,
} from "./types";
export { LlmError, LlmInterrupted, LlmSetupError, isLlmError, redact } from "./errors";
export type { LlmErrorKind, LlmErrorReason } from "./errors";
export { classify, categorize, errorFromMessage, isRetryable, parseRetryAfter, retryAfterFromMessage } from "./classify";
export { LlmAccumulator, accumulate, parseArguments } from "./accumulate";
export { RetryBudget, retryDelay, systemClock, DEFAULT_RETRY_BUDGET_MS, DEFAULT_MAX_DELAY_MS } from "./retry";
export type { RetryPolicy } from "./retry";
export {
  BUILTIN_PROVIDERS,
  callsDisabled,
  inferProvider,
  resolveStream,
  resolveTimeoutMs,
} from "./resolve";
export type { Env as LlmEnv, Target as LlmTarget, TargetInput as LlmTargetInput } from "./resolve";
export { LlmClient, DEFAULT_BACKOFF_MS } from "./client";
export { LLM_RECORDER, mockFixtureLine, recordLlmResponses } from "./record";
export type { LlmResponseRecorder } from "./record";
export { TurnControl, TurnInterrupt, interruptTurns, markInterrupted, setTurnObserver, turnControl } from "./turns";
export type { ToolOutcomeStatus, Turn, TurnObserver } from "./turns";
export type { CompleteOptions as LlmCompleteOptions, LlmClientOptions, RetryNotice as LlmRetryNotice } from "./client";

/** The runtime's LLM client, created on first use from the runtime's env.
 * The agent layer registers the mock provider on it. */
export const LLM_CLIENT = new RuntimeSlot<LlmClient>(
  "llm.client",
  (rt) =>
    new LlmClient({
      env: rt.env,
      fetch: runtimeFetch(rt),
      clock: rt.clock,
      random: unseededRandom(rt),
      onResponse: (res) => rt.slot(LLM_RECORDER).record?.(res),
      // Through the host's observer when it shows turns (`--stream`, chat),
      // so a notice never lands in the middle of a streamed line.
      onNotice: (line) => {
        const observer = turnControl(rt).observer;
        if (observer?.notice) observer.notice(line);
        else rt.stderr.write(`${line}\n`);
      },
    }),
);
