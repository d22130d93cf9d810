/**
 * Handle lifecycles (extensions.md §4), the analysis behind
 * `long-running-without-cleanup`, `long-running-handle-discarded` and
 * `cleanup-cancels-wrong-handle`: each long-running handle is followed
 * along every path of its body's control-flow graph.
 *
 * A handle is *started* by a long-running call (`walk_dir(.., {long_running:
 * true})`, `tools.run_command({.., background: true})`, …) or by a call to a
 * user function that returns one it started (summaries.ts): the obligation
 * moves to the call site. It is *settled* on a path when it is cancelled or
 * awaited (`cancel_handle`, `tools.cancel_handle`,
 * `hostlib_tools_cancel_handle`, `handle_wait`, a feedback drain or an
 * `agent_loop` that adopts it), returned, thrown or yielded, stored into an
 * outer variable or a structure that escapes, passed to a user function
 * that settles that parameter (same file or imported; one the linter cannot
 * see is trusted), or captured by a closure that cancels it. A `defer`
 * that cancels it — directly or through such a function — *covers* every
 * exit after it registers; `finally` bodies lie on every path through their
 * `try`. Logging a handle, capturing it in a closure that does not cancel
 * it, or overwriting the variable that holds it settles nothing. A handle
 * still unsettled when its variable goes out of scope, is overwritten, or
 * the body exits, leaks: the finding names the exit line of that path.
 *
 * The option value counts when it is statically `true` (long-running-
 * calls.ts `classifyOptions`); one that cannot be known gives findings of
 * severity `info`.
 *
 * All three rules read one analysis per file (RuleContext.memo); the
 * visitors that collect its input run with `long-running-without-cleanup`.
 */
import type { ForIn, FunctionCall, Node, Pattern } from "@harn/parser";
import { forEachChild as forEachChildShallow, mentions, patternNames, unwrapAttributes } from "../ast-util";
import type { CallNode, Cfg, CfgElem, CfgOwner, ScopeFrame } from "../cfg/cfg";
import { solveForward, replay, type ForwardAnalysis } from "../cfg/dataflow";
import { ADOPTING_BUILTINS, classifyOptions, HANDLE_TRIGGERS, startingCallee, type Flag } from "../long-running-calls";
import type { BlockInfo, MessageTemplate, Report, Rule, RuleContext, Severity, Visitors } from "../types";
import { handleSummaries, settlesArg, type HandleSummary, type SettlesArg } from "./summaries";
import { clearArray } from "../reuse";

export const WITHOUT_CLEANUP = "long-running-without-cleanup";
export const DISCARDED = "long-running-handle-discarded";
export const WRONG_HANDLE = "cleanup-cancels-wrong-handle";

const HELP = "cancel `{name}` on every path: `defer { cancel_handle({name}) }` right after it starts, or in a `finally`";
const UNKNOWN = " (the background option is not known statically; this applies if it can be true)";

export const LEAK_MESSAGES: Readonly<Record<string, MessageTemplate>> = {
  leak: { message: "`{callee}` starts long-running work without a defer/finally cleanup path: `{name}` {leak}", help: HELP },
  mayLeak: { message: "`{callee}` may start long-running work without a defer/finally cleanup path: `{name}` {leak}", help: HELP + UNKNOWN },
};
export const DISCARDED_MESSAGES: Readonly<Record<string, MessageTemplate>> = {
  discarded: {
    message: "the handle returned by `{callee}` is discarded, so its background work can never be cancelled or awaited",
    help: "bind it (`let h = {callee}(...)`) and cancel it: `defer { cancel_handle(h) }`",
  },
  mayDiscard: {
    message: "the handle `{callee}` may return is discarded, so its background work could never be cancelled or awaited",
    help: "bind it (`let h = {callee}(...)`) and cancel it: `defer { cancel_handle(h) }`" + UNKNOWN,
  },
};
export const WRONG_HANDLE_MESSAGES: Readonly<Record<string, MessageTemplate>> = {
  wrong: {
    message: "`{callee}` {starts} long-running work, but the cleanup at line {line} cancels {other} instead of `{name}`",
    help: "cancel `{name}` in that defer or finally block: `cancel_handle({name})`",
  },
};

interface Finding {
  rule: string;
  report: Report;
}

/** What the walk collects for the analysis. */
interface Input {
  /** Start sites and how surely they start background work. */
  flags: Map<CallNode, { flag: Flag; callee: string }>;
  owners: Set<CfgOwner>;
}

const INPUT_KEY = {};
const RESULT_KEY = {};
const SUMMARY_KEY = {};

