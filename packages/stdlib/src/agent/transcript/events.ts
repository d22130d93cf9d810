/**
 * The runtime events `llm_call` and `agent_loop` record in their
 * transcripts (spec/agents-surface.md §1.10): one `provider_payload` per
 * model reply (plus its private reasoning), and per tool call a
 * `tool_intent` before it runs and a `tool_execution` after it finished
 * or was refused.
 */
import { HDict, type Runtime, type Value } from "@harn/vm";
import type { LlmResponse } from "../../llm/types";
import { runtimeEvent } from "./values";
import { fromJson, type JsonObject } from "../../core/json";

/** `provider_payload` and, when the reply had them, `private_reasoning`
 * and `thinking_summary`. `extra` adds metadata (the loop's
 * `tool_calling_mode`). */
export function replyEvents(rt: Runtime, res: LlmResponse, options: HDict, extra: Record<string, Value> = {}): HDict[] {
  const calls = res.tool_calls.map((c) => HDict.of({ id: c.id, name: c.name, arguments: fromJson(c.arguments) }));
  const out = [
    runtimeEvent(
      rt,
      "provider_payload",
      "assistant",
      "internal",
      "",
      HDict.of({
        model: res.model,
        input_tokens: res.input_tokens,
        output_tokens: res.output_tokens,
        tool_calls: calls,
        thinking_summary: res.thinking_summary ?? null,
        structural_experiment: options.get("structural_experiment"),
        ...extra,
      }),
    ),
  ];
  if (res.reasoning !== "") out.push(runtimeEvent(rt, "private_reasoning", "assistant", "private", res.reasoning));
  if (res.thinking_summary !== undefined && res.thinking_summary !== "") {
    out.push(runtimeEvent(rt, "thinking_summary", "assistant", "private", res.thinking_summary));
  }
  return out;
}

export function toolIntentEvent(rt: Runtime, name: string, id: string, args: JsonObject): HDict {
  return runtimeEvent(rt, "tool_intent", "assistant", "internal", name, HDict.of({ arguments: fromJson(args), tool_use_id: id }));
}

export interface ExecutionInfo {
  name: string;
  id: string;
  args: JsonObject;
  text: string;
  rejected: boolean;
  /** Further metadata: `error_category`, `permission`, `escalated`, … */
  extra?: Record<string, Value>;
}

export function toolExecutionEvent(rt: Runtime, e: ExecutionInfo): HDict {
  return runtimeEvent(
    rt,
    "tool_execution",
    "tool",
    "internal",
    e.text,
    HDict.of({ tool_name: e.name, tool_use_id: e.id, rejected: e.rejected, arguments: fromJson(e.args), ...e.extra }),
  );
}
