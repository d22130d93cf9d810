/**
 * What the real provider APIs send, byte for byte in shape: for one
 * scripted answer, the streaming body (SSE frames / NDJSON lines as the
 * services emit them, ids and bookkeeping fields included) and the
 * non-streaming JSON body.
 */

import type { StreamReply } from "./server";

export interface ScriptedCall {
  id: string;
  name: string;
  /** Argument text as the model streams it, in pieces. */
  fragments: string[];
}

export interface Script {
  model: string;
  reasoning?: string[];
  text?: string[];
  calls?: ScriptedCall[];
  usage: { input: number; output: number; reasoning?: number; cacheRead?: number; cacheWrite?: number };
}

const args = (c: ScriptedCall) => c.fragments.join("");

export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return (event ? `event: ${event}\n` : "") + `data: ${payload}\n\n`;
}

// ---------------------------------------------------------------- Anthropic

export function anthropicStream(s: Script, opts: { dieAfterText?: boolean } = {}): StreamReply {
  const f: string[] = [];
  const ev = (type: string, data: Record<string, unknown>) => f.push(sseFrame({ type, ...data }, type));
  ev("message_start", {
    message: {
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      type: "message",
      role: "assistant",
      model: s.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: s.usage.input,
        cache_creation_input_tokens: s.usage.cacheWrite ?? 0,
        cache_read_input_tokens: s.usage.cacheRead ?? 0,
        output_tokens: 1,
      },
    },
  });
  let index = 0;
  if (s.reasoning?.length) {
    ev("content_block_start", { index, content_block: { type: "thinking", thinking: "" } });
    for (const t of s.reasoning) ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: t } });
    ev("content_block_delta", { index, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" } });
    ev("content_block_stop", { index });
    index++;
  }
  if (s.text?.length) {
    ev("content_block_start", { index, content_block: { type: "text", text: "" } });
    f.push(sseFrame({ type: "ping" }, "ping"));
    for (const t of s.text) ev("content_block_delta", { index, delta: { type: "text_delta", text: t } });
    if (opts.dieAfterText) return { contentType: "text/event-stream; charset=utf-8", body: f.join("") };
    ev("content_block_stop", { index });
    index++;
  }
  for (const c of s.calls ?? []) {
    ev("content_block_start", { index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } });
    ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } });
    for (const p of c.fragments) ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } });
    ev("content_block_stop", { index });
    index++;
  }
  ev("message_delta", {
    delta: { stop_reason: s.calls?.length ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: s.usage.output },
  });
  ev("message_stop", {});
  return { contentType: "text/event-stream; charset=utf-8", body: f.join("") };
}

export function anthropicBody(s: Script): unknown {
  const content: unknown[] = [];
  if (s.reasoning?.length) content.push({ type: "thinking", thinking: s.reasoning.join(""), signature: "EqQBCgIYAhIM" });
  if (s.text?.length) content.push({ type: "text", text: s.text.join("") });
  for (const c of s.calls ?? []) content.push({ type: "tool_use", id: c.id, name: c.name, input: JSON.parse(args(c) || "{}") });
  return {
    id: "msg_01XFDUDYJgAACzvnptvVoYEL",
    type: "message",
    role: "assistant",
    model: s.model,
    content,
    stop_reason: s.calls?.length ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: s.usage.input,
      cache_creation_input_tokens: s.usage.cacheWrite ?? 0,
      cache_read_input_tokens: s.usage.cacheRead ?? 0,
      output_tokens: s.usage.output,
    },
  };
}

// ------------------------------------------------------------- OpenAI chat

function chunk(s: Script, choices: unknown[], usage: unknown = null): unknown {
  return {
    id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
    object: "chat.completion.chunk",
    created: 1741570283,
    model: s.model,
    service_tier: "default",
    system_fingerprint: "fp_eb9dce56a8",
    choices,
    usage,
  };
}

