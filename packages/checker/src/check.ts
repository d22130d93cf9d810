/**
 * The checker's walk: lexical scopes of the few binding types it is sure
 * of, and the type diagnostics that need them (spec/semantics.md §10.1).
 * Whatever it is not sure of is unknown, and unknown is never an error.
 */
import type { FnDecl, FunctionCall, InterfaceDecl, MatchExpr, Node, Param, Pattern, Program, Span, TypeExpr } from "@harn/parser";
import { boundNames, declarationCounts, hasImports } from "./call-targets";
import { forEachChild, forEachPatternName } from "@harn/parser";
import type { Diagnostic } from "@harn/parser";
import { typeError } from "./diagnostic";

const MATCH_HELP = "add an arm for each missing variant, or a `_ ->` arm";
import { binaryOpError, binaryOpHelp, deadRightOperand, literalType, type Primitive } from "./literals";
import { TypeEnv } from "./type-env";
import { formatTy, fromTypeExpr, hasTypeParam, type Ty } from "./types";

interface Binding {
  ty: Ty | null;
  /** A function parameter (its declared type is all that is known of it;
   * a `let` initialiser might narrow it further in the reference). */
  param?: boolean;
  /** Read anywhere since it was bound (a read may narrow an `unknown`). */
  read: boolean;
}

type Scope = Map<string, Binding>;

export class TypeWalk {
  private readonly env: TypeEnv;
  private scopes: Scope[] = [new Map()];
  /** Inside a `try` body an error is what the script expects to happen
   * (conformance cases catch `"a" + 1` on purpose), so nothing there is
   * reported. */
  private tryDepth = 0;
  /** The declared return type of each enclosing function (null: none
   * declared, a closure, or a `gen fn`). */
  private returns: (Ty | null)[] = [];
  /** Functions a plain call certainly reaches: declared once,
   * the name bound by nothing else, and no imports that could bring
   * another. */
  private readonly functions = new Map<string, FnDecl>();
  /** Names the file binds or declares anywhere (so not surely a builtin). */
  private readonly userNames: Set<string>;
  /** Names bound other than by a declaration, and declaration counts. */
  private readonly bound: Set<string>;
  private readonly counts: Map<string, number>;

  constructor(
    program: Program,
    private readonly out: Diagnostic[],
  ) {
    this.env = TypeEnv.of(program.items);
    const counts = declarationCounts(program);
    const bound = boundNames(program);
    this.counts = counts;
    this.bound = bound;
    this.userNames = new Set([...bound, ...counts.keys()]);
    if (!hasImports(program)) {
      // Functions declared anywhere, nested ones in bodies included
      // (core-gaps.md §9.1): the name is declared once in the file.
      const visit = (n: Node): void => {
        if (n.kind === "FnDecl" && counts.get(n.name) === 1 && !bound.has(n.name)) this.functions.set(n.name, n);
        forEachChild(n, visit);
      };
      for (const item of program.items) visit(item);
    }
  }

  run(program: Program): void {
    this.block(program.items);
  }

  private block(nodes: readonly Node[]): void {
    this.scopes.push(new Map());
    for (const n of nodes) this.visit(n);
    this.scopes.pop();
  }

  private bind(name: string, ty: Ty | null): void {
    this.scopes[this.scopes.length - 1]!.set(name, { ty, read: false });
  }

