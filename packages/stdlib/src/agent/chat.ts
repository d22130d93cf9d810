/**
 * What `harn chat` (extensions.md §3.6) needs from the agent layer: the
 * tools found among a file's exported values, and one exchange of the
 * session — the conversation so far plus the user's prompt run as one agent
 * loop, giving the new conversation back. The conversation is plain JSON
 * messages, so the CLI can save it and load it again.
 */
import { HDict, type CallContext, type Value } from "@harn/vm";
import { runAgentLoop } from "./loop/start";
import type { FallbackMemory } from "./loop/run";
import { isRegistry } from "./tools/spec";
import { fromJson, isJsonObject, type Json, type JsonObject, toJson } from "../core/json";

/** Tool dicts among `values`: the tools of every registry (a `tool`
 * declaration is a one-tool registry) and every list of tool dicts. A later
 * tool replaces an earlier one of the same name. */
export function collectTools(values: readonly Value[]): HDict[] {
  const byName = new Map<string, HDict>();
  const add = (t: Value) => {
    if (t instanceof HDict && typeof t.get("name") === "string") {
      byName.delete(t.get("name") as string);
      byName.set(t.get("name") as string, t);
    }
  };
  for (const v of values) {
    if (isRegistry(v)) {
      const tools = v.get("tools");
      if (Array.isArray(tools)) tools.forEach(add);
    } else if (Array.isArray(v) && v.length > 0 && v.every((t) => t instanceof HDict && typeof t.get("name") === "string" && t.has("handler"))) {
      v.forEach(add);
    }
  }
  return [...byName.values()];
}

export interface ChatExchange {
  /** The loop's status (`done`, `interrupted`, …). */
  status: string;
  /** The whole conversation after this exchange. */
  messages: JsonObject[];
  /** The loop's transcript dict, as JSON. */
  transcript: JsonObject;
}

export interface ChatPrompt {
  /** The conversation so far. */
  messages: readonly JsonObject[];
  prompt: string;
  system: string | null;
  /** Unset: resolved from the environment as for any call (agents.md §5.1). */
  provider?: string;
  model?: string;
  tools: readonly HDict[];
  /** `--fallback P[:MODEL]`: providers to try when the primary fails. */
  fallback?: readonly { provider: string; model?: string }[];
  /** The session's memory of a fallback that answered (one object for the
   * whole session, so a dead primary is not retried on every prompt). */
  fallbackMemory?: FallbackMemory;
}

/**
 * Run one prompt of a chat session: an agent loop over
 * `messages + {role: "user", content: prompt}`, tools in the provider's
 * native tool channel. Errors are the loop's (thrown as for `agent_loop`).
 */
export async function chatExchange(ctx: CallContext, input: ChatPrompt): Promise<ChatExchange> {
  const conversation: Json[] = [...input.messages, { role: "user", content: input.prompt }];
  let options = HDict.of({ messages: fromJson(conversation), tool_format: "native" });
  if (input.provider) options = options.with("provider", input.provider);
  if (input.model) options = options.with("model", input.model);
  if (input.tools.length > 0) options = options.with("tools", [...input.tools]);
  if (input.fallback && input.fallback.length > 0) {
    options = options.with("fallback_chain", input.fallback.map((f) => f.provider));
    const models = input.fallback.filter((f) => f.model !== undefined).map((f) => [f.provider, f.model!] as const);
    if (models.length > 0) options = options.with("fallback_models", HDict.of(Object.fromEntries(models)));
  }
  const result = await runAgentLoop(ctx, { task: null, system: input.system, options, fallbackMemory: input.fallbackMemory });
  const transcript = toJson(result.get("transcript"));
  const messages = isJsonObject(transcript) && Array.isArray(transcript.messages) ? transcript.messages.filter(isJsonObject) : [];
  return { status: String(result.get("status")), messages, transcript: isJsonObject(transcript) ? transcript : {} };
}

/** The messages of a saved conversation: a transcript dict (`/save`), an
 * `agent_loop` result holding one, or a bare list of messages. Null when
 * the value is none of these. */
export function savedMessages(v: unknown): JsonObject[] | null {
  let list: unknown = v;
  if (isJsonObject(v)) list = isJsonObject(v.transcript) ? v.transcript.messages : v.messages;
  if (!Array.isArray(list)) return null;
  if (!list.every((m) => isJsonObject(m) && typeof m.role === "string")) return null;
  return list as JsonObject[];
}
