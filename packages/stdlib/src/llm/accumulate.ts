/**
 * Folds the normalized event stream of one call into one response
 * (extensions.md §3.1). Tool calls keep their arrival order and none is
 * ever dropped: a fragment with no usable id goes to the last opened call,
 * or to a synthesized orphan entry when no call is open; a fragment naming
 * an unknown id gets its own entry. Arguments that are not a JSON object
 * are passed on as `{_raw: text}` so the tool layer can answer the model
 * with a structured error.
 */

import { isJsonObject, parseJsonKeepingFloats } from "../core/json";
import type { LlmEvent, LlmResponse, LlmToolCall } from "./types";

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

export class LlmAccumulator {
  private text = "";
  private reasoning = "";
  private readonly calls: PendingCall[] = [];
  private readonly byId = new Map<string, PendingCall>();
  private orphans = 0;
  private inputTokens = 0;
  private outputTokens = 0;
  private reasoningTokens = 0;
  private cacheRead = 0;
  private cacheWrite = 0;
  private stopReason: string | undefined;
  private thinkingSummary: string | undefined;
  private reportedModel: string | undefined;
  /** Number of events folded in so far. */
  events = 0;

  constructor(
    private readonly provider: string,
    private readonly model: string,
  ) {}

  push(ev: LlmEvent): void {
    this.events++;
    switch (ev.kind) {
      case "text_delta":
        this.text += ev.text;
        break;
      case "reasoning_delta":
        this.reasoning += ev.text;
        break;
      case "tool_call_start": {
        const known = this.byId.get(ev.id);
        if (known) {
          if (known.name === "") known.name = ev.name;
        } else {
          this.open(ev.id, ev.name);
        }
        break;
      }
      case "tool_call_delta": {
        let call: PendingCall | undefined;
        if (ev.id !== undefined && ev.id !== "") {
          call = this.byId.get(ev.id) ?? this.open(ev.id, "");
        } else {
          call = this.calls[this.calls.length - 1] ?? this.open(`orphan_${++this.orphans}`, "");
        }
        call.args += ev.args_fragment;
        break;
      }
      case "completed":
        // Adapters send one `completed`; should a server repeat usage, the
        // latest figures are the cumulative ones.
        this.inputTokens = ev.input_tokens;
        this.outputTokens = ev.output_tokens;
        this.reasoningTokens = ev.reasoning_tokens;
        this.cacheRead = ev.cache_read_tokens ?? this.cacheRead;
        this.cacheWrite = ev.cache_write_tokens ?? this.cacheWrite;
        if (ev.stop_reason !== undefined) this.stopReason = ev.stop_reason;
        if (ev.thinking_summary !== undefined) this.thinkingSummary = ev.thinking_summary;
        if (ev.model !== undefined && ev.model !== "") this.reportedModel = ev.model;
        break;
    }
  }

  private open(id: string, name: string): PendingCall {
    const call = { id, name, args: "" };
    this.calls.push(call);
    this.byId.set(id, call);
    return call;
  }

  /** The response so far (also the partial result of an interrupted call). */
  result(): LlmResponse {
    const res: LlmResponse = {
      provider: this.provider,
      model: this.reportedModel ?? this.model,
      text: this.text,
      reasoning: this.reasoning,
      tool_calls: this.calls.map(toToolCall),
      input_tokens: this.inputTokens,
      output_tokens: this.outputTokens,
      reasoning_tokens: this.reasoningTokens,
      cache_read_tokens: this.cacheRead,
      cache_write_tokens: this.cacheWrite,
    };
    if (this.stopReason !== undefined) res.stop_reason = this.stopReason;
    if (this.thinkingSummary !== undefined) res.thinking_summary = this.thinkingSummary;
    return res;
  }
}

function toToolCall(c: PendingCall): LlmToolCall {
  return { id: c.id, name: c.name, arguments: parseArguments(c.args) };
}

/** Argument text to an arguments object: empty means no arguments; anything
 * that is not a JSON object is kept verbatim under `_raw`. A float written
 * `2.0` stays a float (`JsonFloat`), as in the reference. */
export function parseArguments(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const v: unknown = parseJsonKeepingFloats(text);
    if (isJsonObject(v)) return v;
  } catch {
    // fall through: the model produced broken JSON
  }
  return { _raw: text };
}

/** Accumulate a whole event stream. */
export async function accumulate(
  events: AsyncIterable<LlmEvent>,
  provider: string,
  model: string,
): Promise<LlmResponse> {
  const acc = new LlmAccumulator(provider, model);
  for await (const ev of events) acc.push(ev);
  return acc.result();
}
