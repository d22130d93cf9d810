/**
 * Script-level tool hooks (spec/agents.md §2.6 step 1):
 * `register_tool_hook({pattern?, deny?, max_output?})` and
 * `clear_tool_hooks()`. A hook matching a tool name either denies the call
 * before it runs or shortens its result text afterwards.
 */
import { display, HarnError, HDict, RuntimeSlot, type Runtime } from "@harn/vm";
import { microcompact } from "../transcript/microcompact";
import { builtinModule } from "../../registry/define";

export interface ToolHook {
  pattern: string;
  deny: string | null;
  maxOutput: number | null;
}

const HOOKS = new RuntimeSlot<ToolHook[]>("agent.tool_hooks", () => []);

export function toolHooks(rt: Runtime): readonly ToolHook[] {
  return rt.slot(HOOKS);
}

/** `*` (all), `prefix*`, `*suffix`, or the exact name. */
export function hookMatches(pattern: string, name: string): boolean {
  if (pattern === "*") return true;
  if (pattern.endsWith("*")) return name.startsWith(pattern.slice(0, -1));
  if (pattern.startsWith("*")) return name.endsWith(pattern.slice(1));
  return pattern === name;
}

/** The denial reason of the first matching hook that denies, if any. */
export function deniedBy(rt: Runtime, name: string): string | null {
  for (const h of toolHooks(rt)) if (h.deny !== null && hookMatches(h.pattern, name)) return h.deny;
  return null;
}

/** Apply the `max_output` of every matching hook (microcompact, as
 * agents-surface.md §1.9 says). */
export function limitOutput(rt: Runtime, name: string, text: string): string {
  let out = text;
  for (const h of toolHooks(rt)) if (h.maxOutput !== null && hookMatches(h.pattern, name)) out = microcompact(out, h.maxOutput);
  return out;
}

export const TOOL_HOOKS_BUILTINS = builtinModule("agent/tools/hooks", (def) => {
  def("register_tool_hook", (args, ctx) => {
    const cfg = args[0];
    if (!(cfg instanceof HDict)) throw HarnError.thrown("register_tool_hook: expected a config dict {pattern?, deny?, max_output?}");
    const pattern = cfg.get("pattern");
    const deny = cfg.get("deny");
    const max = cfg.get("max_output");
    ctx.runtime.slot(HOOKS).push({
      pattern: typeof pattern === "string" && pattern !== "" ? pattern : "*",
      deny: deny === null || deny === false ? null : typeof deny === "string" ? deny : display(deny),
      maxOutput: typeof max === "number" || typeof max === "bigint" ? Math.max(0, Number(max)) : null,
    });
    return null;
  });
  def("clear_tool_hooks", (_args, ctx) => {
    ctx.runtime.slot(HOOKS).length = 0;
    return null;
  });
});