function openAiUsage(s: Script): unknown {
  return {
    prompt_tokens: s.usage.input,
    completion_tokens: s.usage.output,
    total_tokens: s.usage.input + s.usage.output,
    prompt_tokens_details: { cached_tokens: s.usage.cacheRead ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: s.usage.reasoning ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export function openAiChatStream(
  s: Script,
  opts: { dieAfterText?: boolean; omitDone?: boolean; interleaveCalls?: boolean } = {},
): StreamReply {
  const f: string[] = [];
  const delta = (d: unknown, finish: string | null = null) =>
    f.push(sseFrame(chunk(s, [{ index: 0, delta: d, logprobs: null, finish_reason: finish }])));
  delta({ role: "assistant", content: "", refusal: null });
  for (const t of s.reasoning ?? []) delta({ reasoning_content: t });
  for (const t of s.text ?? []) delta({ content: t });
  if (opts.dieAfterText) return { contentType: "text/event-stream; charset=utf-8", body: f.join("") };
  const calls = s.calls ?? [];
  if (opts.interleaveCalls) {
    // Parallel calls opened together in one chunk, their argument
    // fragments interleaved: only `index` tells them apart.
    delta({
      tool_calls: calls.map((c, index) => ({ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } })),
    });
    const longest = Math.max(0, ...calls.map((c) => c.fragments.length));
    for (let i = 0; i < longest; i++) {
      const pieces = calls.flatMap((c, index) => (i < c.fragments.length ? [{ index, function: { arguments: c.fragments[i] } }] : []));
      delta({ tool_calls: pieces.reverse() });
    }
  } else {
    for (const [index, c] of calls.entries()) {
      delta({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] });
      for (const p of c.fragments) delta({ tool_calls: [{ index, function: { arguments: p } }] });
    }
  }
  delta({}, calls.length ? "tool_calls" : "stop");
  f.push(sseFrame(chunk(s, [], openAiUsage(s))));
  if (!opts.omitDone) f.push(sseFrame("[DONE]"));
  return { contentType: "text/event-stream; charset=utf-8", body: f.join("") };
}

export function openAiChatBody(s: Script): unknown {
  const calls = s.calls ?? [];
  return {
    id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
    object: "chat.completion",
    created: 1741570283,
    model: s.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: s.text?.length ? s.text.join("") : null,
          ...(s.reasoning?.length ? { reasoning_content: s.reasoning.join("") } : {}),
          ...(calls.length
            ? { tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: args(c) } })) }
            : {}),
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: calls.length ? "tool_calls" : "stop",
      },
    ],
    usage: openAiUsage(s),
    service_tier: "default",
    system_fingerprint: "fp_eb9dce56a8",
  };
}

// -------------------------------------------------------- OpenAI Responses

function responseObject(s: Script, status: string, output: unknown[], usage: unknown): Record<string, unknown> {
  return {
    id: "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
    object: "response",
    created_at: 1741476542,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    model: s.model,
    output,
    parallel_tool_calls: true,
    usage,
  };
}

function responsesOutput(s: Script): unknown[] {
  const out: unknown[] = [];
  if (s.reasoning?.length) {
    out.push({ id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: s.reasoning.join("") }] });
  }
  if (s.text?.length) {
    out.push({
      id: "msg_67ccd2bf17f0819081ff3bb2cf6508e6",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: s.text.join(""), annotations: [] }],
    });
  }
  for (const c of s.calls ?? []) {
    out.push({ id: `fc_${c.id}`, type: "function_call", status: "completed", arguments: args(c), call_id: c.id, name: c.name });
  }
  return out;
}

function responsesUsage(s: Script): unknown {
  return {
    input_tokens: s.usage.input,
    input_tokens_details: { cached_tokens: s.usage.cacheRead ?? 0 },
    output_tokens: s.usage.output,
    output_tokens_details: { reasoning_tokens: s.usage.reasoning ?? 0 },
    total_tokens: s.usage.input + s.usage.output,
  };
}