const OWNER_KINDS = new Set(["Pipeline", "FnDecl", "ToolDecl", "OverrideDecl", "Closure"]);

function input(ctx: RuleContext): Input {
  return ctx.memo(INPUT_KEY, () => ({ flags: new Map(), owners: new Set() }));
}

/** Summaries of this file's functions and those it imports. */
function summaries(ctx: RuleContext): Map<string, HandleSummary> {
  return ctx.memo(SUMMARY_KEY, () => {
    const all = new Map(ctx.project.importedHandles);
    for (const [name, s] of handleSummaries(ctx.program, ctx.project.importedHandles, ctx.project.extraBuiltins)) all.set(name, s);
    return all;
  });
}

const FNS_KEY = {};

/** Names of the file's top-level functions. */
function topLevelFns(ctx: RuleContext): ReadonlySet<string> {
  return ctx.memo(FNS_KEY, () => {
    const out = new Set<string>();
    for (const item of ctx.program.items) {
      const n = unwrapAttributes(item);
      if (n.kind === "FnDecl" || n.kind === "ToolDecl") out.add(n.name);
    }
    return out;
  });
}

/** The visitors of `long-running-without-cleanup`: collect the start sites
 * (with the constants in scope at each) and the bodies to analyse; report
 * once the walk is done. */
export function handleVisitors(ctx: RuleContext): Visitors {
  let inp = input(ctx);
  const owners: CfgOwner[] = [];
  /** The blocks open at this point, and in each the constants bound so
   * far (name -> value, null: not known; a map only once a block binds
   * one). Parameters and loop variables are read from the block's owner
   * when a name is looked up: few files start anything long-running, so
   * scopes are built for the lookups, not for every block. */
  const blocks: BlockInfo[] = [];
  const consts: (Map<string, Node | null> | null)[] = [];
  const lookup = (name: string): Node | null | undefined => {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const m = consts[i]!;
      if (m !== null && m.has(name)) return m.get(name);
      if (bindsName(blocks[i]!, name)) return null;
    }
    return undefined;
  };
  const site = (n: CallNode): void => {
    const owner = owners[owners.length - 1];
    if (!owner) return;
    const callee = startingCallee(n);
    let flag: Flag | null = null;
    if (callee !== null) flag = classifyOptions(n.args, lookup);
    // a call of a function that returns a handle it started: worked out
    // only for names a summary could exist for, and this file's own
    // functions summarised only for a call of one of them (their names
    // hide imported ones)
    else if (n.kind === "FunctionCall" && (topLevelFns(ctx).has(n.name) ? summaries(ctx) : ctx.project.importedHandles).get(n.name)?.returnsHandle) flag = "true";
    if (!flag) return;
    inp.flags.set(n, { flag, callee: callee ?? (n as FunctionCall).name });
    inp.owners.add(owner);
  };
  const bind = (pattern: Pattern, value: Node): void => {
    const top = consts.length - 1;
    if (top < 0) return;
    let m = consts[top]!;
    if (m === null) consts[top] = m = new Map();
    if (pattern.kind === "ident") m.set(pattern.name, value);
    else for (const name of patternNames(pattern)) m.set(name, null);
  };
  return {
    // made once per run (meta.reusable): a file starts afresh
    Program() {
      inp = input(ctx);
      clearArray(owners);
      clearArray(blocks);
      clearArray(consts);
    },
    Block(b) {
      blocks.push(b);
      consts.push(null);
      const o = b.owner;
      if (b.role === "program" || b.role === "parallel" || (b.role === "body" && OWNER_KINDS.has(o.kind))) owners.push(o as CfgOwner);
    },
    "Block:exit"(b) {
      blocks.pop();
      consts.pop();
      const o = b.owner;
      if (b.role === "program" || b.role === "parallel" || (b.role === "body" && OWNER_KINDS.has(o.kind))) owners.pop();
    },
    LetBinding: (n) => bind(n.pattern, n.value),
    // a `var` holding the options is read where the call is: its first value
    VarBinding: (n) => bind(n.pattern, n.value),
    FunctionCall: site,
    MethodCall: site,
    finalize() {
      for (const f of results(ctx)) if (f.rule === WITHOUT_CLEANUP) ctx.report(f.report);
    },
  };
}

/** Does block `b` bind `name` on entry (a parameter, a loop variable)?
 * Such names hold no known constant. */
