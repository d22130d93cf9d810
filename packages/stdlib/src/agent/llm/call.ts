/**
 * One model call for `llm_call` and the agent loop: mock interception
 * (spec/agents.md §3.1), then the provider layer's retries, backoff and
 * fallback (§5.3–§5.4). Errors keep the provider layer's classes; the
 * callers turn them into their own script-visible shapes (§3.8).
 */
import type { Runtime } from "@harn/vm";
import { LlmError } from "../../llm/errors";
import { turnControl, type TurnObserver } from "../../llm/turns";
import type { LlmEvent, LlmMessage, LlmRequest, LlmResponse, LlmToolDefinition } from "../../llm/types";
import { mockState } from "../mock/state";
import { overBudget, projectInput, recordUsage, withRunBudget } from "./budget";
import { checkGates, checkImages } from "./gates";
import { acquirePermit } from "./rate_limit";
import { agentClient } from "./client";
import type { LlmSettings } from "./options";

export interface ModelRequest {
  system: string | null;
  messages: readonly LlmMessage[];
  tools: LlmToolDefinition[] | null;
}

export async function callModel(rt: Runtime, llm: LlmSettings, req: ModelRequest, signal: AbortSignal): Promise<LlmResponse> {
  const intercept = llm.provider === "mock" || mockState(rt).intercepting;
  checkGates(rt, llm, checkImages(rt, req.messages, llm.provider));
  const request: LlmRequest = {
    provider: intercept ? "mock" : llm.provider,
    model: llm.model,
    system: req.system,
    messages: req.messages,
    tools: req.tools && req.tools.length > 0 ? req.tools : null,
    tool_choice: llm.toolChoice ?? null,
    max_tokens: llm.maxTokens,
    temperature: llm.temperature ?? null,
    top_p: llm.topP ?? null,
    top_k: llm.topK ?? null,
    stop: llm.stop ?? null,
    seed: llm.seed ?? null,
    frequency_penalty: llm.frequencyPenalty ?? null,
    presence_penalty: llm.presencePenalty ?? null,
    stream: llm.stream,
    timeout_ms: llm.timeoutMs,
    // The mock records the normalised thinking option (§3.7) and
    // simulates prompt caching (§3.4); real providers get neither (P2).
    extra: intercept ? { thinking: llm.thinking, cache: llm.cache } : null,
  };
  const budget = withRunBudget(rt, llm.budget);
  if (budget) {
    // Before any provider or mock is consulted (§3.10).
    const over = overBudget(rt, budget, {
      provider: llm.provider,
      model: llm.model,
      inputTokens: projectInput(req.system, req.messages, request.tools ?? null),
      outputTokens: llm.maxTokens,
    });
    if (over) throw over;
  }
  await acquirePermit(rt, intercept ? "mock" : llm.provider, signal);
  const t0 = rt.clock.monotonic();
  // Registered while it runs, so the host's first Ctrl-C interrupts this
  // call (LlmInterrupted with the partial reply) rather than the script.
  const turns = turnControl(rt);
  const observer = turns.observer;
  const turn = turns.begin(signal, observer?.interrupted ? () => observer.interrupted!() : undefined, { background: llm.background === true });
  try {
    const res = await agentClient(rt).completeWithRetries(request, {
      signal: turn.signal,
      retries: llm.retries,
      backoffMs: llm.backoffMs,
      fallbackChain: intercept ? null : llm.fallbackChain,
      fallbackModels: llm.fallbackModels,
      sticky: llm.sticky ?? null,
      budget: llm.retryBudget,
      onEvent: eventSink(llm.onEvent ?? null, observer),
      onRetry: observer?.retry ? (n) => observer.retry!(n) : undefined,
    });
    // A queued mock answers as model `mock`: it costs what the model asked for would.
    recordUsage(rt, { ...res, model: res.model === "mock" ? llm.model : res.model }, rt.clock.monotonic() - t0);
    return res;
  } catch (e) {
    // Errors report the provider the script asked for (§3.8).
    if (e instanceof LlmError && intercept) throw e.withTarget(llm.provider, llm.model);
    throw e;
  } finally {
    turn.end();
    observer?.callEnd?.();
  }
}

/** Events go to the host's observer first (what the user sees must not
 * wait for the script), then to the script's `on_event`. */
function eventSink(script: ((ev: LlmEvent) => unknown) | null, observer: TurnObserver | null): ((ev: LlmEvent) => unknown) | undefined {
  const show = observer?.event ? (ev: LlmEvent) => observer.event!(ev) : null;
  if (show && script) {
    return (ev) => {
      show(ev);
      return script(ev);
    };
  }
  return script ?? show ?? undefined;
}