  private binding(name: string): Binding | null {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const b = this.scopes[i]!.get(name);
      if (b !== undefined) return b;
    }
    return null;
  }

  /** The declared type of a parameter not read since it was bound: a read
   * (`if c == Color.Red { return }`) may have narrowed it, and the
   * reference's flow typing would then see fewer cases. `let` bindings are
   * left out, as their initialiser may narrow them (`let c: Color =
   * Color.Red`). */
  private unnarrowed(name: string): Ty | null {
    const b = this.binding(name);
    return b === null || b.read || b.param !== true ? null : b.ty;
  }


  private bindPattern(p: Pattern): void {
    forEachPatternName(p, (name) => this.bind(name, null));
  }

  /** A function-like body: parameters in their own scope. */
  private fnBody(params: readonly Param[], body: readonly Node[], typeParams: ReadonlySet<string>, ret: Ty | null = null): void {
    for (const p of params) if (p.default !== null) this.visit(p.default);
    this.scopes.push(new Map());
    this.returns.push(ret);
    for (const p of params) {
      this.bind(p.name, p.type !== null && !p.rest ? fromTypeExpr(p.type, typeParams) : null);
      this.scopes[this.scopes.length - 1]!.get(p.name)!.param = true;
    }
    this.block(body);
    this.returns.pop();
    this.scopes.pop();
  }

  private visit(n: Node): void {
    switch (n.kind) {
      case "Identifier": {
        const b = this.binding(n.name);
        if (b !== null) b.read = true;
        return;
      }
      case "LetBinding":
      case "VarBinding": {
        // Checked before the initialiser counts as a read of what it names.
        if (n.type !== null && n.pattern.kind === "ident") this.checkDeclared(n.pattern.name, n.type, n.value);
        this.visit(n.value);
        if (n.pattern.kind === "ident") {
          // Only an immutable binding keeps the type it starts with.
          const ty = n.kind === "LetBinding" && n.type !== null ? fromTypeExpr(n.type) : null;
          this.bind(n.pattern.name, ty);
        } else {
          this.bindPattern(n.pattern);
        }
        return;
      }
      case "FnDecl": {
        this.bind(n.name, null);
        const typeParams = new Set(n.typeParams.map((t) => t.name));
        const ret = n.returnType !== null && !n.isStream ? fromTypeExpr(n.returnType, typeParams) : null;
        this.fnBody(n.params, n.body, typeParams, ret);
        return;
      }
      case "ToolDecl":
        this.bind(n.name, null);
        this.fnBody(n.params, n.body, EMPTY);
        return;
      case "Closure":
        this.fnBody(n.params, n.body, EMPTY);
        return;
      case "Pipeline":
        this.scopes.push(new Map());
        this.returns.push(n.returnType !== null ? fromTypeExpr(n.returnType) : null);
        for (const p of n.params) this.bind(p, null);
        this.block(n.body);
        this.returns.pop();
        this.scopes.pop();
        return;
      case "ReturnStmt":
        if (n.value !== null) {
          this.visit(n.value);
          this.checkReturn(n.value);
        }
        return;
      case "FunctionCall":
        forEachChild(n, (c) => this.visit(c));
        this.checkCall(n);
        return;
      case "OverrideDecl":
        this.scopes.push(new Map());
        this.returns.push(null);
        for (const p of n.params) this.bind(p, null);
        this.block(n.body);
        this.returns.pop();
        this.scopes.pop();
        return;
      case "ForIn":
        this.visit(n.iterable);
        this.scopes.push(new Map());
        this.bindPattern(n.pattern);
        this.block(n.body);
        this.scopes.pop();
        return;
      case "TryCatch":
        this.tryDepth++;
        this.block(n.body);
        this.tryDepth--;
        this.scopes.push(new Map());
        if (n.errorVar !== null) this.bind(n.errorVar, null);
        this.block(n.catchBody);
        this.scopes.pop();
        if (n.finallyBody !== null) this.block(n.finallyBody);
        return;
      case "Parallel":
        this.visit(n.expr);
        for (const [, v] of n.options) this.visit(v);
        this.scopes.push(new Map());
        if (n.variable !== null) this.bind(n.variable, null);
        this.block(n.body);
        this.scopes.pop();
        return;
      case "SelectExpr":
        for (const c of n.cases) {
          this.visit(c.channel);
          this.scopes.push(new Map());
          this.bind(c.variable, null);
          this.block(c.body);
          this.scopes.pop();
        }
        if (n.timeout !== null) {
          this.visit(n.timeout.duration);
          this.block(n.timeout.body);
        }
        if (n.defaultBody !== null) this.block(n.defaultBody);
        return;
      case "PipePlaceholder":
        this.scopes.push(new Map());
        this.bind(n.param, null);
        this.visit(n.body);
        this.scopes.pop();
        return;
      case "MatchExpr":
        this.checkEnumMatch(n);
        this.checkTaggedUnionMatch(n);
        this.checkLiteralUnionMatch(n);
        this.visit(n.value);
        for (const arm of n.arms) {
          this.scopes.push(new Map());
          bindPatternIdentifiers(arm.pattern, (name) => this.bind(name, null));
          if (arm.guard !== null) this.visit(arm.guard);
          this.block(arm.body);
          this.scopes.pop();
        }
        return;
      case "TryExpr":
        this.tryDepth++;
        this.block(n.body);
        this.tryDepth--;
        return;
      case "BinaryOp": {
        this.visit(n.left);
        if (deadRightOperand(n)) return;
        this.visit(n.right);
        const l = literalType(n.left);
        const r = literalType(n.right);
        if (l !== null && r !== null) {
          const message = binaryOpError(n.op, l, r);
          if (message !== null) this.report(message, n.span, binaryOpHelp(n.op, l, r));
        }
        return;
      }
      case "IfElse":
        this.visit(n.condition);
        this.block(n.thenBody);
        if (n.elseBody !== null) this.block(n.elseBody);
        return;
      case "WhileLoop":
        this.visit(n.condition);
        this.block(n.body);
        return;
      case "GuardStmt":
        this.visit(n.condition);
        this.block(n.elseBody);
        return;
      case "ImplBlock":
        for (const m of n.methods) this.visit(m);
        return;
      default:
        if (hasBody(n)) {
          // Remaining statements with a body (defer, mutex, deadline, retry,
          // spawn, try-expression, ...): visit the non-body children in the
          // current scope, the body in a scope of its own.
          const body = new Set<Node>(n.body);
          forEachChild(n, (c) => {
            if (!body.has(c)) this.visit(c);
          });
          this.block(n.body);
          return;
        }
        forEachChild(n, (c) => this.visit(c));
    }
  }

  /** `return type doesn't match: expected T, got U` for a literal returned
   * from a function or pipeline declared with an incompatible type. */
  private checkReturn(value: Node): void {
    const expected = this.returns.length > 0 ? this.returns[this.returns.length - 1]! : null;
    if (expected === null) return;
    const actual = literalType(value);
    if (actual === null || actual === "nil" || !this.incompatible(expected, actual)) return;
    this.report(`return type doesn't match: expected ${formatTy(expected)}, got ${actual}`, value.span, `return a value of type ${formatTy(expected)} here, or change the declared return type`);
  }

  /** A call of a top-level generic function whose literal arguments bind
   * one type parameter to two different types.
  , and a literal argument certainly not of its parameter's declared
   * type: `Argument N ('PARAM'): expected T, got U` (core-gaps.md §9.4;
   * the runtime check stays for values the checker cannot type). */
  private checkCall(call: FunctionCall): void {
    const fn = this.functions.get(call.name);
    if (fn === undefined || call.args.some((a) => a.kind === "Spread")) return;
    const typeParams = new Set(fn.typeParams.map((t) => t.name));
    this.checkBounds(call, fn, typeParams);
    const inferred = new Map<string, Primitive>();
    for (let i = 0; i < call.args.length && i < fn.params.length; i++) {
      const p = fn.params[i]!;
      if (p.rest) break;
      if (p.type === null) continue;
      const actual = literalType(call.args[i]!);
      if (actual === null || actual === "nil") continue;
      const expected = fromTypeExpr(p.type, typeParams);
      if (expected.k === "tparam") {
        const before = inferred.get(expected.name);
        if (before === undefined) inferred.set(expected.name, actual);
        else if (before !== actual && DISTINCT.has(before) && DISTINCT.has(actual)) {
          this.report(`type parameter '${expected.name}' was inferred as both ${before} and ${actual}`, call.span, `pass arguments of one type for '${expected.name}'`);
          return;
        }
        continue;
      }
      if (!hasTypeParam(expected) && this.incompatible(expected, actual)) {
        this.report(`Argument ${i + 1} ('${p.name}'): expected ${formatTy(expected)}, got ${actual}`, call.args[i]!.span, `pass a value of type ${formatTy(expected)}`);
        return;
      }
    }
  }

  /** `where T: I` on a generic call whose argument for a `T` parameter is
   * certainly a literal (which no interface can be met by) or a struct `S`,
   * whose impl must have each method of `I` with the same parameter count
   * and agreeing annotated types. */
  private checkBounds(call: FunctionCall, fn: FnDecl, typeParams: ReadonlySet<string>): void {
    if (fn.whereClauses.length === 0) return;
    for (const w of fn.whereClauses) {
      const iface = this.env.interfaces.get(w.bound);
      if (iface === undefined || iface.typeParams.length > 0) continue;
      for (let i = 0; i < call.args.length && i < fn.params.length; i++) {
        const p = fn.params[i]!;
        if (p.rest) break;
        if (p.type === null) continue;
        const t = fromTypeExpr(p.type, typeParams);
        if (t.k !== "tparam" || t.name !== w.typeName) continue;
        const literal = literalType(call.args[i]!);
        const struct = literal === null || literal === "nil" ? this.structOf(call.args[i]!) : literal;
        if (struct === null) continue;
        const reason = struct === literal ? "only named types can satisfy interfaces" : this.unsatisfied(struct, iface);
        if (reason !== null) {
          this.report(`Type '${struct}' does not satisfy interface '${iface.name}': ${reason} (required by constraint \`where ${w.typeName}: ${w.bound}\`)`, call.span, `give '${struct}' what '${iface.name}' requires, or pass a value whose type implements it`);
          return;
        }
      }
    }
  }

  /** The struct a value certainly is: `S { ... }` or `S({...})`. */
  private structOf(v: Node): string | null {
    const name = v.kind === "StructConstruct" ? v.structName : v.kind === "FunctionCall" && v.args.length === 1 && v.args[0]!.kind === "DictLiteral" ? v.name : null;
    if (name === null || !this.env.structs.has(name) || this.counts.get(name) !== 1 || this.bound.has(name)) return null;
    return name;
  }

  /** Why `struct` does not meet `iface`, for signatures whose types are
   * certain; null when nothing certain is wrong. */
  private unsatisfied(struct: string, iface: InterfaceDecl): string | null {
    const methods = this.env.impls.get(struct);
    if (methods === undefined) return iface.methods.length > 0 ? `missing method(s): ${iface.methods.map((m) => m.name).join(", ")}` : null;
    const assoc = new Map<string, Ty>();
    for (const a of iface.associatedTypes) if (a.type !== null) assoc.set(a.name, fromTypeExpr(a.type));
    let assocFailure: string | null = null;
    for (const m of iface.methods) {
      const impls = methods.filter((x) => x.name === m.name);
      if (impls.length === 0) return `missing method '${m.name}'`;
      const ifaceParams = m.params.filter((x) => x.name !== "self");
      const implParams = impls.length === 1 ? impls[0]!.params.filter((x) => x.name !== "self") : null;
      if (implParams !== null && implParams.length !== ifaceParams.length) return `method '${m.name}' has ${implParams.length} parameter(s), expected ${ifaceParams.length}`;
      if (m.typeParams.length > 0 || impls.length !== 1) continue;
      const impl = impls[0]!;
      if (impl.typeParams.length > 0) continue;
      for (let i = 0; i < ifaceParams.length; i++) {
        const a = ifaceParams[i]!;
        const b = implParams![i]!;
        if (a.type === null || b.type === null) continue;
        const want = fromTypeExpr(a.type);
        const got = fromTypeExpr(b.type);
        if (clash(want, got)) return `method '${m.name}' parameter ${i + 1} has type '${formatTy(got)}', expected '${formatTy(want)}'`;
      }
      if (m.returnType !== null && impl.returnType !== null) {
        const want = fromTypeExpr(m.returnType);
        const got = fromTypeExpr(impl.returnType);
        if (want.k === "name" && assoc.has(want.name) && !this.env.isUserType(want.name)) {
          // an associated type binds here; its default is checked after all methods
          const bound = assoc.get(want.name)!;
          if (assocFailure === null && clash(bound, got)) assocFailure = `associated type '${want.name}' resolves to '${formatTy(got)}', expected '${formatTy(bound)}'`;
        } else if (clash(want, got)) {
          return `method '${m.name}' returns '${formatTy(got)}', expected '${formatTy(want)}'`;
        }
      }
    }
    return assocFailure;
  }

  private report(message: string, span: Span, help: string): void {
    if (this.tryDepth === 0) this.out.push(typeError(message, span, help));
  }

  /** `'NAME' declared as T, but assigned U` where the initialiser's type is
   * certain and certainly does not fit: a literal; a dict literal missing a
   * field of a declared shape; a `let` bound with a list annotation of
   * another element type (lists are invariant); an `unknown` binding read
   * before anything could narrow it. */
  private checkDeclared(name: string, annotation: TypeExpr, value: Node): void {
    const expected = fromTypeExpr(annotation);
    const mismatch = (actual: string, detail = ""): void =>
      this.report(`'${name}' declared as ${formatTy(expected)}, but assigned ${actual}${detail}`, value.span, `assign a value of type ${formatTy(expected)}, or change the type annotation of '${name}'`);
    const actual = literalType(value);
    if (actual !== null) {
      if (actual !== "nil" && this.incompatible(expected, actual)) mismatch(actual);
      return;
    }
    if (value.kind === "DictLiteral" && expected.k === "shape") {
      const shape = dictLiteralShape(value);
      if (shape === null) return;
      // One part per non-optional declared field that is missing or
      // certainly of another type (core-gaps.md §9.3).
      const parts: string[] = [];
      for (const f of expected.fields) {
        if (f.optional) continue;
        const got = shape.fields.find((g) => g.name === f.name);
        if (got === undefined) parts.push(`missing field '${f.name}' (${formatTy(f.ty)})`);
        else if (got.ty !== null && got.ty.k === "name" && got.ty.name !== "nil" && this.incompatible(f.ty, got.ty.name as Primitive)) {
          parts.push(`field '${f.name}' has type ${formatTy(got.ty)}, expected ${formatTy(f.ty)}`);
        }
      }
      if (parts.length > 0) mismatch(formatTy(shape), ` (${parts.join("; ")})`);
      return;
    }
    const other = expected.k === "list" ? this.iterType(value) : expected.k === "generator" ? this.streamCall(value) : null;
    if (other !== null) {
      mismatch(formatTy(other));
      return;
    }
    if (value.kind === "Identifier") {
      const b = this.binding(value.name);
      if (b === null || b.ty === null) return;
      const t = b.ty;
      if (t.k === "list" && expected.k === "list" && isPrimitive(t.elem) && isPrimitive(expected.elem) && t.elem.name !== expected.elem.name) {
        mismatch(formatTy(t));
      } else if (t.k === "name" && t.name === "unknown" && !b.read && expected.k === "name" && PRIMITIVES.has(expected.name) && expected.name !== "nil") {
        mismatch("unknown");
      }
    }
  }

  /** True only when no value of type `actual` can be a `t`. Aliases are
   * not expanded (conformance's param_unchecked_names passes a string for
   * an `int` alias and expects it to run), and int and float never clash
   * (param_int_check passes 2.5 for an `int` parameter). */
  private incompatible(r: Ty | null, actual: Primitive): boolean {
    if (r === null) return false;
    switch (r.k) {
      case "name":
        if (!PRIMITIVES.has(r.name) || this.env.isUserType(r.name)) return false;
        return !(r.name === actual || (NUMERIC.has(r.name) && NUMERIC.has(actual)));
      case "union":
        return r.types.every((m) => this.incompatible(m, actual));
      case "list":
      case "dict":
      case "shape":
      case "fn":
        return true;
      default:
        return false;
    }
  }

  /** The iterator type of `iter(x)` (bare `iter`), `LIST.iter()` over a
   * non-empty list literal of one primitive type (`iter<T>`), and the lazy
   * combinators on those (core-gaps.md §5.3); null when not certainly an
   * iterator. */
  private iterType(v: Node): { k: "iter"; elem: Ty | null } | null {
    if (v.kind === "FunctionCall" && v.name === "iter" && v.args.length === 1 && !this.userNames.has("iter")) return { k: "iter", elem: null };
    if (v.kind !== "MethodCall") return null;
    if (v.method === "iter" && v.args.length === 0) {
      const elem = listLiteralElem(v.object);
      return elem === null ? null : { k: "iter", elem };
    }
    const of = ITER_METHODS.get(v.method);
    if (of === undefined) return null;
    const receiver = this.iterType(v.object);
    return receiver === null ? null : { k: "iter", elem: of(receiver.elem) };
  }

  /** A call of a top-level `gen fn` whose element type is certain: declared
   * `-> Stream<T>`, or every `emit` of its body a literal of one type. */
  private streamCall(v: Node): Ty | null {
    if (v.kind !== "FunctionCall") return null;
    const fn = this.functions.get(v.name);
    if (fn === undefined || !fn.isStream) return null;
    if (fn.returnType !== null) {
      const declared = fromTypeExpr(fn.returnType, new Set(fn.typeParams.map((t) => t.name)));
      return declared.k === "stream" && declared.elem !== null && !hasTypeParam(declared.elem) ? declared : null;
    }
    const emitted = new Set<Primitive | null>();
    const visit = (n: Node): void => {
      if (n.kind === "Closure" || n.kind === "FnDecl") return;
      if (n.kind === "EmitExpr") emitted.add(literalType(n.value));
      forEachChild(n, visit);
    };
    for (const s of fn.body) visit(s);
    if (emitted.size !== 1) return null;
    const only = [...emitted][0]!;
    return only === null || only === "nil" ? null : { k: "stream", elem: { k: "name", name: only } };
  }

  private scopesHave(name: string): boolean {
    return this.scopes.some((s) => s.has(name));
  }

  /** The enum a match subject certainly holds (or whose `.variant` it is). */
  private subjectEnum(v: Node): string | null {
    let target = v;
    if (v.kind === "PropertyAccess" && v.property === "variant") target = v.object;
    if (target.kind !== "Identifier") return null;
    const t = this.unnarrowed(target.name);
    if (t === null) return null;
    const name = t.k === "name" ? t.name : t.k === "app" ? t.name : null;
    if (name === null || this.scopesHave(name)) return null;
    return this.env.enums.has(name) ? name : null;
  }

  /** `match v` where `v` is declared with a union of string (or int)
   * literal types. The list after `missing` follows the other members of
   * the family (`variants "a", "b"`); the spec elides it. */
  private checkLiteralUnionMatch(m: MatchExpr): void {
    if (m.value.kind !== "Identifier") return;
    const declared = this.env.resolve(this.unnarrowed(m.value.name));
    if (declared === null || declared.k !== "union") return;
    const members: string[] = [];
    for (const t of declared.types) {
      if (t.k === "strlit") members.push(JSON.stringify(t.value));
      else if (t.k === "intlit") members.push(String(t.value));
      else return;
    }
    const covered = armKeys(m, (p) =>
      p.kind === "StringLiteral" || p.kind === "RawStringLiteral" ? JSON.stringify(p.value) : p.kind === "IntLiteral" ? String(p.value) : null,
    );
    if (covered === null) return;
    const missing = [...new Set(members)].filter((x) => !covered.has(x));
    if (missing.length > 0) this.report(`Non-exhaustive match on literal union: missing variants ${missing.join(", ")}`, m.span, MATCH_HELP);
  }

  /** `match v.TAG` where `v` is declared with a union of shapes that all
   * give `TAG` a string-literal type. */
  private checkTaggedUnionMatch(m: MatchExpr): void {
    const v = m.value;
    if (v.kind !== "PropertyAccess" || v.object.kind !== "Identifier") return;
    const declared = this.env.resolve(this.unnarrowed(v.object.name));
    if (declared === null || declared.k !== "union") return;
    const tags: string[] = [];
    for (const member of declared.types) {
      const shape = this.env.resolve(member);
      if (shape === null || shape.k !== "shape") return;
      const field = shape.fields.find((f) => f.name === v.property);
      if (field === undefined || field.optional || field.ty === null || field.ty.k !== "strlit") return;
      tags.push(field.ty.value);
    }
    const covered = armKeys(m, (p) => (p.kind === "StringLiteral" || p.kind === "RawStringLiteral" ? p.value : null));
    if (covered === null) return;
    const missing = [...new Set(tags)].filter((t) => !covered.has(t));
    if (missing.length === 0) return;
    this.report(`Non-exhaustive match on tagged shape union: missing variants ${missing.map((t) => JSON.stringify(t)).join(", ")}`, m.span, MATCH_HELP);
  }

  private checkEnumMatch(m: MatchExpr): void {
    const enumName = this.subjectEnum(m.value);
    if (enumName === null) return;
    const decl = this.env.enums.get(enumName)!;
    const variants = new Set(decl.variants.map((v) => v.name));
    const covered = armKeys(m, (p) => {
      switch (p.kind) {
        case "PropertyAccess":
          return p.object.kind === "Identifier" && p.object.name === enumName ? p.property : null;
        case "MethodCall":
          return p.object.kind === "Identifier" && p.object.name === enumName ? p.method : null;
        case "FunctionCall":
          return variants.has(p.name) ? p.name : null;
        case "StringLiteral":
        case "RawStringLiteral":
          return p.value;
        default:
          return null; // a wildcard or binding arm (an Identifier) covers everything
      }
    });
    if (covered === null) return;
    const missing = decl.variants.filter((v) => !covered.has(v.name));
    if (missing.length === 0) return;
    this.report(`Non-exhaustive match on enum ${enumName}: missing variants ${missing.map((v) => JSON.stringify(v.name)).join(", ")}`, m.span, MATCH_HELP);
  }
}

