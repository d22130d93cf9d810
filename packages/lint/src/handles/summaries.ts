/**
 * What a user function does with long-running handles, for the handle
 * analysis of its callers (checked-handles.ts): which parameters it settles
 * (cancels, awaits, or hands on: returns it, or passes it to a function
 * that settles it), and whether it returns a handle it started, so that a
 * call to it starts long-running work for its caller.
 *
 * Computed per module from its top-level `fn`/`tool` declarations, to a
 * fixed point over calls between them; imported modules are summarised
 * once by the run's module graph (project.ts), which keeps only these
 * summaries, never the trees. Flow-insensitive on purpose: a function that
 * cancels its parameter on some path is trusted to (the analysis of the
 * function itself reports the paths where it does not).
 */
import { walkChildren, type FnDecl, type FunctionCall, type MethodCall, type Node, type Program, type ToolDecl } from "@harn/parser";
import { childVisitor, someIdentifier, unwrapAttributes } from "../ast-util";
import { isBuiltinName } from "../builtins";
import {
  ADOPTING_BUILTINS,
  classifyOptions,
  isCancelCall,
  SETTLING_BUILTINS,
  startingCallee,
  type Lookup,
} from "../long-running-calls";

export interface HandleSummary {
  /** Per parameter: a handle passed there is settled by the function. */
  readonly settles: readonly boolean[];
  /** The function returns a long-running handle it started (or got from
   * another such function): its caller owns it. */
  readonly returnsHandle: boolean;
}

type Fn = FnDecl | ToolDecl;
const NO_BUILTINS: ReadonlySet<string> = new Set();

/** Bodies a function's own statements include: not closures or nested
 * declarations (they run some other time, if at all). */
function walkOwn(body: readonly Node[], visit: (n: Node) => void): void {
  const go = (n: Node): void => {
    if (n.kind === "Closure" || n.kind === "FnDecl" || n.kind === "ToolDecl" || n.kind === "Pipeline") return;
    visit(n);
    walkChildren(n, children);
  };
  const children = childVisitor(go);
  body.forEach(go);
}

/** Does a call settle what is passed as its `i`-th argument? */
export type SettlesArg = (call: Node, i: number) => boolean;

/**
 * Settles-by-argument for calls in a module: cancels and waits settle, a
 * summarised function settles what its summary says, another builtin does
 * not, and a function the linter cannot see (a closure in a variable, a
 * parameter) is trusted to.
 */
export function settlesArg(
  summaries: ReadonlyMap<string, HandleSummary>,
  extraBuiltins: ReadonlySet<string>,
  userNames: { has(name: string): boolean },
): SettlesArg {
  return (call, i) => {
    if (isCancelCall(call)) return call.kind !== "FunctionCall" || call.name !== "host_tool_call" || i > 0;
    if (call.kind !== "FunctionCall") return false;
    const s = summaries.get(call.name);
    if (s) return s.settles[i] ?? false;
    if (SETTLING_BUILTINS.has(call.name) || ADOPTING_BUILTINS.has(call.name)) return true;
    if (userNames.has(call.name)) return false;
    return !isBuiltinName(call.name, extraBuiltins);
  };
}

/** Summaries of the top-level functions of `program`, given those of the
 * functions it imports (by the names it imports them as). */
export function handleSummaries(
  program: Program,
  imported: ReadonlyMap<string, HandleSummary> = new Map(),
  extraBuiltins: ReadonlySet<string> = NO_BUILTINS,
): Map<string, HandleSummary> {
  const fns = new Map<string, Fn>();
  for (const item of program.items) {
    const n = unwrapAttributes(item);
    if (n.kind === "FnDecl" || n.kind === "ToolDecl") fns.set(n.name, n);
  }
  if (fns.size === 0) return new Map();
  const all = new Map<string, HandleSummary>(imported);
  for (const [name, fn] of fns) all.set(name, { settles: fn.params.map(() => false), returnsHandle: false });
  const settles = settlesArg(all, extraBuiltins, fns);
  // each function's body is walked once; the rounds look at what it holds.
  // Each round can only turn false into true: at most one round per flag.
  // A summary depends on others only through calls of this module's
  // functions: without any, the first round is the last.
  const bodies = new Map<string, OwnParts>();
  let callsOwn = false;
  for (const [name, fn] of fns) {
    const own = ownParts(fn);
    bodies.set(name, own);
    if (!callsOwn) callsOwn = own.calls.some((c) => c.kind === "FunctionCall" && fns.has(c.name));
  }
  for (let changed = true, rounds = 0; changed && rounds < (callsOwn ? 64 : 1); rounds++) {
    changed = false;
    for (const [name, fn] of fns) {
      const before = all.get(name)!;
      const next = summarise(fn, bodies.get(name)!, all, settles);
      if (next.returnsHandle !== before.returnsHandle || next.settles.some((v, i) => v !== before.settles[i])) {
        all.set(name, next);
        changed = true;
      }
    }
  }
  const out = new Map<string, HandleSummary>();
  for (const name of fns.keys()) out.set(name, all.get(name)!);
  return out;
}

