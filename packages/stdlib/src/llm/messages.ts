/**
 * Transcript messages come in two dialects (OpenAI-style `tool_calls` and
 * `role: "tool"` messages, Anthropic-style `tool_use` / `tool_result`
 * blocks). Adapters first bring them to one small canonical form, then
 * render their own wire format from it.
 */

import { isJsonObject, parseJsonKeepingFloats, stringifyJsonKeepingFloats } from "../core/json";
import type { LlmContentBlock, LlmMessage, LlmToolChoice, LlmToolDefinition } from "./types";

export type Part =
  | { type: "text"; text: string }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | { type: "tool_result"; tool_call_id: string; name?: string; content: string; is_error?: boolean }
  | ImagePart;

/** An image block (agents-surface.md §8.10), checked before the request
 * is built (agent/llm/gates.ts): exactly one of `url` and `base64`. */
export interface ImagePart {
  type: "image";
  url?: string;
  base64?: string;
  media_type: string;
  detail?: string;
}

export interface CanonicalMessage {
  role: "system" | "user" | "assistant";
  parts: Part[];
}

export function canonicalize(messages: readonly LlmMessage[]): CanonicalMessage[] {
  const out: CanonicalMessage[] = [];
  for (const m of messages) {
    if (m === null || typeof m !== "object") continue;
    const parts: Part[] = [];
    if (m.role === "tool") {
      parts.push({
        type: "tool_result",
        tool_call_id: String(m.tool_call_id ?? ""),
        ...(m.name !== undefined ? { name: String(m.name) } : {}),
        content: contentText(m.content),
      });
      out.push({ role: "user", parts });
      continue;
    }
    const role: CanonicalMessage["role"] = m.role === "system" ? "system" : m.role === "assistant" ? "assistant" : "user";
    if (typeof m.content === "string") {
      if (m.content !== "") parts.push({ type: "text", text: m.content });
    } else if (Array.isArray(m.content)) {
      for (const b of m.content) {
        const p = blockPart(b);
        if (p) parts.push(p);
      }
    }
    for (const tc of m.tool_calls ?? []) {
      if (tc === null || typeof tc !== "object") continue;
      parts.push({
        type: "tool_call",
        id: String(tc.id ?? ""),
        name: String(tc.name ?? tc.function?.name ?? ""),
        arguments: tc.arguments ?? tc.function?.arguments ?? {},
      });
    }
    out.push({ role, parts });
  }
  return out;
}

function blockPart(b: LlmContentBlock): Part | undefined {
  if (b === null || typeof b !== "object") return undefined;
  switch (b.type) {
    case "text":
    case "output_text":
    case "input_text":
      return typeof b.text === "string" && b.text !== "" ? { type: "text", text: b.text } : undefined;
    case "tool_use":
    case "tool_call":
      return {
        type: "tool_call",
        id: String(b.id ?? ""),
        name: String(b.name ?? ""),
        arguments: b.input ?? b.arguments ?? {},
      };
    case "tool_result":
      return {
        type: "tool_result",
        tool_call_id: String(b.tool_use_id ?? b.tool_call_id ?? ""),
        content: contentText(b.content),
        ...(b.is_error === true ? { is_error: true } : {}),
      };
    case "image": {
      const url = b.url ?? b.file_uri;
      const base64 = b.base64 ?? b.data;
      const part: ImagePart = { type: "image", media_type: String(b.media_type ?? b.mime_type ?? "") };
      if (typeof url === "string") part.url = url;
      if (typeof base64 === "string") part.base64 = base64;
      if (typeof b.detail === "string") part.detail = b.detail;
      return part;
    }
    default:
      return undefined;
  }
}

/** Text of a message or tool-result content: strings as is, text blocks
 * joined, anything else as JSON. */
export function contentText(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const texts: string[] = [];
    for (const b of content) {
      if (typeof b === "string") texts.push(b);
      else if (b && typeof b === "object" && typeof (b as { text?: unknown }).text === "string") {
        texts.push((b as { text: string }).text);
      }
    }
    return texts.join("\n");
  }
  return JSON.stringify(content);
}

/** The image parts of a message. */
export function imageParts(parts: readonly Part[]): ImagePart[] {
  return parts.filter((p): p is ImagePart => p.type === "image");
}

/** An image as a URL: its own, or a `data:` URL of its bytes. */
export function imageUrl(p: ImagePart): string {
  return p.url ?? `data:${p.media_type};base64,${p.base64 ?? ""}`;
}

/** Text parts of a message joined. */
export function partsText(parts: readonly Part[]): string {
  return parts
    .filter((p): p is Extract<Part, { type: "text" }> => p.type === "text")
    .map((p) => p.text)
    .join("\n");
}

/** Tool-call arguments as an object (wire formats that want JSON values). */
export function argumentsObject(args: unknown): Record<string, unknown> {
  if (typeof args === "string") {
    try {
      const v: unknown = parseJsonKeepingFloats(args);
      if (isJsonObject(v)) return v;
    } catch {
      // keep the model's text so nothing is lost
    }
    return { _raw: args };
  }
  if (isJsonObject(args)) return args;
  return {};
}

/** Tool-call arguments as a JSON string (wire formats that want text). A
 * `{_raw}` object from an earlier unparsable reply is sent back verbatim. */
export function argumentsString(args: unknown): string {
  if (typeof args === "string") return args;
  const obj = argumentsObject(args);
  const keys = Object.keys(obj);
  if (keys.length === 1 && keys[0] === "_raw" && typeof obj._raw === "string") return obj._raw;
  return stringifyJsonKeepingFloats(obj);
}

export function toolSchema(t: LlmToolDefinition): Record<string, unknown> {
  return t.parameters ?? { type: "object", properties: {} };
}

export function hasTools(tools: readonly LlmToolDefinition[] | null | undefined): tools is LlmToolDefinition[] {
  return Array.isArray(tools) && tools.length > 0;
}

/** A provider-native tool (a tool-search meta-tool, workflows.md §3.3) is
 * sent as it is; adapters without native tool search drop it. */
export function isNativeTool(t: LlmToolDefinition): boolean {
  return t.type !== undefined;
}

/** Function tools in the Chat Completions shape (`{type: "function",
 * function: {name, description?, parameters}}`), which OpenAI-compatible
 * servers and Ollama share; native tools are left out (neither has tool
 * search). */
export function chatFunctionTools(tools: readonly LlmToolDefinition[]): Record<string, unknown>[] {
  return tools
    .filter((t) => !isNativeTool(t))
    .map((t) => ({
      type: "function",
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: toolSchema(t),
      },
    }));
}

/** `defer_loading` / `namespace` of a function tool, where set. */
export function searchFlags(t: LlmToolDefinition): Record<string, unknown> {
  return { ...(t.defer_loading ? { defer_loading: true } : {}), ...(t.namespace ? { namespace: t.namespace } : {}) };
}

export function toolChoiceName(choice: LlmToolChoice | null | undefined): string | undefined {
  return choice !== null && typeof choice === "object" ? choice.name : undefined;
}

export function stopList(stop: string | string[] | null | undefined): string[] | undefined {
  if (stop === null || stop === undefined) return undefined;
  return Array.isArray(stop) ? stop : [stop];
}

/** Copy the defined (non-null) entries of `fields` into `body`. */
export function setDefined(body: Record<string, unknown>, fields: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(fields)) {
    if (v !== null && v !== undefined) body[k] = v;
  }
}