/**
 * The keys a match's arms name (`keyOf` of each pattern, through `|`
 * alternatives), or null when some arm's pattern has no key (a wildcard, a
 * binding, anything else): such an arm covers every remaining case, so the
 * exhaustiveness checks have nothing to report.
 */
function armKeys(m: MatchExpr, keyOf: (p: Node) => string | null): Set<string> | null {
  const keys = new Set<string>();
  const cover = (p: Node): boolean => {
    if (p.kind === "OrPattern") return p.alternatives.every(cover);
    const key = keyOf(p);
    if (key === null) return false;
    keys.add(key);
    return true;
  };
  return m.arms.every((arm) => cover(arm.pattern)) ? keys : null;
}

/** Two primitive types that are certainly different (int and float are
 * not judged). */
function clash(a: Ty, b: Ty): boolean {
  return isPrimitive(a) && isPrimitive(b) && a.name !== b.name && !(NUMERIC.has(a.name) && NUMERIC.has(b.name));
}

/** Lazy combinators whose items are their source's items. */
/** The element type of an iterator method's result, from the receiver's
 * (null: unknown, a bare `iter`). */
const ITER_METHODS = new Map<string, (elem: Ty | null) => Ty | null>([
  ...["filter", "take", "skip", "take_while", "skip_while", "chain"].map((m): [string, (e: Ty | null) => Ty | null] => [m, (e) => e]),
  ["map", () => null],
  ["flat_map", () => null],
  ["zip", (e) => ({ k: "app", name: "Pair", args: [e ?? ANY, ANY] })],
  ["enumerate", (e) => ({ k: "app", name: "Pair", args: [{ k: "name", name: "int" }, e ?? ANY] })],
  ["chunks", (e) => ({ k: "list", elem: e })],
  ["windows", (e) => ({ k: "list", elem: e })],
]);
const ANY: Ty = { k: "name", name: "any" };

