/**
 * Agent values (spec/agents.md §2.13, P2): `agent(name, config?)` tags a
 * config dict as a named agent, `agent_config(agent, prompt)` turns one
 * into the arguments of a loop, `agent_name(agent)` reads its name. Plain
 * dicts throughout, so they print, compare and serialize like any dict.
 */
import { display, HarnError, HDict, type Value } from "@harn/vm";
import { builtinModule } from "../registry/define";

/** The config keys `agent_config` passes on as loop options. */
const OPTION_KEYS = [
  "provider",
  "model",
  "thinking",
  "tools",
  "max_iterations",
  "tool_format",
  "structural_experiment",
  "context_callback",
  "context_filter",
  "tool_retries",
  "tool_backoff_ms",
];

function isAgent(v: Value | undefined): v is HDict {
  return v instanceof HDict && v.get("_type") === "agent";
}

export const AGENT_VALUES_BUILTINS = builtinModule("agent/agent_values", (def) => {
  def("agent", (args) => {
    const name = args[0] ?? null;
    const config = args[1] ?? null;
    if (config !== null && !(config instanceof HDict)) throw HarnError.thrown("agent: second argument must be a config dict");
    const base = config ?? HDict.empty();
    return base.with("_type", "agent").with("name", name === null || typeof name === "string" ? name : display(name));
  });
  def("agent_config", (args) => {
    if (args.length < 2) throw HarnError.thrown("agent_config: requires agent and prompt");
    const a = args[0]!;
    if (!(a instanceof HDict)) throw HarnError.thrown("agent_config: first argument must be an agent");
    if (!isAgent(a)) throw HarnError.thrown("agent_config: first argument must be an agent (created with agent())");
    const options = new Map<string, Value>();
    for (const k of OPTION_KEYS) if (a.has(k)) options.set(k, a.get(k));
    return HDict.of({ prompt: args[1]!, system: a.get("system"), options: new HDict(options) });
  });
  def("agent_name", (args) => {
    const a = args[0];
    if (!isAgent(a)) throw HarnError.thrown("agent_name: argument must be an agent");
    return a.get("name");
  });
});
