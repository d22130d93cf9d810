/**
 * ``call target `NAME` is not defined or imported`` (spec/semantics.md
 * §10.1). Deliberately generous about what counts as defined, so a valid
 * script is never rejected: every name bound *anywhere* in the file (any
 * scope, before or after the call), every declaration, every name an
 * import can bring in (all top-level names of the imported module and,
 * transitively, of what it imports), the builtins, `Ok`/`Err`/`Some`/
 * `None` and `__`/`hostlib_`-prefixed names. An import that cannot be
 * resolved or parsed makes the whole file exempt.
 *
 * The check runs whenever every import of the file resolves, a file
 * without imports included (core-gaps.md §9.6); the runtime's `Undefined
 * builtin` is then left for names computed at run time.
 */
import type { FunctionCall, Node, Program } from "@harn/parser";
import { closestName, forEachChild, forEachPatternName } from "@harn/parser";
import type { Diagnostic } from "@harn/parser";
import { typeError, type CheckOptions } from "./diagnostic";
import { deadRightOperand } from "./literals";

/** Constructors every program has, and the names the interpreter handles
 * itself rather than as builtins (spec/semantics.md §7.5). */
const ALWAYS_KNOWN = new Set(["Ok", "Err", "Some", "None", "await", "cancel", "cancel_graceful", "is_cancelled", "exit"]);

export function checkCallTargets(program: Program, opts: CheckOptions, out: Diagnostic[]): void {
  const calls: FunctionCall[] = [];
  const bound = new Set<string>();
  const declared = new Set<string>();
  for (const item of program.items) collect(item, bound, declared, calls);
  if (calls.length === 0) return;
  const imported = importedNames(program, opts);
  if (imported === null) return;
  const known = (name: string): boolean =>
    ALWAYS_KNOWN.has(name) ||
    name.startsWith("__") ||
    name.startsWith("hostlib_") ||
    opts.builtins.has(name) ||
    declared.has(name) ||
    bound.has(name) ||
    imported.has(name);
  let candidates: string[] | null = null;
  for (const call of calls) {
    if (known(call.name)) continue;
    candidates ??= [...new Set([...opts.builtins, ...declared, ...imported])].sort();
    const closest = closestName(call.name, candidates);
    out.push(
      typeError(
        `call target \`${call.name}\` is not defined or imported${closest ? ` — did you mean \`${closest}\`?` : ""}`,
        call.nameSpan,
        closest ? `call \`${closest}\` instead, or define or import \`${call.name}\`` : `define \`${call.name}\` in this file, or import it: \`import { ${call.name} } from "..."\``,
      ),
    );
  }
}

/** Names a declaration statement introduces (for module exports too). */
function declName(n: Node): string | null {
  switch (n.kind) {
    case "FnDecl":
    case "ToolDecl":
    case "SkillDecl":
    case "StructDecl":
    case "EnumDecl":
    case "InterfaceDecl":
    case "TypeDecl":
    case "Pipeline":
    case "OverrideDecl":
      return n.name;
    case "EvalPackDecl":
      return n.bindingName;
    default:
      return null;
  }
}


/** Every identifier in a match pattern may be a binding. */
function patternIdentifiers(n: Node, out: Set<string>): void {
  if (n.kind === "Identifier") out.add(n.name);
  forEachChild(n, (c) => patternIdentifiers(c, out));
}

/** Every name bound anywhere in the file other than by a declaration
 * (parameters, `let`/`var`, loop, catch and match bindings, assignments). */
export function boundNames(program: Program): Set<string> {
  const bound = new Set<string>();
  const declared = new Set<string>();
  for (const item of program.items) collect(item, bound, declared, []);
  return bound;
}

/** How many times each name is declared (fn, struct, enum, ...), at any depth. */
export function declarationCounts(program: Program): Map<string, number> {
  const counts = new Map<string, number>();
  const visit = (n: Node): void => {
    const d = declName(n);
    if (d !== null) counts.set(d, (counts.get(d) ?? 0) + 1);
    forEachChild(n, visit);
  };
  for (const item of program.items) visit(item);
  return counts;
}

