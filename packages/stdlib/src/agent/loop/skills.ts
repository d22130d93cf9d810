/**
 * Skills in the agent loop (spec/workflows.md §2.6, §2.7): the `skills`
 * and `skill_match` options, metadata matching in the turn preflight, the
 * `skill_*` transcript events, the `## Active skills` system-prompt section,
 * tool scoping by `allowed_tools`, and the `load_skill` tool. The active
 * set of a named session outlives the loop, so a loop re-entering it starts
 * with the skills it had (§2.7 "session resume"). Skills that list MCP
 * servers (`requires_mcp`, alias `mcp`) bind them while active
 * (spec/mcp.md §2.4).
 */
import { display, float, HarnError, HDict, isCallable, isPromise, RuntimeSlot, type CallContext, type Runtime, type Value } from "@harn/vm";
import picomatch from "picomatch";
import { isSkillRegistry, skillEntries, skillRegistry } from "../../workflow/skills/registry";
import { findSkill, signatureOf, skillBody, skillDirOf, substitute } from "../../workflow/skills/files";
import { emitAgentEvent } from "../sessions";
import { runtimeEvent } from "../transcript/values";
import type { BuiltinTool } from "../tools/dispatch";
import type { ToolSpec } from "../tools/spec";
import type { Msg } from "./transcript";

export const LOAD_SKILL = "load_skill";

const STRATEGIES = new Set(["metadata", "host", "embedding"]);

/** Env variable that makes every `load_skill` call require a signature
 * ([TS decision]: the spec names no variable). */
export const REQUIRE_SIGNED_ENV = "HARN_REQUIRE_SIGNED_SKILLS";

interface MatchConfig {
  strategy: string;
  topN: number;
  sticky: boolean;
}

interface ActiveSkill {
  entry: HDict;
  /** The body `load_skill` promoted, which replaces the entry's prompt. */
  prompt: string | null;
}

interface Candidate {
  entry: HDict;
  score: number;
  reason: string;
}

/** What matching needs of the loop that runs it. */
export interface SkillHost {
  readonly sessionId: string;
  readonly messages: readonly Msg[];
  record(event: HDict): void;
}

/** Active skill names of sessions whose loops ended. */
const SESSION_ACTIVE = new RuntimeSlot("agent.skills.active", () => new Map<string, string[]>());

/** The skill context of workflow stages (§2.7 "Workflows"): session id ->
 * the `skills`/`skill_match` options of the stage loop running in it.
 * Loops started inside it (a tool handler's sub_agent_run) inherit them
 * and share them in turn while they run. */
const SHARED = new RuntimeSlot("agent.skills.shared", () => new Map<string, HDict>());

/** Share `skills`/`skill_match` with loops nested in session `sessionId`
 * until the returned function is called. */
export function shareSkillContext(rt: Runtime, sessionId: string, skills: Value, skillMatch: Value): () => void {
  const map = rt.slot(SHARED);
  const context = HDict.of({ skills, skill_match: skillMatch });
  map.set(sessionId, context);
  return () => {
    if (map.get(sessionId) === context) map.delete(sessionId);
  };
}

/** `options` with the skill context shared by the calling session, when
 * the loop names no skills of its own; null when nothing is inherited. */
export function inheritedSkillOptions(rt: Runtime, callerSession: string | undefined, options: HDict): HDict | null {
  if (options.get("skills") !== null || !callerSession) return null;
  const shared = rt.slot(SHARED).get(callerSession);
  if (shared === undefined) return null;
  return options.with("skills", shared.get("skills")).with("skill_match", options.get("skill_match") ?? shared.get("skill_match"));
}

/** The `skills` option as a registry: a bare list of entries is wrapped,
 * anything else means no skills. */
export function skillsOption(v: Value): HDict | null {
  if (isSkillRegistry(v)) return v;
  if (Array.isArray(v)) return skillRegistry(v.filter((x) => x instanceof HDict));
  return null;
}

function matchConfig(v: Value): MatchConfig {
  const c: MatchConfig = { strategy: "metadata", topN: 1, sticky: true };
  if (!(v instanceof HDict)) return c;
  const s = v.get("strategy");
  if (typeof s === "string" && STRATEGIES.has(s)) c.strategy = s;
  const n = v.get("top_n");
  if (typeof n === "number" && n >= 1) c.topN = Math.floor(n);
  if (typeof v.get("sticky") === "boolean") c.sticky = v.get("sticky") as boolean;
  return c;
}