/** The element type of a non-empty list literal of one primitive type. */
function listLiteralElem(n: Node): Ty | null {
  if (n.kind !== "ListLiteral" || n.elements.length === 0) return null;
  const types = new Set(n.elements.map(literalType));
  if (types.size !== 1) return null;
  const t = [...types][0]!;
  return t === null || t === "nil" ? null : { k: "name", name: t };
}

function isPrimitive(t: Ty | null): t is { k: "name"; name: string } {
  return t !== null && t.k === "name" && PRIMITIVES.has(t.name);
}

/** The shape of a dict literal with plain keys (no spread, no computed
 * key); values of unknown type print as `any`. */
function dictLiteralShape(d: Node & { kind: "DictLiteral" }): (Ty & { k: "shape" }) | null {
  const fields: { name: string; ty: Ty | null; optional: boolean }[] = [];
  for (const e of d.entries) {
    if (e.computed || e.key.kind !== "StringLiteral" || e.value.kind === "Spread") return null;
    const lt = literalType(e.value);
    fields.push({ name: e.key.value, ty: lt === null ? null : { k: "name", name: lt }, optional: false });
  }
  return { k: "shape", fields };
}

const EMPTY: ReadonlySet<string> = new Set();
/** Literal types that no inference merges (int and float might be). */
const DISTINCT = new Set<Primitive>(["int", "string", "bool"]);
const PRIMITIVES = new Set(["int", "float", "string", "bool", "nil"]);
const NUMERIC = new Set(["int", "float"]);

function hasBody(n: Node): n is Node & { body: Node[] } {
  return "body" in n && Array.isArray((n as { body?: unknown }).body);
}

function bindPatternIdentifiers(n: Node, bind: (name: string) => void): void {
  if (n.kind === "Identifier") bind(n.name);
  forEachChild(n, (c) => bindPatternIdentifiers(c, bind));
}
