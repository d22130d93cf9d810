/**
 * `sub_agent_run(task, options?)` arguments (spec/agents-surface.md
 * §3.1–§3.2): validation, the child's tool registry and capability policy,
 * and the options handed to the child loop.
 */
import { display, HarnError, HDict, type CallContext, type Value } from "@harn/vm";
import { uuidV7 } from "../../core/encoding";
import { parsePermissions } from "../permissions/dynamic";
import { governanceOf, intersectFor, narrowTools, parsePolicy, policyDict, PolicyParseError, toolsPolicy, type CapabilityPolicy } from "../permissions/policy";
import { isRegistry } from "../tools/spec";

/** Everything one run of a sub-agent needs; also what a `sub_agent`
 * worker keeps (and snapshots) to run again. */
export interface SubAgentSpec {
  name: string;
  task: string;
  system: string | null;
  /** The child loop's options (session, tools and policy set). */
  options: HDict;
  returnsSchema: Value;
  sessionId: string;
  /** JSON wanted without a schema (`response_format: "json"`, …). */
  wantsJson: boolean;
  tokenBudget: number | null;
  /** The raw options, for worker bookkeeping (`request`, `carry`, …). */
  raw: HDict;
}

/** Options never handed to the child loop. */
const REMOVED = ["background", "carry", "returns", "allowed_tools", "name", "execution", "system", "session_id"];

function fail(message: string): HarnError {
  return HarnError.runtime(message);
}

function allowedTools(v: Value): string[] | null {
  if (v === null) return null;
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw fail("sub_agent_run.allowed_tools: expected a list of strings");
  const out: string[] = [];
  for (const x of v as string[]) {
    const t = x.trim();
    if (t !== "" && !out.includes(t)) out.push(t);
  }
  return out;
}

function requestedPolicy(raw: Value, allowed: string[] | null): CapabilityPolicy | null {
  let policy: CapabilityPolicy | null = null;
  if (raw !== null) {
    try {
      policy = parsePolicy(raw);
    } catch (e) {
      if (e instanceof PolicyParseError) throw fail(`sub_agent_run: policy parse error: ${e.detail}`);
      throw e;
    }
  }
  if (allowed === null || allowed.length === 0) return policy;
  return policy === null ? toolsPolicy(allowed) : narrowTools(policy, allowed);
}

/** The registry with only the allowed tools, in registry order. */
function filtered(registry: HDict, allowed: string[]): HDict {
  const tools = registry.get("tools");
  const kept = Array.isArray(tools) ? tools.filter((t) => t instanceof HDict && allowed.includes(String(t.get("name")))) : [];
  return registry.with("tools", kept);
}

export function wantsJson(options: HDict): boolean {
  return options.get("response_format") === "json" || options.has("output_format") || options.has("json_schema") || options.has("output_schema");
}

/** Validate and resolve a call (§3.1); `policy` is the effective one,
 * intersected with the caller's ceiling. */
export function subAgentSpec(ctx: CallContext, taskArg: Value | undefined, optionsArg: Value | undefined): SubAgentSpec {
  const task = taskArg === undefined || taskArg === null ? "" : display(taskArg);
  if (task.trim() === "") throw fail("sub_agent_run: task is required");
  const o = optionsArg === undefined || optionsArg === null ? HDict.empty() : optionsArg;
  if (!(o instanceof HDict)) throw fail("sub_agent_run: options must be a dict");
  const allowed = allowedTools(o.get("allowed_tools"));
  let tools = o.get("tools");
  if (allowed !== null && allowed.length > 0) {
    if (tools !== null && !isRegistry(tools)) throw fail("sub_agent_run: tools must be a tool registry");
    if (tools !== null) tools = filtered(tools as HDict, allowed);
  }
  const requested = requestedPolicy(o.get("policy"), allowed);
  parsePermissions(o.get("permissions"), "sub_agent_run");
  const fallback = o.get("native_tool_fallback");
  if (fallback !== null && !["allow", "allow_once", "reject"].includes(fallback as string)) {
    throw fail(`sub_agent_run: native_tool_fallback must be one of allow, allow_once, reject; got \`${display(fallback)}\``);
  }
  const policy = intersectFor("spawn_agent", governanceOf(ctx.runtime, ctx.sessionId).policy, requested);
  const sid = o.get("session_id");
  const sessionId = typeof sid === "string" && sid !== "" ? sid : `sub_agent_session_${uuidV7(ctx.runtime)}`;
  const name = o.get("name");
  const system = o.get("system");
  const m = new Map(o.map);
  for (const k of REMOVED) m.delete(k);
  m.set("session_id", sessionId);
  m.set("tools", tools);
  if (policy !== null) m.set("policy", policyDict(policy));
  else m.delete("policy");
  const returns = o.get("returns");
  const budget = o.get("token_budget");
  return {
    name: typeof name === "string" && name !== "" ? name : "sub-agent",
    task,
    system: typeof system === "string" && system.trim() !== "" ? system : null,
    options: new HDict(m),
    returnsSchema: returns instanceof HDict ? returns.get("schema") : null,
    sessionId,
    wantsJson: wantsJson(o),
    tokenBudget: typeof budget === "number" && budget >= 0 ? budget : null,
    raw: o,
  };
}