/** What a summary looks at in a function's own statements, with the
 * identifier names each value mentions (anywhere in it, interpolated
 * expressions included: `mentions`' view), gathered once so that the
 * rounds and parameters test names rather than walk trees again. */
interface OwnParts {
  /** `let`/`var` bindings of one name, the last one of each name. */
  lets: Map<string, Node>;
  /** The names each binding's value mentions (the same keys, in order). */
  letNames: Map<string, string[]>;
  /** Values of its `return`s. */
  returns: Node[];
  returnNames: string[][];
  calls: (FunctionCall | MethodCall)[];
  /** Per call, per argument. */
  argNames: string[][][];
}

function ownParts(fn: Fn): OwnParts {
  const parts: OwnParts = { lets: new Map(), letNames: new Map(), returns: [], returnNames: [], calls: [], argNames: [] };
  const namesIn = (v: Node): string[] => {
    const out: string[] = [];
    someIdentifier(v, (name) => {
      out.push(name);
      return false;
    });
    return out;
  };
  walkOwn(fn.body, (n) => {
    if ((n.kind === "LetBinding" || n.kind === "VarBinding") && n.pattern.kind === "ident") {
      parts.lets.set(n.pattern.name, n.value);
      parts.letNames.set(n.pattern.name, namesIn(n.value));
    } else if (n.kind === "ReturnStmt" && n.value !== null) {
      parts.returns.push(n.value);
      parts.returnNames.push(namesIn(n.value));
    } else if (n.kind === "FunctionCall" || n.kind === "MethodCall") {
      parts.calls.push(n);
      parts.argNames.push(n.args.map(namesIn));
    }
  });
  return parts;
}

/** Does any of `names` belong to `set`? */
function anyIn(names: readonly string[], set: ReadonlySet<string>): boolean {
  for (let i = 0; i < names.length; i++) if (set.has(names[i]!)) return true;
  return false;
}

function summarise(fn: Fn, own: OwnParts, all: ReadonlyMap<string, HandleSummary>, settles: SettlesArg): HandleSummary {
  const { lets } = own;
  const lookup: Lookup = (name) => (lets.has(name) ? lets.get(name)! : undefined);
  const starts = (v: Node | undefined, depth = 0): boolean => {
    if (!v || depth > 8) return false;
    if (v.kind === "Identifier") return starts(lets.get(v.name), depth + 1);
    if (v.kind === "FunctionCall" && all.get(v.name)?.returnsHandle) return true;
    return startingCallee(v) !== null && classifyOptions((v as { args: Node[] }).args, lookup) === "true";
  };

  // a call of an adopting builtin settles every parameter
  const adopts = own.calls.some((n) => n.kind === "FunctionCall" && ADOPTING_BUILTINS.has(n.name) && !all.has(n.name));
  const result = fn.params.map((p) => {
    if (adopts) return true;
    // the parameter and what is derived from it (`let id = h.handle_id`)
    const aliases = new Set([p.name]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [name, mentioned] of own.letNames) {
        if (!aliases.has(name) && anyIn(mentioned, aliases)) {
          aliases.add(name);
          grew = true;
        }
      }
    }
    if (own.returnNames.some((ns) => anyIn(ns, aliases))) return true;
    return own.calls.some((n, k) => own.argNames[k]!.some((ns, i) => anyIn(ns, aliases) && settles(n, i)));
  });
  return { settles: result, returnsHandle: own.returns.some((v) => starts(v)) };
}

/** The names a module's summaries are imported as: selectively imported
 * names, and every summarised function of a wildcard import. */
export function importedSummaries(
  program: Program,
  moduleSummaries: (path: string) => ReadonlyMap<string, HandleSummary> | null,
): Map<string, HandleSummary> {
  const out = new Map<string, HandleSummary>();
  for (const item of program.items) {
    if (item.kind === "SelectiveImport") {
      const m = moduleSummaries(item.path);
      for (const name of item.names) {
        const s = m?.get(name);
        if (s) out.set(name, s);
      }
    } else if (item.kind === "ImportDecl") {
      for (const [name, s] of moduleSummaries(item.path) ?? []) out.set(name, s);
    }
  }
  return out;
}