const str = (v: Value): string => (typeof v === "string" ? v : "");
const strList = (v: Value): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** The prompt text matching reads: the latest user message with string
 * content (runtime-injected ones included). */
function latestUserText(messages: readonly Msg[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && typeof m.content === "string") return m.content;
  }
  return "";
}

/** Metadata scoring of one entry (§2.7). */
function score(entry: HDict, prompt: string, tokens: readonly string[], files: readonly string[]): Candidate {
  let total = 0;
  const reasons: string[] = [];
  const description = str(entry.get("description")).toLowerCase();
  const when = str(entry.get("when_to_use")).toLowerCase();
  const hits = tokens.filter((t) => description.includes(t)).length + tokens.filter((t) => when.includes(t)).length;
  if (hits > 0) {
    total += hits / (hits + 1.5);
    reasons.push(`${hits} keyword hit(s)`);
  }
  const name = str(entry.get("name"));
  if (name !== "" && prompt.toLowerCase().includes(name.toLowerCase())) {
    total += 2.0;
    reasons.push(`prompt mentions '${name}'`);
  }
  const globs = strList(entry.get("paths"));
  const pathHits = files.length === 0 ? 0 : globs.filter((g) => {
    const m = picomatch(g, { dot: true });
    return files.some((f) => m(f));
  }).length;
  if (pathHits > 0) {
    total += 1.5 * pathHits;
    reasons.push(`${pathHits} path glob(s) matched`);
  }
  return { entry, score: total, reason: reasons.join("; ") };
}

/** The servers a skill binds while active (mcp.md §2.4). */
function skillServers(entry: HDict): string[] {
  return [...new Set([...strList(entry.get("requires_mcp")), ...strList(entry.get("mcp"))])];
}

export class LoopSkills {
  private active: ActiveSkill[] = [];
  private warned = false;
  /** Skill name -> the servers this loop bound for it (each one binder of
   * the declared-server registry). */
  private readonly bound = new Map<string, string[]>();

  private constructor(
    readonly registry: HDict | null,
    private readonly config: MatchConfig,
    private readonly workingFiles: string[],
  ) {}

  /** The loop's skills, or null when it has none. A loop re-entering a
   * named session starts with that session's active skills. */
  /** A loop listing `load_skill` without a `skills` option: every call
   * answers `skill_registry_unavailable`. */
  static none(): LoopSkills {
    return new LoopSkills(null, matchConfig(null), []);
  }

  static read(rt: Runtime, options: HDict, sessionId: string | null): LoopSkills | null {
    const registry = skillsOption(options.get("skills"));
    if (registry === null) return null;
    const s = new LoopSkills(registry, matchConfig(options.get("skill_match")), strList(options.get("working_files")));
    const names = sessionId === null ? undefined : rt.slot(SESSION_ACTIVE).get(sessionId);
    for (const n of names ?? []) {
      const entry = findSkill(registry, n);
      if (entry) s.active.push({ entry, prompt: null });
    }
    return s;
  }

  /** Remember the active set for the next loop of this session. */
  save(rt: Runtime, sessionId: string): void {
    rt.slot(SESSION_ACTIVE).set(sessionId, this.active.map((a) => str(a.entry.get("name"))));
  }

  /** Turn preflight: match on the first turn, and on every turn when not
   * sticky; then activate and deactivate with their events and hooks. */
  async preflight(host: SkillHost, ctx: CallContext, iteration: number): Promise<void> {
    await this.match(host, ctx, iteration);
    // Skills restored from the session or promoted by `load_skill` since
    // the last turn are active too.
    await this.syncServers(host, ctx);
  }

