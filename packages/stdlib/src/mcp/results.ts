/**
 * What MCP results become for scripts (spec/mcp.md §1.9–§1.11, §3.3):
 * Harn values from the servers' JSON, and Harn values to JSON arguments.
 * Shared by the client builtins and the agent loop's MCP tools.
 */
import { display, HarnError, type Value } from "@harn/vm";
import { fromJson, isJsonObject as isObject, toJson, toJsonWith, type Json, type JsonObject } from "../core/json";

/** §0.3: a dict argument as JSON; values JSON has no form for are null.
 * Anything but a dict is `{}`. */
export function argumentsJson(v: Value): JsonObject {
  const j = toJsonWith(v, () => null);
  return isObject(j) ? j : {};
}

/** `tools/call`'s result (§1.9): an `isError` result is thrown as its text;
 * one text item is that text, no content nil, else the content list. */
export function toolResultValue(result: JsonObject): Value {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const texts = content.filter((c): c is JsonObject => isObject(c) && c.type === "text" && typeof c.text === "string").map((c) => c.text as string);
    throw HarnError.thrown(texts.length > 0 ? texts.join("\n") : display(fromJson(result)));
  }
  if (content.length === 0) return null;
  const only = content.length === 1 ? content[0] : undefined;
  if (isObject(only) && only.type === "text" && typeof only.text === "string") return only.text;
  return fromJson(content);
}

/** `resources/read`'s result (§1.10): one text item is its text, none nil,
 * else the content list. */
export function resourceValue(result: JsonObject): Value {
  const contents = Array.isArray(result.contents) ? result.contents : [];
  if (contents.length === 0) return null;
  const only = contents.length === 1 ? contents[0] : undefined;
  if (isObject(only) && typeof only.text === "string") return only.text;
  return fromJson(contents);
}

/** The array under `key` of a list result (missing → []). */
export function listOf(result: JsonObject, key: string): Json[] {
  const v = result[key];
  return Array.isArray(v) ? v : [];
}

/** An agent-loop tool result as text (§3.3 step 2): a string as is, nil
 * `(no output)`, a content list pretty-printed JSON with sorted keys. */
export function toolResultText(v: Value): string {
  if (typeof v === "string") return v;
  if (v === null) return "(no output)";
  return JSON.stringify(toJson(v), null, 2);
}