function bindsName(b: BlockInfo, name: string): boolean {
  const o = b.owner;
  if (b.role === "body" && (o.kind === "FnDecl" || o.kind === "ToolDecl" || o.kind === "Closure")) return o.params.some((p) => p.name === name);
  if (b.role === "body" && o.kind === "Pipeline") return o.params.includes(name);
  if (b.role === "loop" && o.kind === "ForIn") return patternNames(o.pattern).includes(name);
  return false;
}

/** A rule that reports its share of the analysis (the analysis runs with
 * `long-running-without-cleanup`'s visitors). */
function reportingRule(id: string, description: string, messages: Readonly<Record<string, MessageTemplate>>): Rule {
  return {
    id,
    meta: { severity: "warning", description, fixable: false, messages, reusable: true, triggers: HANDLE_TRIGGERS },
    create(ctx) {
      return {
        finalize() {
          for (const f of results(ctx)) if (f.rule === id) ctx.report(f.report);
        },
      };
    },
  };
}

export const longRunningHandleDiscarded = reportingRule(
  DISCARDED,
  "The handle of a long-running call is not bound, so it can never be cancelled or awaited",
  DISCARDED_MESSAGES,
);
export const cleanupCancelsWrongHandle = reportingRule(
  WRONG_HANDLE,
  "The only cleanup cancels a different handle than the one started",
  WRONG_HANDLE_MESSAGES,
);

// --- the analysis -----------------------------------------------------------

interface Site {
  call: CallNode;
  callee: string;
  flag: Flag;
  names: string[];
  aliases: Set<string>;
  home: ScopeFrame | null;
  leak: { line: number; text: string } | null;
}

const U0 = 1; // not started
const U1 = 2; // not started, a covering defer is registered
const L = 4; // running, unsettled
const S0 = 8; // settled
const S1 = 16; // covered by a registered defer

type State = readonly number[];

function results(ctx: RuleContext): Finding[] {
  return ctx.memo(RESULT_KEY, () => {
    const inp = input(ctx);
    const out: Finding[] = [];
    if (inp.owners.size === 0) return out;
    const all = summaries(ctx);
    const settles = settlesArg(all, ctx.project.extraBuiltins, ctx.facts.knownFunctions);
    for (const owner of inp.owners) analyseOwner(ctx.cfg(owner), inp.flags, settles, out);
    return out;
  });
}

function ownerWord(o: CfgOwner): string {
  switch (o.kind) {
    case "Pipeline":
      return "pipeline";
    case "FnDecl":
      return "function";
    case "ToolDecl":
      return "tool";
    case "OverrideDecl":
      return "override";
    case "Closure":
      return "closure";
    case "Parallel":
      return "parallel body";
    case "Program":
      return "script";
  }
}

/** Does passing a value mentioning `names` to `c` settle it? */
function handsOver(c: CallNode, names: ReadonlySet<string>, settles: SettlesArg): boolean {
  return c.args.some((a, i) => settles(c, i) && mentions(a, names));
}

/** A call in a statement list (not inside closures) that settles one of
 * `names`: a cancel, a wait, a settling user function. */
function settlesIn(body: readonly Node[], names: ReadonlySet<string>, settles: SettlesArg): boolean {
  let found = false;
  const visit = (x: Node): void => {
    if (found || x.kind === "Closure" || x.kind === "FnDecl" || x.kind === "ToolDecl") return;
    if ((x.kind === "FunctionCall" || x.kind === "MethodCall" || x.kind === "OptionalMethodCall") && handsOver(x, names, settles)) {
      found = true;
      return;
    }
    forEachChildShallow(x, visit);
  };
  body.forEach(visit);
  return found;
}

