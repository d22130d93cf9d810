/**
 * Starting an agent loop (spec/agents.md §2.1, §2.11): its settings and
 * tools, the session prefix and the stored transcript, the capability
 * policy and permissions in force (agents-surface.md §5), and session-end
 * cleanup (§1.15) in a `finally` on every exit path.
 */
import { normalizePolicy } from "../permissions/command_policy";
import { HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { parsePermissions } from "../permissions/dynamic";
import { PermissionGate } from "../permissions/gate";
import { enterGovernance, governanceOf, intersectFor, parsePolicy, PolicyParseError, type Governance } from "../permissions/policy";
import { DEFAULT_RETRY_BUDGET_MS, RetryBudget } from "../../llm/retry";
import { StickyFallback } from "../../llm/fallback";
import { longRunState, type HandleRecord } from "../../longrun/index";
import { backgroundBuiltins, backgroundTools } from "../background/tools";
import { uuidV7 } from "../../core/encoding";
import { scriptEventHandler } from "../llm/events";
import { readLlmSettings, type LlmSettings } from "../llm/options";
import { agentSessions } from "../sessions";
import { shortCircuitTools, type BuiltinTool, type McpClients } from "../tools/dispatch";
import { readLoopServers } from "../../mcp/config";
import { DaemonMode } from "../daemon/mode";
import { BACKGROUND_TOOL_NAMES, namedToolSpec, specOf, toolEntries, validateSpec, type ToolSpec } from "../tools/spec";
import { readLoopCompaction, type LoopCompaction } from "./compaction";
import { AGENT_LOOP_BACKOFF_MS, readLoopSettings, type LoopSettings } from "./options";
import { newProgress, transcriptDict, type LoopStatus } from "./result";
import { AgentLoop, type LoopStart } from "./run";
import { inheritedSkillOptions, LOAD_SKILL, loadSkillSpec, LoopSkills, shareSkillContext } from "./skills";
import { LoopToolSearch } from "./tool_search";
import { bindLoopTools } from "../tools/bound";
import { messagesFromJson, userMessage, type Msg } from "./transcript";
import { toJson } from "../../core/json";

export async function runAgentLoop(ctx: CallContext, start: LoopStart): Promise<HDict> {
  const rt = ctx.runtime;
  const servers = readLoopServers(start.options.get("mcp_servers"));
  const settings = readLoopSettings(start.options);
  const compaction = readLoopCompaction(start.options);
  const llm = readLlmSettings(rt, start.options, { retries: settings.profile.llmRetries, backoffMs: AGENT_LOOP_BACKOFF_MS });
  const retries = settings.toolRetries;
  if (servers.length === 0) {
    // `executor: "mcp_server"` tools may still reach declared servers.
    const registry: McpClients = (server) => import("../../mcp/loop").then((m) => m.registryClient(rt, server, retries));
    return runLoop(ctx, start, settings, compaction, llm, registry);
  }
  // spec/mcp.md §3: the servers' tools join the loop's for its duration.
  const { openLoopServers } = await import("../../mcp/loop");
  const resumedTools = start.resumed && start.options.get("tools") === null ? start.resumed.tools : null;
  const mcp = await openLoopServers(ctx, servers, start.options.get("tools"), resumedTools, retries);
  try {
    return await runLoop(ctx, { ...start, options: start.options.with("tools", mcp.tools) }, settings, compaction, llm, mcp.clients);
  } finally {
    await mcp.close();
  }
}

async function runLoop(ctx: CallContext, start: LoopStart, settings: LoopSettings, compaction: LoopCompaction | null, llm: LlmSettings, mcp: McpClients): Promise<HDict> {
  const rt = ctx.runtime;
  const sessions = agentSessions(rt);
  // Daemon mode (§4.1): null unless `daemon: true` and not persistent.
  const daemon = DaemonMode.from(ctx, start.options, start.daemonHost ?? null);
  const restored = daemon ? await daemon.prepare() : null;
  const sessionId = start.resumed?.sessionId ?? settings.sessionId ?? `agent_session_${uuidV7(rt)}`;
  const anonymous = start.resumed ? start.resumed.anonymous : settings.sessionId === null;
  // A loop nested in a workflow stage inherits the stage's skills (§2.7).
  const inherited = inheritedSkillOptions(rt, ctx.sessionId, start.options);
  const unshareSkills = inherited === null ? () => {} : shareSkillContext(rt, sessionId, inherited.get("skills"), inherited.get("skill_match"));
  const skills = LoopSkills.read(rt, inherited ?? start.options, anonymous ? null : sessionId);
  const { specs, builtins, loadSkill } = loopTools(start, settings, skills !== null);
  const search = LoopToolSearch.read(start.options, llm.provider, llm.model, specs);
  let messages: Msg[];
  if (start.resumed) messages = start.resumed.messages;
  else if (restored) messages = restored.messages;
  else {
    const prefix = settings.sessionId !== null ? sessionPrefix(rt, sessionId) : [];
    const given = start.options.get("messages");
    const initial = Array.isArray(given) ? messagesFromJson(toJson(given)) : [userMessage(start.task ?? "")];
    messages = [...prefix.map((m) => structuredClone(m)), ...initial];
  }
  const sctx = ctx.inSession ? ctx.inSession(sessionId) : ctx;
  // One retry budget for every call of the loop (extensions.md §3.4).
  llm.retryBudget ??= new RetryBudget(DEFAULT_RETRY_BUDGET_MS);
  // A fallback that answered keeps answering for the rest of the loop
  // (extensions.md §3.5), or until the re-probe policy asks the primary.
  llm.sticky = start.fallbackMemory ? (start.fallbackMemory.sticky ??= new StickyFallback(llm.reprobe)) : new StickyFallback(llm.reprobe);
  llm.onEvent = scriptEventHandler(sctx, start.options.get("on_event"), "agent_loop");
  llm.background = start.background === true;
  const loop = new AgentLoop(rt, sctx, settings, llm, specs, builtins, sessionId, messages, start.resumed?.progress ?? restored?.progress ?? newProgress(), start);
  loop.daemon = daemon;
  loop.compaction = compaction;
  loop.mcp = mcp;
  loop.skills = skills;
  loop.search = search;
  if (loadSkill) builtins.set(LOAD_SKILL, (skills ?? LoopSkills.none()).loadSkillTool(loop));
  if (settings.backgroundTasks) {
    for (const [name, fn] of backgroundBuiltins(loop, runAgentLoop)) builtins.set(name, fn);
  }
  const governance = loopGovernance(ctx, start.options);
  loop.gate = new PermissionGate(rt, sessionId, governance, (e) => loop.record(e));
  const leaveGovernance = enterGovernance(rt, sessionId, governance);
  // tool_ref / tool_def inside the loop see its tools (workflows.md §3.5).
  const unbindTools = bindLoopTools(rt, start.options.get("tools"));
  // A named session exists from its first loop's start (agent_session_exists
  // inside its tool handlers); the final transcript replaces this entry.
  if (!anonymous) sessions.open(sessionId);
  sessions.active.add(sessionId);
  let status: LoopStatus | null = null;
  let result: HDict | null = null;
  const started = rt.clock.monotonic();
  try {
    status = await loop.run();
    if (daemon) status = await daemon.finalize(loop, status);
    result = loop.result(status, Math.round(rt.clock.monotonic() - started), anonymous);
    return result;
  } finally {
    leaveGovernance();
    unbindTools();
    unshareSkills();
    sessions.active.delete(sessionId);
    if (!anonymous) skills?.save(rt, sessionId);
    await skills?.releaseServers(rt);
    if (settings.sessionId !== null || !anonymous) {
      // The loop's transcript replaces the stored one (agents-surface.md
      // §2.1), events appended meanwhile included.
      const t = result?.get("transcript");
      const transcript = t instanceof HDict ? t : transcriptDict(rt, sessionId, loop.messages, "paused", loop.progress.summary ?? null, loop.progress.events ?? []);
      sessions.storeTranscript(sessionId, transcript, status === "input_required" ? loop.resumeState(anonymous) : null);
    }
    // A yielded loop is paused, not ended: its handles produce the results
    // the script will resume it with.
    if (status !== "input_required") {
      const lr = longRunState(rt);
      // the work the model started and will never see the end of: say so
      for (const r of lr.cancelSession(sessionId)) rt.stderr.write(`[harn] agent loop ended: cancelled ${handleText(r)}\n`);
      if (anonymous) lr.discardSession(sessionId);
    }
  }
}

/** `hto-1f-2 (run_command sleep 100)`, `hso-1f-1 (walk_dir /srv)`. */
function handleText(r: HandleRecord): string {
  return `${r.id} (${r.family === "command" ? `${r.operation} ` : ""}${r.descriptor})`;
}

/**
 * The policy and permissions a loop runs under (agents-surface.md §5): its
 * `policy` option intersected with the caller's ceiling, its `permissions`
 * after the caller's.
 */
function loopGovernance(ctx: CallContext, options: HDict): Governance {
  const outer = governanceOf(ctx.runtime, ctx.sessionId);
  const raw = options.get("policy");
  let requested = null;
  if (raw !== null) {
    try {
      requested = parsePolicy(raw);
    } catch (e) {
      if (e instanceof PolicyParseError) throw HarnError.runtime(`agent_loop: policy parse error: ${e.detail}`);
      throw e;
    }
  }
  const policy = intersectFor("agent_loop", outer.policy, requested);
  const own = parsePermissions(options.get("permissions"), "agent_loop");
  const commands = options.get("command_policy");
  return {
    policy,
    permissions: own ? [...outer.permissions, own] : outer.permissions,
    commandPolicy: commands === null ? (outer.commandPolicy ?? null) : normalizePolicy(commands, "agent_loop: command_policy"),
  };
}

/**
 * A named session's stored messages, prefixing a new loop (agents-surface.md
 * §2.1): with a stored summary not already leading the messages as a user
 * message, that summary comes first.
 */
function sessionPrefix(rt: Runtime, id: string): Msg[] {
  const sessions = agentSessions(rt);
  const stored = sessions.messages(id);
  const summary = sessions.get(id)?.transcript.get("summary");
  if (typeof summary === "string" && summary.trim() !== "") {
    const first = stored[0];
    if (!(first && first.role === "user" && first.content === summary)) return [userMessage(summary), ...stored];
  }
  return stored;
}

/** The loop's tools: the `tools` option's (or a resumed state's), the
 * background tools, and `load_skill` when the loop has skills or names it. */
function loopTools(start: LoopStart, settings: LoopSettings, hasSkills: boolean): { specs: ToolSpec[]; builtins: Map<string, BuiltinTool>; loadSkill: boolean } {
  const builtins = shortCircuitTools();
  const specs: ToolSpec[] = [];
  let loadSkill = hasSkills;
  const toolsOption = start.options.get("tools");
  if (toolsOption !== null || !start.resumed) {
    const { entries, named } = toolEntries(toolsOption);
    for (const e of entries) {
      const s = specOf(e);
      if (!s) continue;
      validateSpec(s, e);
      specs.push(s);
    }
    for (const n of named) {
      if (BACKGROUND_TOOL_NAMES.has(n)) settings.backgroundTasks = true;
      if (n === LOAD_SKILL) loadSkill = true;
      const s = namedToolSpec(n);
      if (s && !specs.some((x) => x.name === n)) specs.push(s);
    }
  } else {
    for (const t of start.resumed.tools) {
      const s = specOf(new HDict(new Map(Object.entries(t).map(([k, v]) => [k, v as Value]))));
      if (s) specs.push(s);
    }
  }
  if (settings.backgroundTasks) {
    for (const s of backgroundTools()) {
      if (!specs.some((x) => x.name === s.name)) specs.push(s);
    }
  }
  if (loadSkill && !specs.some((x) => x.name === LOAD_SKILL)) specs.push(loadSkillSpec());
  return { specs, builtins, loadSkill };
}

