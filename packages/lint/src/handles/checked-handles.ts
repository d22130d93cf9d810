/**
 * Checked handle lifecycles (extensions.md §4): follow each long-running
 * handle along every path of its body's control-flow graph.
 *
 * A handle is *settled* on a path when it is cancelled, awaited
 * (`handle_wait`, a feedback drain, an `agent_loop` that adopts it),
 * returned, thrown, yielded, stored into a structure or an outer variable,
 * passed to a user function, or captured by a closure; a `defer` that
 * cancels it *covers* every exit after it registers, and `finally` bodies
 * lie on every path through their `try` anyway. A handle that is still
 * unsettled when its variable goes out of scope or the body exits leaks:
 * `long-running-without-cleanup` names the exit line of that path.
 *
 * The option value counts when it is statically `true`: a literal, a `let`
 * bound to one, a `let`-bound dict holding one (also spread into the
 * options). A flag whose value cannot be known gives findings of severity
 * `info`.
 *
 * All three rules read one analysis per file (RuleContext.memo); the
 * visitors that collect its input run with `long-running-without-cleanup`,
 * which is active whenever the checked mode is.
 */
import type { ForIn, FunctionCall, Node, Pattern } from "@harn/parser";
import { forEachChild as forEachChildShallow, mentions, patternNames } from "../ast-util";
import { isBuiltinName } from "../builtins";
import type { CallNode, Cfg, CfgElem, CfgOwner, ScopeFrame } from "../cfg/cfg";
import { solveForward, replay, type ForwardAnalysis } from "../cfg/dataflow";
import {
  FLAG_KEYS,
  entryKey,
  isCancelCall,
  isLongRunningCallee,
} from "../long-running-calls";
import type { Report, Rule, RuleContext, Severity, Visitors } from "../types";
import { LONG_RUNNING_HELP } from "../rules/long-running-without-cleanup";

export const DISCARDED = "long-running-handle-discarded";
export const WRONG_HANDLE = "cleanup-cancels-wrong-handle";
const WITHOUT_CLEANUP = "long-running-without-cleanup";

type Flag = "true" | "unknown";

interface Finding {
  rule: string;
  report: Report;
}

/** What the walk collects for the analysis. */
interface Input {
  flags: Map<FunctionCall, Flag>;
  owners: Set<CfgOwner>;
}

const INPUT_KEY = {};
const RESULT_KEY = {};

/** Builtins that take ownership of a handle passed to them. */
const SETTLING_BUILTINS = new Set(["cancel_handle", "handle_wait"]);
/** Builtins that adopt or drain every outstanding handle. */
const ADOPTING_BUILTINS = new Set(["agent_loop", "pending_feedback_drain"]);

const OWNER_KINDS = new Set(["Pipeline", "FnDecl", "ToolDecl", "OverrideDecl", "Closure"]);

function input(ctx: RuleContext): Input {
  return ctx.memo(INPUT_KEY, () => ({ flags: new Map(), owners: new Set() }));
}

/** The visitors of `long-running-without-cleanup` in checked mode. */
export function checkedHandleVisitors(ctx: RuleContext): Visitors {
  const inp = input(ctx);
  const owners: CfgOwner[] = [];
  /** Lexical `let` constants: name -> value (null: not a constant). */
  const consts: Map<string, Node | null>[] = [];
  const lookup = (name: string): Node | null | undefined => {
    for (let i = consts.length - 1; i >= 0; i--) {
      const m = consts[i]!;
      if (m.has(name)) return m.get(name);
    }
    return undefined;
  };
  const flagOf = (call: FunctionCall): Flag | null => classifyOptions(call.args, lookup);
  return {
    Block(b) {
      const m = new Map<string, Node | null>();
      consts.push(m);
      const o = b.owner;
      if (b.role === "program" || b.role === "parallel" || (b.role === "body" && OWNER_KINDS.has(o.kind))) {
        owners.push(o as CfgOwner);
      }
      if (b.role === "body" && (o.kind === "FnDecl" || o.kind === "ToolDecl" || o.kind === "Closure")) {
        for (const p of o.params) m.set(p.name, null);
      }
      if (b.role === "body" && o.kind === "Pipeline") for (const p of o.params) m.set(p, null);
      if (b.role === "loop" && o.kind === "ForIn") for (const n of patternNames(o.pattern)) m.set(n, null);
    },
    "Block:exit"(b) {
      consts.pop();
      const o = b.owner;
      if (b.role === "program" || b.role === "parallel" || (b.role === "body" && OWNER_KINDS.has(o.kind))) owners.pop();
    },
    LetBinding(n) {
      const m = consts[consts.length - 1];
      if (!m) return;
      if (n.pattern.kind === "ident") m.set(n.pattern.name, n.value);
      else for (const name of patternNames(n.pattern)) m.set(name, null);
    },
    VarBinding(n) {
      const m = consts[consts.length - 1];
      if (m) for (const name of patternNames(n.pattern)) m.set(name, null);
    },
    FunctionCall(n) {
      if (!isLongRunningCallee(n)) return;
      const flag = flagOf(n);
      const owner = owners[owners.length - 1];
      if (!flag || !owner) return;
      inp.flags.set(n, flag);
      inp.owners.add(owner);
    },
    finalize() {
      for (const f of results(ctx)) if (f.rule === WITHOUT_CLEANUP) ctx.report(f.report);
    },
  };
}