function analyseOwner(g: Cfg, flags: Input["flags"], settles: SettlesArg, out: Finding[]): void {
  const sites: Site[] = [];
  const siteOf = new Map<CallNode, number>();
  const seen = new Set<CallNode>();

  // 1. start sites, and handles nobody keeps
  for (const b of g.blocks) {
    for (const e of b.elems) {
      if (e.k !== "call" || seen.has(e.node)) continue;
      const f = flags.get(e.node);
      if (!f) continue;
      seen.add(e.node);
      const d = e.dest;
      const discarded = d.k === "discard" || d.k === "use" || (d.k === "arg" && !d.call.args.some((a, i) => a === e.node && settles(d.call, i))) || (d.k === "bind" && d.names.length === 0);
      if (discarded) {
        out.push({ rule: DISCARDED, report: { node: e.node, messageId: f.flag === "true" ? "discarded" : "mayDiscard", data: { callee: f.callee }, severity: f.flag === "true" ? "warning" : "info" } });
      } else if (d.k === "bind") {
        siteOf.set(e.node, sites.length);
        sites.push({ call: e.node, callee: f.callee, flag: f.flag, names: d.names, aliases: new Set(d.names), home: d.home, leak: null });
      }
    }
  }
  if (sites.length === 0) return;

  // 2. aliases, flow-insensitively: `let id = h.handle_id` keeps `h` alive
  // through `id` (cancel_handle(id) settles it), `for j in jobs` through `j`
  const bindings: { value: Node; pattern: Pattern }[] = [];
  for (const b of g.blocks) {
    for (const e of b.elems) if (e.k === "bind" && e.node.kind !== "Assignment") bindings.push(e.node);
  }
  for (const f of loopsOf(g.owner)) bindings.push({ value: f.iterable, pattern: f.pattern });
  for (let changed = true; changed; ) {
    changed = false;
    for (const s of sites) {
      for (const n of bindings) {
        if (n.value === s.call || !mentions(n.value, s.aliases)) continue;
        for (const name of patternNames(n.pattern)) {
          if (!s.aliases.has(name)) {
            s.aliases.add(name);
            changed = true;
          }
        }
      }
    }
  }

  const settleWhere = (st: State, test: (s: Site) => boolean): State => {
    let next: number[] | null = null;
    sites.forEach((s, i) => {
      const v = st[i]!;
      if (!(v & L) || !test(s)) return;
      next ??= [...st];
      next[i] = (v & ~L) | S0;
    });
    return next ?? st;
  };

  /** `h = …` overwrites a handle variable: the handle it held is lost. */
  const overwrites = (e: CfgElem, s: Site): boolean =>
    e.k === "bind" &&
    e.node.kind === "Assignment" &&
    e.node.target.kind === "Identifier" &&
    s.names.includes(e.node.target.name) &&
    e.node.value !== s.call &&
    !mentions(e.node.value, s.aliases);

  const analysis: ForwardAnalysis<State> = {
    entry: sites.map(() => U0),
    join: (a, b) => a.map((v, i) => v | b[i]!),
    equals: (a, b) => a.every((v, i) => v === b[i]),
    follows: (edge) => edge.kind !== "retrySkip",
    transfer(e, st) {
      switch (e.k) {
        case "call": {
          const i = siteOf.get(e.node);
          if (i !== undefined) {
            const v = st[i]!;
            // a defer registered earlier covers the new handle at once
            let w = 0;
            if (v & (U0 | L | S0)) w |= L;
            if (v & (U1 | S1)) w |= S1;
            const next = [...st];
            next[i] = w;
            return next;
          }
          const c = e.node;
          if (c.kind === "FunctionCall" && ADOPTING_BUILTINS.has(c.name) && settles(c, 0)) return settleWhere(st, () => true);
          return settleWhere(st, (s) => handsOver(c, s.aliases, settles));
        }
        case "bind": {
          if (e.node.kind !== "Assignment") return st;
          // overwritten: reported by the replay below, then out of the way
          let next = st;
          sites.forEach((s, i) => {
            if (!overwrites(e, s) || !(next[i]! & L)) return;
            if (next === st) next = [...st];
            (next as number[])[i] = (next[i]! & ~L) | S0;
          });
          // stored into an outer variable or a structure
          return settleWhere(next, (s) => e.node.value !== s.call && mentions(e.node.value, s.aliases) && !overwrites(e, s));
        }
        case "value":
          return settleWhere(st, (s) => mentions(e.node, s.aliases));
        case "nil":
          // the variable holds no handle on this path
          return settleWhere(st, (s) => s.names.includes(e.name));
        case "capture":
          // a closure that cancels the handle settles it; one that only
          // reads it does not
          return settleWhere(st, (s) => (e.node.kind === "Parallel" ? mentions(e.node, s.aliases) : settlesIn(e.node.body, s.aliases, settles)));
        case "forEach": {
          // `for j in jobs { cancel_handle(j) }` settles every handle in
          // `jobs`, however many there are (none: nothing to settle)
          const loop = e.node;
          const names = new Set(patternNames(loop.pattern));
          if (names.size === 0 || !settlesIn(loop.body, names, settles)) return st;
          return settleWhere(st, (s) => mentions(loop.iterable, s.aliases));
        }
        case "defer": {
          let next: number[] | null = null;
          sites.forEach((s, i) => {
            if (!settlesIn(e.node.body, s.aliases, settles)) return;
            const v = st[i]!;
            let w = 0;
            if (v & (U0 | U1)) w |= U1;
            if (v & (L | S0 | S1)) w |= S1;
            next ??= [...st];
            next[i] = w;
          });
          return next ?? st;
        }
        case "scopeEnd": {
          let next: number[] | null = null;
          sites.forEach((s, i) => {
            if (s.home !== e.frame) return;
            next ??= [...st];
            next[i] = U0;
          });
          return next ?? st;
        }
        case "exit":
          return st;
      }
    },
  };

  const states = solveForward(g, analysis);
  const word = ownerWord(g.owner);
  const leakAt = (s: Site, line: number, text: string): void => {
    if (!s.leak || line < s.leak.line) s.leak = { line, text };
  };
  replay(g, analysis, states, (e, st) => {
    if (e.k === "bind") {
      sites.forEach((s, i) => {
        if (st[i]! & L && overwrites(e, s)) leakAt(s, e.line, `is still running when it is overwritten at line ${e.line}`);
      });
      return;
    }
    if (e.k !== "exit" && e.k !== "scopeEnd") return;
    sites.forEach((s, i) => {
      if (!(st[i]! & L)) return;
      if (e.k === "scopeEnd" && s.home !== e.frame) return;
      leakAt(s, e.line, leakText(e, word));
    });
  });

  for (const s of sites) {
    if (!s.leak) continue;
    const name = s.names[0]!;
    const severity: Severity = s.flag === "true" ? "warning" : "info";
    const wrong = g.cleanupCancels.length > 0 && !g.cleanupCancels.some((c) => cancelMentions(c.call, s.aliases));
    if (wrong) {
      const c = g.cleanupCancels[0]!;
      const other = firstIdentifier(c.call.args);
      out.push({
        rule: WRONG_HANDLE,
        report: {
          node: s.call,
          severity,
          messageId: "wrong",
          data: { callee: s.callee, starts: s.flag === "true" ? "starts" : "may start", line: c.line, other: other ? `\`${other}\`` : "a different handle", name },
        },
      });
      continue;
    }
    out.push({
      rule: WITHOUT_CLEANUP,
      report: { node: s.call, severity, messageId: s.flag === "true" ? "leak" : "mayLeak", data: { callee: s.callee, name, leak: s.leak.text } },
    });
  }
}

