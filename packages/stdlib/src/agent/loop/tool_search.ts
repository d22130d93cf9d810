/**
 * Tool search in the agent loop (spec/workflows.md §3.4): in client mode
 * the deferred tools wait in an index, the model's calls to the search tool
 * are answered here (never dispatched), and hits are promoted into the
 * tools it is shown from the next turn on, within `budget_tokens`. In
 * native mode the request carries the provider's meta-tool and the flags.
 */
import { HDict, type CallContext } from "@harn/vm";
import type { LlmToolDefinition } from "../../llm/types";
import { fromJson, type JsonObject } from "../../core/json";
import { emitAgentEvent } from "../sessions";
import { estimateTokens, isIndexed, nativeMetaTool, readToolSearch, resolveSearch, runSearch, searchToolSpec, type ResolvedSearch } from "../tools/search";
import type { CallOutcome, ToolCall } from "../tools/dispatch";
import type { ToolSpec } from "../tools/spec";
import { runtimeEvent } from "../transcript/values";
import type { SkillHost } from "./skills";

export class LoopToolSearch {
  /** Promoted tools, oldest first. */
  private promoted: { spec: ToolSpec; tokens: number }[] = [];

  private constructor(
    readonly resolved: ResolvedSearch,
    /** Client mode: the deferred tools, in declaration order. */
    private readonly index: ToolSpec[],
    /** Client mode: the search tool. */
    readonly searchTool: ToolSpec | null,
  ) {}

  /** Tool search of a loop over `specs`, or null when off. In client mode
   * the search tool is put first in `specs`. */
  static read(options: HDict, provider: string, model: string, specs: ToolSpec[]): LoopToolSearch | null {
    const config = readToolSearch(options.get("tool_search"));
    if (config === null || specs.length === 0) return null;
    const r = resolveSearch(config, provider, model, options, specs);
    if (r.mode === "native") return new LoopToolSearch(r, [], null);
    const tool = searchToolSpec(config);
    specs.unshift(tool);
    return new LoopToolSearch(
      r,
      specs.filter((s) => isIndexed(config, s)),
      tool,
    );
  }

  get native(): boolean {
    return this.resolved.mode === "native";
  }

  /** Whether the model may see and call `t` now. */
  shown(t: ToolSpec): boolean {
    return !this.index.includes(t) || this.promoted.some((p) => p.spec === t);
  }

  /** The tools shown: the loaded ones in order, then the promoted ones in
   * promotion order. */
  order(tools: readonly ToolSpec[]): ToolSpec[] {
    if (this.native) return tools.slice();
    return [...tools.filter((t) => !this.index.includes(t)), ...this.promoted.map((p) => p.spec)];
  }

  /** Native mode: the meta-tool and the flagged definitions. */
  nativeDefinitions(tools: readonly ToolSpec[], def: (t: ToolSpec) => LlmToolDefinition): LlmToolDefinition[] {
    return [nativeMetaTool(this.resolved, tools), ...tools.map(def)];
  }

  isSearchCall(call: ToolCall): boolean {
    return this.searchTool !== null && call.name === this.searchTool.name;
  }

  /** Answer a call of the search tool (§3.4 steps 1–5). */
  async call(host: SkillHost, ctx: CallContext, call: ToolCall): Promise<CallOutcome> {
    const c = this.resolved.config;
    const strategy = c.strategy;
    const name = c.variant === "regex" ? "tool_search_tool_regex" : "tool_search_tool_bm25";
    const query = fromJson(call.arguments as JsonObject);
    host.record(runtimeEvent(ctx.runtime, "tool_search_query", "assistant", "internal", "", HDict.of({ id: call.id, name, query, strategy, mode: "client" })));
    await emitAgentEvent(ctx, host.sessionId, HDict.of({ type: "tool_search_query", session_id: host.sessionId, tool_use_id: call.id, name, query, strategy, mode: "client" }));
    const q = call.arguments.query;
    const outcome = runSearch(ctx.runtime, strategy, this.index, typeof q === "string" ? q : "");
    const added: string[] = [];
    for (const n of outcome.names) {
      const spec = this.index.find((t) => t.name === n)!;
      if (this.promoted.some((p) => p.spec === spec)) continue;
      const tokens = estimateTokens(spec);
      const budget = c.budgetTokens;
      if (budget !== null) {
        if (tokens > budget) continue;
        let total = this.promoted.reduce((s, p) => s + p.tokens, 0);
        while (total + tokens > budget && this.promoted.length > 0) total -= this.promoted.shift()!.tokens;
      }
      this.promoted.push({ spec, tokens });
      added.push(n);
    }
    host.record(
      runtimeEvent(ctx.runtime, "tool_search_result", "tool", "internal", "", HDict.of({
        tool_use_id: call.id,
        tool_references: outcome.names.map((n) => HDict.of({ tool_name: n })),
        strategy,
        mode: "client",
        promoted: added,
      })),
    );
    await emitAgentEvent(ctx, host.sessionId, HDict.of({ type: "tool_search_result", session_id: host.sessionId, tool_use_id: call.id, promoted: added, strategy, mode: "client" }));
    const result: Record<string, unknown> = { tool_names: outcome.names };
    if (outcome.diagnostic !== null) result.diagnostic = outcome.diagnostic;
    return { name: call.name, text: JSON.stringify(result), status: "ok", ran: true, value: null };
  }
}