function collect(root: Node, bound: Set<string>, declared: Set<string>, calls: FunctionCall[]): void {
  const visit = (n: Node): void => {
    const d = declName(n);
    if (d !== null) declared.add(d);
    switch (n.kind) {
      case "FunctionCall":
        calls.push(n);
        break;
      case "FnDecl":
      case "ToolDecl":
      case "Closure":
        for (const p of n.params) bound.add(p.name);
        break;
      case "Pipeline":
        for (const p of n.params) bound.add(p);
        break;
      case "OverrideDecl":
        for (const p of n.params) bound.add(p);
        break;
      case "EnumDecl":
        for (const v of n.variants) declared.add(v.name);
        break;
      case "InterfaceDecl":
        for (const m of n.methods) declared.add(m.name);
        break;
      case "ImplBlock":
        for (const m of n.methods) declared.add(m.name);
        break;
      case "LetBinding":
      case "VarBinding":
      case "ForIn":
        forEachPatternName(n.pattern, (name) => bound.add(name));
        break;
      case "TryCatch":
        if (n.errorVar !== null) bound.add(n.errorVar);
        break;
      case "Parallel":
        if (n.variable !== null) bound.add(n.variable);
        break;
      case "SelectExpr":
        for (const c of n.cases) bound.add(c.variable);
        break;
      case "PipePlaceholder":
        bound.add(n.param);
        break;
      case "Assignment":
        if (n.target.kind === "Identifier") bound.add(n.target.name);
        break;
      case "SelectiveImport":
        for (const name of n.names) declared.add(name);
        break;
      case "BinaryOp":
        if (deadRightOperand(n)) {
          visit(n.left);
          return;
        }
        break;
      case "MatchExpr":
        // Patterns bind names and are not calls: `Ok(v)`, `Shape.Circle(r)`.
        visit(n.value);
        for (const arm of n.arms) {
          patternIdentifiers(arm.pattern, bound);
          if (arm.guard !== null) visit(arm.guard);
          for (const s of arm.body) visit(s);
        }
        return;
      default:
        break;
    }
    forEachChild(n, visit);
  };
  visit(root);
}

/** Every name the file's imports can bring in, or null when one of them
 * (transitively) cannot be resolved. */
function importedNames(program: Program, opts: CheckOptions): Set<string> | null {
  const names = new Set<string>();
  const seen = new Set<string>();
  const pending: { program: Program; file: string }[] = [{ program, file: opts.file }];
  let first = true;
  while (pending.length > 0) {
    const { program: p, file } = pending.pop()!;
    for (const item of p.items) {
      const decl = item.kind === "AttributedDecl" ? item.inner : item;
      if (!first) addTopLevelNames(decl, names);
      if (decl.kind !== "ImportDecl" && decl.kind !== "SelectiveImport") continue;
      let m;
      try {
        m = opts.resolveImport(file, decl.path);
      } catch {
        m = null;
      }
      if (m === null) return null;
      if (seen.has(m.file)) continue;
      seen.add(m.file);
      pending.push(m);
    }
    first = false;
  }
  return names;
}

function addTopLevelNames(n: Node, out: Set<string>): void {
  const d = declName(n);
  if (d !== null) out.add(d);
  if (n.kind === "LetBinding" || n.kind === "VarBinding") forEachPatternName(n.pattern, (name) => out.add(name));
  if (n.kind === "SelectiveImport") for (const name of n.names) out.add(name);
  if (n.kind === "EnumDecl") for (const v of n.variants) out.add(v.name);
}

/** Whether the file imports anything; without imports, `check` consults
 * neither `builtins` nor `resolveImport`. */
export function hasImports(program: Program): boolean {
  return program.items.some((n) => {
    const d = n.kind === "AttributedDecl" ? n.inner : n;
    return d.kind === "ImportDecl" || d.kind === "SelectiveImport";
  });
}
