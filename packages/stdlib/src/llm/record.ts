/**
 * Recording the model responses of a run as `--llm-mock` fixture lines
 * (`harn run --llm-mock-record`, spec/cli.md §2, agents.md §3.7).
 *
 * The runtime's `LlmClient` tells the recorder about every successful
 * response from a real provider (never the mock's), in call order, once
 * the response is complete (a streamed one as accumulated). Each becomes
 * one JSON object with the keys of `llm_mock` that reproduce it and no
 * `match`, so replay hands them out first in, first out.
 *
 * Kept apart from the rest of the provider layer (and light) because the
 * CLI sets the recorder before a script runs, without loading that layer.
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";
import { stringifyJsonKeepingFloats } from "../core/json";
import type { LlmResponse } from "./types";

export type LlmResponseRecorder = (response: LlmResponse) => void;

export const LLM_RECORDER = new RuntimeSlot<{ record: LlmResponseRecorder | null }>("llm.recorder", () => ({ record: null }));

/** Tell `record` about every real model response of this runtime from now
 * on (null stops recording). */
export function recordLlmResponses(rt: Runtime, record: LlmResponseRecorder | null): void {
  rt.slot(LLM_RECORDER).record = record;
}

/**
 * One fixture line (without the newline) replaying `res`: its text, tool
 * calls (`{name, arguments}`; the mock numbers ids `mock_call_<i>` itself,
 * so the provider's ids are not kept), reasoning as `thinking`, the
 * thinking summary, stop reason, reported model and token counts.
 * Integral floats in tool arguments stay floats (`2.0`). What the mock
 * cannot reproduce: the provider name (replay reports `mock`), the
 * provider's tool-call ids and the reasoning token count.
 */
export function mockFixtureLine(res: LlmResponse): string {
  const entry: Record<string, unknown> = { text: res.text };
  if (res.tool_calls.length > 0) entry.tool_calls = res.tool_calls.map((c) => ({ name: c.name, arguments: c.arguments }));
  if (res.reasoning !== "") entry.thinking = res.reasoning;
  if (res.thinking_summary !== undefined) entry.thinking_summary = res.thinking_summary;
  if (res.stop_reason !== undefined) entry.stop_reason = res.stop_reason;
  entry.model = res.model;
  entry.input_tokens = res.input_tokens;
  entry.output_tokens = res.output_tokens;
  entry.cache_read_tokens = res.cache_read_tokens;
  entry.cache_write_tokens = res.cache_write_tokens;
  return stringifyJsonKeepingFloats(entry);
}
