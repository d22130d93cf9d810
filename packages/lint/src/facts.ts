/**
 * File-wide name sets (lint.md §1.6), gathered during the shared walk and
 * read by the post-walk rules. Deliberately name-based, not scope-aware:
 * `let x` in one function counts as used if anything anywhere reads `x`.
 */
import type {
  Closure,
  EnumDecl,
  EvalPackDecl,
  FnDecl,
  ForIn,
  FunctionCall,
  ImportDecl,
  InterfaceDecl,
  LetBinding,
  Node,
  SelectiveImport,
  SkillDecl,
  StructDecl,
  ToolDecl,
  TypeExpr,
  VarBinding,
} from "@harn/parser";
import { forEachTypeName } from "@harn/parser";
import { patternNames, rootName } from "./ast-util";
import type { Visitors } from "./types";
import { clearArray, clearSet } from "./reuse";

export interface BindingFact {
  name: string;
  mutable: boolean;
  /** Bound by a destructuring pattern rather than a single identifier. */
  destructured: boolean;
  node: LetBinding | VarBinding | ForIn;
}

export interface FunctionFact {
  name: string;
  node: FnDecl | ToolDecl | SkillDecl | EvalPackDecl;
}

export interface TypeFact {
  name: string;
  kind: "struct" | "enum" | "interface";
  node: StructDecl | EnumDecl | InterfaceDecl;
}

export class Facts {
  /** Every identifier read and every called function name. */
  readonly references = new Set<string>();
  /** Root names of assignment targets. */
  readonly assignments = new Set<string>();
  readonly bindings: BindingFact[] = [];
  readonly params: { name: string; owner: FnDecl | ToolDecl | Closure }[] = [];
  /** Candidates of `unused-function`. */
  readonly functions: FunctionFact[] = [];
  /** Declared callables and types plus selectively imported names. */
  readonly knownFunctions = new Set<string>();
  /** Every name bound anywhere (closures are callable; lint.md §3.8 Q5). */
  readonly callableVariables = new Set<string>();
  readonly calls: FunctionCall[] = [];
  readonly typeRefs = new Set<string>();
  readonly types: TypeFact[] = [];
  readonly selectiveImports: SelectiveImport[] = [];
  readonly wildcardImports: ImportDecl[] = [];

  /** Empty for the next file (a linter reuses one Facts). */
  clear(): void {
    clearSet(this.references);
    clearSet(this.assignments);
    clearArray(this.bindings);
    clearArray(this.params);
    clearArray(this.functions);
    clearSet(this.knownFunctions);
    clearSet(this.callableVariables);
    clearArray(this.calls);
    clearSet(this.typeRefs);
    clearArray(this.types);
    clearArray(this.selectiveImports);
    clearArray(this.wildcardImports);
  }
}

/** Add every type name a type expression mentions. */
export function addTypeNames(t: TypeExpr | null, out: Set<string>): void {
  forEachTypeName(t, (named) => out.add(named.name));
}

const IDENT_TOKEN = /[\p{L}_][\p{L}\p{N}_]*/gu;

/** The identifier-like tokens of an interpolation's text (lint.md §1.6):
 * split on anything that is neither alphanumeric nor `_`, keep the pieces
 * that start with a letter or `_`. ASCII text takes a fast path. */
export function addIdentTokens(text: string, out: Set<string>): void {
  if (/[^\x00-\x7f]/.test(text)) {
    for (const m of text.matchAll(IDENT_TOKEN)) out.add(m[0]);
    return;
  }
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    const word = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (c >= 48 && c <= 57);
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      const first = text.charCodeAt(start);
      if (first < 48 || first > 57) out.add(text.slice(start, i));
      start = -1;
    }
  }
}

/**
 * Visitors that fill `f`; registered before every rule. Made once per
 * linter: `reset` empties `f` and the walk state for the next file.
 */