/** The `for` loops of an owner body, defer bodies included, nested owners
 * (closures, functions) excluded. */
function loopsOf(owner: CfgOwner): ForIn[] {
  const out: ForIn[] = [];
  const visit = (x: Node): void => {
    if (x.kind === "Closure" || x.kind === "FnDecl" || x.kind === "ToolDecl" || x.kind === "Pipeline") return;
    if (x.kind === "Parallel") return;
    if (x.kind === "ForIn") out.push(x);
    forEachChildShallow(x, visit);
  };
  const body = owner.kind === "Program" ? owner.items : owner.body;
  body.forEach(visit);
  return out;
}

function leakText(e: Extract<CfgElem, { k: "exit" | "scopeEnd" }>, owner: string): string {
  const n = e.line;
  if (e.k === "exit") {
    switch (e.reason) {
      case "end":
        return `is still running when the ${owner} ends at line ${n}`;
      case "return":
        return `is still running when \`return\` at line ${n} leaves the ${owner}`;
      case "throw":
        return `is still running when \`throw\` at line ${n} leaves the ${owner}`;
      case "exception":
        return `is still running when a call inside the \`try\` at line ${n} fails and leaves the ${owner}`;
    }
  }
  switch (e.reason) {
    case "break":
      return `is still running when \`break\` at line ${n} leaves the loop`;
    case "continue":
      return `is still running when \`continue\` at line ${n} starts the next iteration`;
    case "loopEnd":
      return `is still running at the end of the loop iteration (line ${n})`;
    case "return":
      return `is still running when \`return\` at line ${n} ends the spawned task`;
    case "throw":
      return `is still running when \`throw\` at line ${n} leaves its block`;
    case "exception":
      return `is still running when a call inside the \`try\` at line ${n} fails and leaves its block`;
    default:
      return `is still running when its block ends at line ${n}`;
  }
}

function cancelMentions(call: CallNode, aliases: ReadonlySet<string>): boolean {
  const args = call.kind === "FunctionCall" && call.name === "host_tool_call" ? call.args.slice(1) : call.args;
  return args.some((a) => mentions(a, aliases));
}

function firstIdentifier(args: Node[]): string | null {
  let found: string | null = null;
  const visit = (x: Node): void => {
    if (found) return;
    if (x.kind === "Identifier") {
      found = x.name;
      return;
    }
    forEachChildShallow(x, visit);
  };
  args.forEach(visit);
  return found;
}