function reportingRule(id: string, description: string): Rule {
  return {
    id,
    severity: "warning",
    description,
    fixable: false,
    optIn: true,
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
);
export const cleanupCancelsWrongHandle = reportingRule(
  WRONG_HANDLE,
  "The only cleanup cancels a different handle than the one started",
);

// --- static option values ---------------------------------------------------

type Lookup = (name: string) => Node | null | undefined;

/** Is some argument's background flag statically true, unknown, or absent
 * / false (null)? */
export function classifyOptions(args: Node[], lookup: Lookup): Flag | null {
  let unknown = false;
  for (const a of args) {
    const f = classifyDict(a, lookup, 0);
    if (f === "true") return "true";
    if (f === "unknown") unknown = true;
  }
  return unknown ? "unknown" : null;
}

function resolveConst(n: Node, lookup: Lookup): Node | null {
  if (n.kind !== "Identifier") return n;
  const v = lookup(n.name);
  return v ?? null;
}

function classifyDict(n: Node, lookup: Lookup, depth: number): Flag | null {
  if (depth > 8) return null;
  const d = n.kind === "Identifier" ? resolveConst(n, lookup) : n;
  if (!d || d.kind !== "DictLiteral") return null;
  let unknown = false;
  for (const e of d.entries) {
    if (e.value.kind === "Spread") {
      const inner = e.value.expr;
      const f = classifyDict(inner, lookup, depth + 1);
      if (f === "true") return "true";
      if (f === "unknown" || (inner.kind === "Identifier" && resolveConst(inner, lookup) === null)) unknown = true;
      continue;
    }
    const key = entryKey(e);
    if (key === null || !FLAG_KEYS.has(key)) continue;
    const v = classifyValue(e.value, lookup);
    if (v === "true") return "true";
    if (v === "unknown") unknown = true;
  }
  return unknown ? "unknown" : null;
}

function classifyValue(n: Node, lookup: Lookup): Flag | null {
  switch (n.kind) {
    case "BoolLiteral":
      return n.value ? "true" : null;
    case "IntLiteral":
    case "FloatLiteral":
    case "StringLiteral":
    case "RawStringLiteral":
    case "NilLiteral":
    case "ListLiteral":
    case "DictLiteral":
      return null;
    case "Identifier": {
      const v = lookup(n.name);
      if (v === undefined || v === null) return "unknown";
      return v.kind === "Identifier" ? "unknown" : classifyValue(v, lookup);
    }
    default:
      return "unknown";
  }
}

// --- the analysis -----------------------------------------------------------

interface Site {
  call: FunctionCall;
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
    for (const owner of inp.owners) analyseOwner(ctx, ctx.cfg(owner), inp.flags, out);
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

function analyseOwner(ctx: RuleContext, g: Cfg, flags: Map<FunctionCall, Flag>, out: Finding[]): void {
  const sites: Site[] = [];
  const siteOf = new Map<CallNode, number>();
  const seen = new Set<CallNode>();
  const userFns = ctx.facts.knownFunctions;
  const extra = ctx.options.extraBuiltins;
  const isBuiltin = (name: string): boolean => !userFns.has(name) && isBuiltinName(name, extra);

  /** Does passing a value to this call hand the handle over? */
  const takesOwnership = (c: CallNode): boolean => {
    if (c.kind !== "FunctionCall") return true; // stored into / passed to an object
    if (isCancelCall(c) || SETTLING_BUILTINS.has(c.name) || ADOPTING_BUILTINS.has(c.name)) return true;
    return !isBuiltin(c.name);
  };

  // 1. creation sites, and handles nobody keeps
  for (const b of g.blocks) {
    for (const e of b.elems) {
      if (e.k !== "call" || e.node.kind !== "FunctionCall" || seen.has(e.node)) continue;
      const flag = flags.get(e.node);
      if (!flag) continue;
      seen.add(e.node);
      const d = e.dest;
      const discarded =
        d.k === "discard" || d.k === "use" || (d.k === "arg" && !takesOwnership(d.call)) || (d.k === "bind" && d.names.length === 0);
      if (discarded) {
        out.push({ rule: DISCARDED, report: discardedReport(e.node, flag) });
      } else if (d.k === "bind") {
        siteOf.set(e.node, sites.length);
        sites.push({ call: e.node, flag, names: d.names, aliases: new Set(d.names), home: d.home, leak: null });
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
          if (c.kind === "FunctionCall" && ADOPTING_BUILTINS.has(c.name) && !userFns.has(c.name)) {
            return settleWhere(st, () => true);
          }
          if (!takesOwnership(c)) return st;
          return settleWhere(st, (s) => c.args.some((a) => mentions(a, s.aliases)));
        }
        case "bind":
          if (e.node.kind !== "Assignment") return st;
          return settleWhere(st, (s) => e.node.value !== s.call && mentions(e.node.value, s.aliases));
        case "value":
          return settleWhere(st, (s) => mentions(e.node, s.aliases));
        case "capture":
          return settleWhere(st, (s) => mentions(e.node, s.aliases));
        case "forEach": {
          // `for j in jobs { cancel_handle(j) }` settles every handle in
          // `jobs`, however many there are (none: nothing to settle)
          const loop = e.node;
          const names = new Set(patternNames(loop.pattern));
          if (names.size === 0 || !settlesIn(loop.body, names)) return st;
          return settleWhere(st, (s) => mentions(loop.iterable, s.aliases));
        }
        case "defer": {
          let next: number[] | null = null;
          sites.forEach((s, i) => {
            if (!deferCancels(e.node.body, s.aliases)) return;
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

  /** Does a statement list hand one of `names` to a call that settles it? */
  function settlesIn(body: Node[], names: ReadonlySet<string>): boolean {
    let found = false;
    const visit = (x: Node): void => {
      if (found || x.kind === "Closure" || x.kind === "FnDecl" || x.kind === "ToolDecl") return;
      if ((x.kind === "FunctionCall" || x.kind === "MethodCall" || x.kind === "OptionalMethodCall") && takesOwnership(x)) {
        const args = x.kind === "FunctionCall" && x.name === "host_tool_call" ? x.args.slice(1) : x.args;
        if (args.some((a) => mentions(a, names))) {
          found = true;
          return;
        }
      }
      forEachChildShallow(x, visit);
    };
    body.forEach(visit);
    return found;
  }

  const states = solveForward(g, analysis);
  const word = ownerWord(g.owner);
  replay(g, analysis, states, (e, st) => {
    if (e.k !== "exit" && e.k !== "scopeEnd") return;
    sites.forEach((s, i) => {
      if (!(st[i]! & L)) return;
      if (e.k === "scopeEnd" && s.home !== e.frame) return;
      const text = leakText(e, word);
      if (!s.leak || e.line < s.leak.line) s.leak = { line: e.line, text };
    });
  });

  for (const s of sites) {
    if (!s.leak) continue;
    const name = s.names[0]!;
    const severity: Severity = s.flag === "true" ? "warning" : "info";
    const starts = s.flag === "true" ? "starts" : "may start";
    const wrong = g.cleanupCancels.length > 0 && !g.cleanupCancels.some((c) => cancelMentions(c.call, s.aliases));
    if (wrong) {
      const c = g.cleanupCancels[0]!;
      const other = firstIdentifier(c.call.args);
      const what = other ? `\`${other}\`` : "a different handle";
      out.push({
        rule: WRONG_HANDLE,
        report: {
          node: s.call,
          severity,
          message: `\`${s.call.name}\` ${starts} long-running work, but the cleanup at line ${c.line} cancels ${what} instead of \`${name}\``,
          help: `cancel \`${name}\` in that defer or finally block, for example \`cancel_handle(${name})\``,
        },
      });
      continue;
    }
    out.push({
      rule: WITHOUT_CLEANUP,
      report: {
        node: s.call,
        severity,
        message: `\`${s.call.name}\` ${starts} long-running work without a defer/finally cleanup path: \`${name}\` ${s.leak.text}`,
        help:
          s.flag === "true"
            ? LONG_RUNNING_HELP
            : `${LONG_RUNNING_HELP} (the background option is not known statically; this applies if it can be true)`,
      },
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

function discardedReport(call: FunctionCall, flag: Flag): Report {
  return {
    node: call,
    severity: flag === "true" ? "warning" : "info",
    message: `the handle returned by \`${call.name}\` is discarded, so its background work can never be cancelled or awaited`,
    help: `bind it (\`let h = ${call.name}(...)\`) and cancel it from a defer or finally block with \`cancel_handle(h)\``,
  };
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

/** A cancel call in a defer body (anywhere, `let` initializers included)
 * that names one of the aliases. */
function deferCancels(body: Node[], aliases: ReadonlySet<string>): boolean {
  let found = false;
  const visit = (x: Node): void => {
    if (found || x.kind === "Closure" || x.kind === "FnDecl") return;
    if (x.kind === "FunctionCall" && isCancelCall(x) && cancelMentions(x, aliases)) {
      found = true;
      return;
    }
    forEachChildShallow(x, visit);
  };
  body.forEach(visit);
  return found;
}

function cancelMentions(call: FunctionCall, aliases: ReadonlySet<string>): boolean {
  const args = call.name === "host_tool_call" ? call.args.slice(1) : call.args;
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
