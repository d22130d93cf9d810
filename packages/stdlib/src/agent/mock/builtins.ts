/**
 * `llm_mock`, `llm_mock_calls`, `llm_mock_clear`, `llm_mock_push_scope`,
 * `llm_mock_pop_scope` (spec/agents.md §3.2, §3.7).
 */
import { display, HarnError, HDict, type Runtime, type Value } from "@harn/vm";
import { ERROR_CATEGORIES } from "../../core/assert";
import { fromJson, isJsonObject, type JsonObject, parseJsonKeepingFloats, toJson } from "../../core/json";
import { mockState, type MockEntry, type MockError } from "./state";
import { prefixOf } from "../loop/transcript";
import { builtinModule } from "../../registry/define";

function optInt(d: HDict, key: string): number | undefined {
  const v = d.get(key);
  return typeof v === "number" || typeof v === "bigint" ? Number(v) : undefined;
}

function optString(d: HDict, key: string): string | undefined {
  const v = d.get(key);
  return typeof v === "string" ? v : undefined;
}

function parseError(v: Value): MockError {
  if (!(v instanceof HDict)) throw HarnError.runtime("llm_mock: error must be a dict {category, message, retry_after_ms?}");
  const category = v.get("category");
  if (category === null || category === "") throw HarnError.runtime("llm_mock: error.category is required");
  const cat = typeof category === "string" ? category : display(category);
  if (!ERROR_CATEGORIES.has(cat)) throw HarnError.runtime(`llm_mock: unknown error category \`${cat}\``);
  const message = v.get("message");
  const out: MockError = { category: cat, message: message === null ? "" : typeof message === "string" ? message : display(message) };
  const ra = v.get("retry_after_ms");
  if (ra !== null) {
    if (!(typeof ra === "number" || typeof ra === "bigint") || ra < 0) {
      throw HarnError.runtime("llm_mock: error.retry_after_ms must be a non-negative int");
    }
    out.retryAfterMs = Number(ra);
  }
  return out;
}

/** An `llm_mock` config dict as a queue entry (validated). */
export function parseMockEntry(config: Value): MockEntry {
  if (!(config instanceof HDict)) throw HarnError.runtime("llm_mock: expected a dict argument");
  const text = config.get("text");
  const entry: MockEntry = {
    text: text === null ? "" : typeof text === "string" ? text : display(text),
    toolCalls: [],
    match: null,
    consumeMatch: config.get("consume_match") === true,
    model: optString(config, "model") ?? "mock",
  };
  const match = config.get("match");
  if (match !== null) entry.match = typeof match === "string" ? match : display(match);
  const calls = config.get("tool_calls");
  if (Array.isArray(calls)) {
    for (const c of calls) {
      if (!(c instanceof HDict)) continue;
      const name = c.get("name");
      const args = toJson(c.get("arguments"));
      entry.toolCalls.push({
        name: typeof name === "string" && name !== "" ? name : "unknown",
        arguments: isJsonObject(args) ? args : {},
      });
    }
  }
  entry.inputTokens = optInt(config, "input_tokens");
  entry.outputTokens = optInt(config, "output_tokens");
  entry.cacheReadTokens = optInt(config, "cache_read_tokens");
  entry.cacheWriteTokens = optInt(config, "cache_write_tokens") ?? optInt(config, "cache_creation_input_tokens");
  entry.thinking = optString(config, "thinking");
  entry.thinkingSummary = optString(config, "thinking_summary");
  entry.stopReason = optString(config, "stop_reason");
  const delay = optInt(config, "delay_ms");
  if (delay !== undefined && delay > 0) entry.delayMs = delay;
  const error = config.get("error");
  if (error !== null) entry.error = parseError(error);
  return entry;
}

/**
 * Load CLI fixtures (one JSON object per line, the keys of `llm_mock`);
 * from then on unmatched requests fail instead of getting the default
 * reply. Throws an `Error` naming the bad line.
 */
export function loadMockFixtures(rt: Runtime, jsonl: string): void {
  const entries: MockEntry[] = [];
  jsonl.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = parseJsonKeepingFloats(line);
    } catch (e) {
      throw new Error(`line ${i + 1}: invalid JSON: ${(e as Error).message}`);
    }
    try {
      entries.push(parseMockEntry(fromJson(value)));
    } catch (e) {
      throw new Error(`line ${i + 1}: ${e instanceof HarnError ? e.message : String(e)}`);
    }
  });
  const state = mockState(rt);
  state.fixtures = [...(state.fixtures ?? []), ...entries];
}

export const MOCK_BUILTINS = builtinModule("agent/mock/builtins", (def) => {
  def("llm_mock", (args, ctx) => {
    mockState(ctx.runtime).queue.push(parseMockEntry(args[0] ?? null));
    return null;
  });
  def("llm_mock_calls", (_args, ctx) =>
    mockState(ctx.runtime).calls.map(
      (c) =>
        new HDict(
          new Map<string, Value>([
            ["messages", fromJson(prefixOf(c.messages, c.count))],
            ["system", c.system],
            ["tools", c.tools === null ? null : fromJson(c.tools)],
            ["thinking", fromJson(c.thinking as JsonObject)],
          ]),
        ),
    ),
  );
  def("llm_mock_clear", (_args, ctx) => {
    mockState(ctx.runtime).clear();
    return null;
  });
  def("llm_mock_push_scope", (_args, ctx) => {
    mockState(ctx.runtime).pushScope();
    return null;
  });
  def("llm_mock_pop_scope", (_args, ctx) => {
    if (!mockState(ctx.runtime).popScope()) throw HarnError.thrown("llm_mock_pop_scope: no scope to pop");
    return null;
  });
});