export function factCollector(f: Facts): { visitors: Visitors; reset(): void } {
  /** Plain `x = ..` targets are writes, not reads. */
  let writeTarget: Node | null = null;
  let implDepth = 0;
  const reset = (): void => {
    f.clear();
    writeTarget = null;
    implDepth = 0;
  };
  const markDeclared = (name: string): void => {
    f.references.add(name);
    f.callableVariables.add(name);
  };
  const fnLike = (n: FnDecl | ToolDecl): void => {
    f.knownFunctions.add(n.name);
    if (!n.isPub && implDepth === 0 && !n.name.startsWith("_")) f.functions.push({ name: n.name, node: n });
    for (const p of n.params) {
      f.params.push({ name: p.name, owner: n });
      f.callableVariables.add(p.name);
      addTypeNames(p.type, f.typeRefs);
    }
    addTypeNames(n.returnType, f.typeRefs);
  };
  const visitors: Visitors = {
    Identifier(n) {
      if (n !== writeTarget) f.references.add(n.name);
    },
    FunctionCall(n) {
      f.references.add(n.name);
      f.calls.push(n);
      // call-style construction `Point({..})` (Q9 fix)
      f.typeRefs.add(n.name);
    },
    InterpolatedString(n) {
      for (const s of n.segments) if (s.kind === "expr") addIdentTokens(s.source, f.references);
    },
    Assignment(n) {
      const root = rootName(n.target);
      if (root) f.assignments.add(root);
      writeTarget = n.target.kind === "Identifier" && n.op === null ? n.target : null;
    },
    Pipeline(n) {
      f.knownFunctions.add(n.name);
      for (const p of n.params) markDeclared(p);
      addTypeNames(n.returnType, f.typeRefs);
    },
    FnDecl(n) {
      fnLike(n);
      for (const w of n.whereClauses) f.typeRefs.add(w.bound);
    },
    ToolDecl: fnLike,
    SkillDecl(n) {
      f.knownFunctions.add(n.name);
      if (!n.isPub && !n.name.startsWith("_")) f.functions.push({ name: n.name, node: n });
    },
    EvalPackDecl(n) {
      f.knownFunctions.add(n.bindingName);
      if (!n.isPub && !n.bindingName.startsWith("_")) f.functions.push({ name: n.bindingName, node: n });
    },
    StructDecl(n) {
      f.knownFunctions.add(n.name);
      if (!n.name.startsWith("_")) f.types.push({ name: n.name, kind: "struct", node: n });
      for (const fld of n.fields) addTypeNames(fld.type, f.typeRefs);
    },
    EnumDecl(n) {
      f.knownFunctions.add(n.name);
      if (!n.name.startsWith("_")) f.types.push({ name: n.name, kind: "enum", node: n });
      for (const v of n.variants) for (const p of v.fields) addTypeNames(p.type, f.typeRefs);
    },
    InterfaceDecl(n) {
      if (!n.name.startsWith("_")) f.types.push({ name: n.name, kind: "interface", node: n });
      for (const a of n.associatedTypes) addTypeNames(a.type, f.typeRefs);
      for (const m of n.methods) {
        for (const p of m.params) addTypeNames(p.type, f.typeRefs);
        addTypeNames(m.returnType, f.typeRefs);
      }
    },
    TypeDecl(n) {
      addTypeNames(n.type, f.typeRefs);
    },
    ImplBlock(n) {
      f.typeRefs.add(n.typeName);
      implDepth++;
    },
    "ImplBlock:exit"() {
      implDepth--;
    },
    StructConstruct(n) {
      f.typeRefs.add(n.structName);
    },
    MethodCall(n) {
      if (n.object.kind === "Identifier") f.typeRefs.add(n.object.name);
    },
    PropertyAccess(n) {
      if (n.object.kind === "Identifier") f.typeRefs.add(n.object.name);
    },
    LetBinding(n) {
      binding(f, n, false);
    },
    VarBinding(n) {
      binding(f, n, true);
    },
    ForIn(n) {
      if (n.pattern.kind === "ident") {
        markDeclared(n.pattern.name);
        return;
      }
      for (const name of patternNames(n.pattern)) {
        f.callableVariables.add(name);
        f.bindings.push({ name, mutable: false, destructured: true, node: n });
      }
    },
    TryCatch(n) {
      if (n.errorVar) markDeclared(n.errorVar);
      addTypeNames(n.errorType, f.typeRefs);
    },
    Parallel(n) {
      if (n.variable) markDeclared(n.variable);
    },
    SelectExpr(n) {
      for (const c of n.cases) f.callableVariables.add(c.variable);
    },
    Closure(n) {
      for (const p of n.params) {
        f.params.push({ name: p.name, owner: n });
        f.callableVariables.add(p.name);
        addTypeNames(p.type, f.typeRefs);
      }
    },
    SelectiveImport(n) {
      f.selectiveImports.push(n);
      for (const name of n.names) f.knownFunctions.add(name);
    },
    ImportDecl(n) {
      f.wildcardImports.push(n);
    },
  };
  return { visitors, reset };
}

function binding(f: Facts, n: LetBinding | VarBinding, mutable: boolean): void {
  addTypeNames(n.type, f.typeRefs);
  const destructured = n.pattern.kind !== "ident";
  for (const name of patternNames(n.pattern)) {
    f.callableVariables.add(name);
    f.bindings.push({ name, mutable, destructured, node: n });
  }
}