  private async match(host: SkillHost, ctx: CallContext, iteration: number): Promise<void> {
    if (this.registry === null || (iteration > 0 && this.config.sticky)) return;
    const c = this.config;
    if (c.strategy !== "metadata" && !this.warned) {
      this.warned = true;
      ctx.err(`warning: skill_match strategy "${c.strategy}" needs a host bridge, which this runtime does not have; using metadata scoring\n`);
    }
    const prompt = latestUserText(host.messages);
    const tokens = prompt
      .split(/[^A-Za-z0-9]+/)
      .filter((t) => t.length > 2)
      .map((t) => t.toLowerCase());
    const candidates = skillEntries(this.registry)
      .filter((e) => e.get("disable_model_invocation") !== true)
      .map((e) => score(e, prompt, tokens, this.workingFiles))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score);
    await this.emit(host, ctx, "skill_matched", `${candidates.length} skill candidate(s)`, {
      strategy: c.strategy,
      iteration,
      reassess: iteration > 0,
      candidates: candidates.map((x) => HDict.of({ name: str(x.entry.get("name")), score: float(x.score), reason: x.reason })),
      working_files: this.workingFiles,
    });
    const next = candidates.slice(0, c.topN);
    const names = (xs: readonly { entry: HDict }[]) => xs.map((x) => str(x.entry.get("name")));
    const before = names(this.active);
    const after = names(next);
    if (before.length === after.length && before.every((n, i) => n === after[i])) return;
    for (const a of this.active) {
      const name = str(a.entry.get("name"));
      if (after.includes(name)) continue;
      await this.emit(host, ctx, "skill_deactivated", name, { name, iteration });
      await this.hook(ctx, a.entry, "on_deactivate");
    }
    const kept = this.active.filter((a) => after.includes(str(a.entry.get("name"))));
    for (const x of next) {
      const name = str(x.entry.get("name"));
      if (before.includes(name)) continue;
      const allowed = strList(x.entry.get("allowed_tools"));
      await this.emit(host, ctx, "skill_activated", name, {
        name,
        description: str(x.entry.get("description")),
        iteration,
        score: float(x.score),
        reason: x.reason,
        allowed_tools: allowed,
      });
      if (allowed.length > 0) await this.emit(host, ctx, "skill_scope_tools", name, { name, allowed_tools: allowed });
      await this.hook(ctx, x.entry, "on_activate");
    }
    // The new set in ranking order; a kept skill keeps a promoted body.
    this.active = next.map((x) => kept.find((a) => a.entry === x.entry) ?? { entry: x.entry, prompt: null });
  }

  /**
   * mcp.md §2.4: `mcp_ensure_active` each server of a newly active skill
   * (`skill_mcp_bound`; a failure is a warning and `skill_mcp_bind_failed`,
   * and the loop goes on), `mcp_release` those of a skill no longer active
   * (`skill_mcp_unbound`). Keep-alive expiry needs no sweep here: the
   * registry's timers disconnect released servers.
   */
  private async syncServers(host: SkillHost, ctx: CallContext): Promise<void> {
    const active = new Map(this.active.map((a) => [str(a.entry.get("name")), a.entry]));
    const wanted = [...active].filter(([name, e]) => !this.bound.has(name) && skillServers(e).length > 0);
    const gone = [...this.bound.keys()].filter((name) => !active.has(name));
    if (wanted.length === 0 && gone.length === 0) return;
    const registry = (await import("../../mcp/registry")).MCP_REGISTRY;
    const servers = ctx.runtime.slot(registry);
    for (const skill of gone) {
      for (const server of this.bound.get(skill)!) {
        servers.release(server);
        await this.emit(host, ctx, "skill_mcp_unbound", `${skill}: ${server}`, { skill, server });
      }
      this.bound.delete(skill);
    }
    for (const [skill, entry] of wanted) {
      const ok: string[] = [];
      for (const server of skillServers(entry)) {
        try {
          await servers.ensureActive(server, ctx.signal);
          ok.push(server);
          await this.emit(host, ctx, "skill_mcp_bound", `${skill}: ${server}`, { skill, server });
        } catch (e) {
          if (ctx.signal.aborted) throw e;
          const error = e instanceof HarnError ? (e.kind === "thrown" ? display(e.value) : e.message) : e instanceof Error ? e.message : String(e);
          ctx.err(`warning: skill '${skill}' could not bind MCP server '${server}': ${error}\n`);
          await this.emit(host, ctx, "skill_mcp_bind_failed", `${skill}: ${server}`, { skill, server, error });
        }
      }
      this.bound.set(skill, ok);
    }
  }

  /** The loop ended: give back every server it bound (no events: the
   * transcript is final). A session resumed later binds them again. */
  async releaseServers(rt: Runtime): Promise<void> {
    if (this.bound.size === 0) return;
    const servers = rt.slot((await import("../../mcp/registry")).MCP_REGISTRY);
    for (const list of this.bound.values()) for (const server of list) servers.release(server);
    this.bound.clear();
  }

  private async emit(host: SkillHost, ctx: CallContext, kind: string, text: string, metadata: Record<string, Value>): Promise<void> {
    host.record(runtimeEvent(ctx.runtime, kind, "system", "internal", text, HDict.of(metadata)));
    await emitAgentEvent(ctx, host.sessionId, HDict.of({ type: kind, session_id: host.sessionId, ...metadata }));
  }

  private async hook(ctx: CallContext, entry: HDict, key: string): Promise<void> {
    const fn = entry.get(key);
    if (!isCallable(fn)) return;
    const r = ctx.call(fn, []);
    if (isPromise<Value>(r)) await r;
  }

  /** The `## Active skills` section, or null with no active skill. */
  systemSection(): string | null {
    if (this.active.length === 0) return null;
    const blocks = this.active.map((a) => {
      const e = a.entry;
      const lines = [`### ${str(e.get("name"))}`];
      const description = str(e.get("description")).trim();
      const when = str(e.get("when_to_use")).trim();
      const tools = strList(e.get("allowed_tools"));
      const prompt = (a.prompt ?? str(e.get("prompt"))).trim();
      if (description !== "") lines.push(description);
      if (when !== "") lines.push(`When to use: ${when}`);
      if (tools.length > 0) lines.push(`Scoped tools: ${tools.join(", ")}`);
      if (prompt !== "") lines.push("", prompt);
      return lines.join("\n");
    });
    return `## Active skills\n\n${blocks.join("\n\n")}`;
  }

  /** The tools the model is shown: narrowed while an active skill lists
   * `allowed_tools` (runtime tools and `load_skill` always stay). */
  scope(tools: readonly ToolSpec[]): readonly ToolSpec[] {
    const allowed = this.active.flatMap((a) => strList(a.entry.get("allowed_tools")));
    if (allowed.length === 0) return tools;
    const names = new Set(allowed.filter((t) => !t.startsWith("namespace:")));
    const tags = new Set(allowed.filter((t) => t.startsWith("namespace:")).map((t) => t.slice("namespace:".length)));
    return tools.filter((t) => t.name === LOAD_SKILL || t.name.startsWith("__harn_") || names.has(t.name) || (t.namespace != null && tags.has(t.namespace)));
  }

  /** The `load_skill` tool's implementation for a loop in `sessionId`. */
  loadSkillTool(host: SkillHost): BuiltinTool {
    return (args, ctx) => this.loadSkill(host, args, ctx);
  }

  private loadSkill(host: SkillHost, args: HDict, ctx: CallContext): string {
    const raw = args.get("name");
    const id = typeof raw === "string" ? raw : raw === null ? "" : display(raw);
    const entry = this.registry === null ? null : findSkill(this.registry, id);
    const sig = entry ? signatureOf(entry) : { signed: false, trusted: false, fingerprint: null, problem: null };
    host.record(
      runtimeEvent(ctx.runtime, "skill.loaded", "system", "internal", id, HDict.of({ skill_id: id, signer_fingerprint: sig.fingerprint, signed: sig.signed, trusted: sig.trusted })),
    );
    const failure = (error: string, message: string) => JSON.stringify({ error, skill: id, message }, null, 2);
    if (this.registry === null) return failure("skill_registry_unavailable", "load_skill requires agent_loop to receive a `skills:` registry");
    if (entry === null) return failure("skill_not_found", `skill '${id}' is not in the skills registry`);
    if (entry.get("disable_model_invocation") === true) return failure("skill_model_invocation_disabled", `skill '${id}' is gated to explicit user invocation`);
    const env = ctx.runtime.env[REQUIRE_SIGNED_ENV];
    const required = args.get("require_signature") === true || (env !== undefined && env !== "" && env !== "0" && env !== "false") || strList(entry.get("trusted_signers")).length > 0;
    if (required && !sig.signed) return failure("UnsignedSkillError", sig.problem === null ? `skill '${id}' is missing a valid signature` : `skill '${id}': ${sig.problem}`);
    if (required && !sig.trusted) return failure("UntrustedSignerError", `skill '${id}' was signed by untrusted signer ${sig.fingerprint ?? ""}`);
    const body = substitute(skillBody(entry), { args: [], skillDir: skillDirOf(entry), sessionId: host.sessionId });
    const name = str(entry.get("name"));
    const at = this.active.findIndex((a) => str(a.entry.get("name")) === name);
    if (at >= 0) this.active[at] = { entry: this.active[at]!.entry, prompt: body };
    else this.active.push({ entry, prompt: body });
    return body;
  }
}

/** The `load_skill` tool the model sees (§2.6). */
export function loadSkillSpec(): ToolSpec {
  return {
    name: LOAD_SKILL,
    description: "Promote a skill's full body into the next turn's context. Accepts the skill id returned by the always-on catalog.",
    parameters: HDict.of({ name: HDict.of({ type: "string" }), require_signature: HDict.of({ type: "boolean", required: false }) }),
    handler: null,
    executor: "harn",
    longRunning: false,
    declared: false,
    builtin: LOAD_SKILL,
    closedSchema: true,
  };
}