export function openAiResponsesStream(s: Script, opts: { dieAfterText?: boolean } = {}): StreamReply {
  const f: string[] = [];
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>) => f.push(sseFrame({ type, sequence_number: seq++, ...data }, type));
  ev("response.created", { response: responseObject(s, "in_progress", [], null) });
  ev("response.in_progress", { response: responseObject(s, "in_progress", [], null) });
  let outputIndex = 0;
  if (s.reasoning?.length) {
    const item = { id: "rs_1", type: "reasoning", summary: [] };
    ev("response.output_item.added", { output_index: outputIndex, item });
    for (const t of s.reasoning) {
      ev("response.reasoning_summary_text.delta", { item_id: "rs_1", output_index: outputIndex, summary_index: 0, delta: t });
    }
    ev("response.output_item.done", { output_index: outputIndex, item });
    outputIndex++;
  }
  if (s.text?.length) {
    const id = "msg_67ccd2bf17f0819081ff3bb2cf6508e6";
    ev("response.output_item.added", {
      output_index: outputIndex,
      item: { id, type: "message", status: "in_progress", content: [], role: "assistant" },
    });
    ev("response.content_part.added", {
      item_id: id,
      output_index: outputIndex,
      content_index: 0,
      part: { type: "output_text", annotations: [], text: "" },
    });
    for (const t of s.text) {
      ev("response.output_text.delta", { item_id: id, output_index: outputIndex, content_index: 0, delta: t });
    }
    if (opts.dieAfterText) return { contentType: "text/event-stream; charset=utf-8", body: f.join("") };
    ev("response.output_text.done", { item_id: id, output_index: outputIndex, content_index: 0, text: s.text.join("") });
    outputIndex++;
  }
  for (const c of s.calls ?? []) {
    const itemId = `fc_${c.id}`;
    ev("response.output_item.added", {
      output_index: outputIndex,
      item: { id: itemId, type: "function_call", status: "in_progress", arguments: "", call_id: c.id, name: c.name },
    });
    for (const p of c.fragments) {
      ev("response.function_call_arguments.delta", { item_id: itemId, output_index: outputIndex, delta: p });
    }
    ev("response.function_call_arguments.done", { item_id: itemId, output_index: outputIndex, arguments: args(c) });
    ev("response.output_item.done", {
      output_index: outputIndex,
      item: { id: itemId, type: "function_call", status: "completed", arguments: args(c), call_id: c.id, name: c.name },
    });
    outputIndex++;
  }
  ev("response.completed", { response: responseObject(s, "completed", responsesOutput(s), responsesUsage(s)) });
  return { contentType: "text/event-stream; charset=utf-8", body: f.join("") };
}

export function openAiResponsesBody(s: Script): unknown {
  return responseObject(s, "completed", responsesOutput(s), responsesUsage(s));
}

// ------------------------------------------------------------------ Ollama

const CREATED = "2025-01-15T10:00:00.000000Z";

function ollamaDone(s: Script, content: string, toolCalls?: unknown[]): Record<string, unknown> {
  return {
    model: s.model,
    created_at: CREATED,
    message: { role: "assistant", content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
    done_reason: "stop",
    done: true,
    total_duration: 4883583458,
    load_duration: 1334875,
    prompt_eval_count: s.usage.input,
    prompt_eval_duration: 342546000,
    eval_count: s.usage.output,
    eval_duration: 4535599000,
  };
}

const ollamaCalls = (s: Script) =>
  (s.calls ?? []).map((c) => ({ function: { name: c.name, arguments: JSON.parse(args(c) || "{}") } }));

export function ollamaStream(s: Script, opts: { dieAfterText?: boolean } = {}): StreamReply {
  const lines: unknown[] = [];
  for (const t of s.reasoning ?? []) {
    lines.push({ model: s.model, created_at: CREATED, message: { role: "assistant", content: "", thinking: t }, done: false });
  }
  for (const t of s.text ?? []) {
    lines.push({ model: s.model, created_at: CREATED, message: { role: "assistant", content: t }, done: false });
  }
  if (!opts.dieAfterText) {
    if (s.calls?.length) {
      lines.push({ model: s.model, created_at: CREATED, message: { role: "assistant", content: "", tool_calls: ollamaCalls(s) }, done: false });
    }
    lines.push(ollamaDone(s, ""));
  }
  return { contentType: "application/x-ndjson", body: lines.map((l) => JSON.stringify(l) + "\n").join("") };
}

export function ollamaBody(s: Script): unknown {
  const body = ollamaDone(s, (s.text ?? []).join(""), s.calls?.length ? ollamaCalls(s) : undefined);
  if (s.reasoning?.length) (body.message as Record<string, unknown>).thinking = s.reasoning.join("");
  return body;
}
