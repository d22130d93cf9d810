/**
 * A compact S-expression view of the AST for tests: `(+ a (* b c))`.
 * Spans are left out; shapes are what the parser tests assert on.
 */
import type { Node, Pattern, TypeExpr, Param } from "../src/ast";

export function typeShape(t: TypeExpr): string {
  switch (t.kind) {
    case "Named":
      return t.name;
    case "Union":
      return `(| ${t.types.map(typeShape).join(" ")})`;
    case "Shape":
      return `{${t.fields.map((f) => `${f.name}${f.optional ? "?" : ""}: ${typeShape(f.type)}`).join(", ")}}`;
    case "List":
      return `[${typeShape(t.elem)}]`;
    case "Dict":
      return `dict<${typeShape(t.key)}, ${typeShape(t.value)}>`;
    case "Iter":
      return `iter<${typeShape(t.elem)}>`;
    case "Generator":
      return `Generator<${typeShape(t.elem)}>`;
    case "Stream":
      return `Stream<${typeShape(t.elem)}>`;
    case "Applied":
      return `${t.name}<${t.args.map(typeShape).join(", ")}>`;
    case "FnType":
      return `fn(${t.params.map(typeShape).join(", ")}) -> ${typeShape(t.ret)}`;
    case "Never":
      return "never";
    case "LitString":
      return JSON.stringify(t.value);
    case "LitInt":
      return String(t.value);
  }
}

function paramShape(p: Param): string {
  let s = (p.rest ? "..." : "") + p.name;
  if (p.type) s += `: ${typeShape(p.type)}`;
  if (p.default) s += ` = ${shape(p.default)}`;
  return s;
}

export function patternShape(p: Pattern): string {
  switch (p.kind) {
    case "ident":
      return p.name;
    case "pair":
      return `(${p.first}, ${p.second})`;
    case "dict":
      return `{${p.fields
        .map((f) => (f.rest ? `...${f.key}` : f.key + (f.alias ? `: ${f.alias}` : "") + (f.default ? ` = ${shape(f.default)}` : "")))
        .join(", ")}}`;
    case "list":
      return `[${p.elements.map((e) => (e.rest ? `...${e.name}` : e.name + (e.default ? ` = ${shape(e.default)}` : ""))).join(", ")}]`;
  }
}

function body(nodes: Node[]): string {
  return `{${nodes.map(shape).join("; ")}}`;
}

export function shape(n: Node): string {
  switch (n.kind) {
    case "IntLiteral":
      return String(n.value);
    case "FloatLiteral":
      return `${n.value}f`;
    case "StringLiteral":
      return JSON.stringify(n.value);
    case "RawStringLiteral":
      return `r${JSON.stringify(n.value)}`;
    case "BoolLiteral":
      return String(n.value);
    case "NilLiteral":
      return "nil";
    case "DurationLiteral":
      return `${n.ms}ms`;
    case "Identifier":
      return n.name;
    case "InterpolatedString":
      return `(str ${n.segments
        .map((s) => (s.kind === "text" ? JSON.stringify(s.text) : s.expr ? `\${${shape(s.expr)}}` : "${<lex error>}"))
        .join(" ")})`;
    case "BinaryOp":
      return `(${n.op} ${shape(n.left)} ${shape(n.right)})`;
    case "UnaryOp":
      return `(${n.op} ${shape(n.operand)})`;
    case "Ternary":
      return `(?: ${shape(n.condition)} ${shape(n.thenExpr)} ${shape(n.elseExpr)})`;
    case "RangeExpr":
      return `(${n.inclusive ? "to" : "to-excl"} ${shape(n.start)} ${shape(n.end)})`;
    case "TryOperator":
      return `(? ${shape(n.operand)})`;
    case "FunctionCall":
      return `(call ${n.name}${n.typeArgs.length ? `<${n.typeArgs.map(typeShape).join(", ")}>` : ""}${n.args.map((a) => " " + shape(a)).join("")})`;
    case "MethodCall":
      return `(.${n.method}() ${shape(n.object)}${n.args.map((a) => " " + shape(a)).join("")})`;
    case "OptionalMethodCall":
      return `(?.${n.method}() ${shape(n.object)}${n.args.map((a) => " " + shape(a)).join("")})`;
    case "PropertyAccess":
      return `(.${n.property} ${shape(n.object)})`;
    case "OptionalPropertyAccess":
      return `(?.${n.property} ${shape(n.object)})`;
    case "SubscriptAccess":
      return `(index ${shape(n.object)} ${shape(n.index)})`;
    case "OptionalSubscriptAccess":
      return `(?index ${shape(n.object)} ${shape(n.index)})`;
    case "SliceAccess":
      return `(slice ${shape(n.object)} ${n.start ? shape(n.start) : "_"} ${n.end ? shape(n.end) : "_"})`;
    case "ListLiteral":
      return `[${n.elements.map(shape).join(", ")}]`;
    case "DictLiteral":
      return `{${n.entries.map((e) => (e.value.kind === "Spread" ? shape(e.value) : `${e.computed ? `[${shape(e.key)}]` : shape(e.key)}: ${shape(e.value)}`)).join(", ")}}`;
    case "StructConstruct":
      return `(new ${n.structName} {${n.fields.map((e) => (e.value.kind === "Spread" ? shape(e.value) : `${shape(e.key)}: ${shape(e.value)}`)).join(", ")}})`;
    case "Spread":
      return `...${shape(n.expr)}`;
    case "Closure":
      return `(${n.fnSyntax ? "fn" : "closure"} (${n.params.map(paramShape).join(", ")}) ${body(n.body)})`;
    case "PipePlaceholder":
      return `(\\${n.param} ${shape(n.body)})`;
    case "OrPattern":
      return `(| ${n.alternatives.map(shape).join(" ")})`;
    case "LetBinding":
    case "VarBinding":
      return `(${n.kind === "LetBinding" ? "let" : "var"} ${patternShape(n.pattern)}${n.type ? `: ${typeShape(n.type)}` : ""} ${shape(n.value)})`;
    case "Assignment":
      return `(${n.op ?? ""}= ${shape(n.target)} ${shape(n.value)})`;
    case "IfElse":
      return `(if ${shape(n.condition)} ${body(n.thenBody)}${n.elseBody ? " else " + body(n.elseBody) : ""})`;
    case "ForIn":
      return `(for ${patternShape(n.pattern)} ${shape(n.iterable)} ${body(n.body)})`;
    case "WhileLoop":
      return `(while ${shape(n.condition)} ${body(n.body)})`;
    case "MatchExpr":
      return `(match ${shape(n.value)}${n.arms.map((a) => ` [${shape(a.pattern)}${a.guard ? ` if ${shape(a.guard)}` : ""} -> ${body(a.body)}]`).join("")})`;
    case "TryCatch":
      return `(try ${body(n.body)}${n.hasCatchClause ? ` catch${n.errorVar ? ` ${n.errorVar}` : ""}${n.errorType ? `: ${typeShape(n.errorType)}` : ""} ${body(n.catchBody)}` : ""}${n.finallyBody ? ` finally ${body(n.finallyBody)}` : ""})`;
    case "TryExpr":
      return `(try ${body(n.body)})`;
    case "TryStar":
      return `(try* ${shape(n.operand)})`;
    case "ReturnStmt":
      return n.value ? `(return ${shape(n.value)})` : "(return)";
    case "ThrowStmt":
      return `(throw ${shape(n.value)})`;
    case "BreakStmt":
      return "(break)";
    case "ContinueStmt":
      return "(continue)";
    case "GuardStmt":
      return `(guard ${shape(n.condition)} ${body(n.elseBody)})`;
    case "RequireStmt":
      return `(require ${shape(n.condition)}${n.message ? " " + shape(n.message) : ""})`;
    case "DeferStmt":
      return `(defer ${body(n.body)})`;
    case "MutexBlock":
      return `(mutex ${body(n.body)})`;
    case "DeadlineBlock":
      return `(deadline ${shape(n.duration)} ${body(n.body)})`;
    case "Retry":
      return `(retry ${shape(n.count)} ${body(n.body)})`;
    case "YieldExpr":
      return n.value ? `(yield ${shape(n.value)})` : "(yield)";
    case "EmitExpr":
      return `(emit ${shape(n.value)})`;
    case "Parallel":
      return `(parallel ${n.mode} ${shape(n.expr)}${n.options.map(([k, v]) => ` ${k}=${shape(v)}`).join("")}${n.variable ? ` ${n.variable} ->` : ""} ${body(n.body)})`;
    case "SelectExpr":
      return `(select${n.cases.map((c) => ` [${c.variable} from ${shape(c.channel)} ${body(c.body)}]`).join("")}${n.timeout ? ` [timeout ${shape(n.timeout.duration)} ${body(n.timeout.body)}]` : ""}${n.defaultBody ? ` [default ${body(n.defaultBody)}]` : ""})`;
    case "SpawnExpr":
      return `(spawn ${body(n.body)})`;
    case "Pipeline":
      return `(${n.isPub ? "pub " : ""}pipeline ${n.name}(${n.params.join(", ")})${n.returnType ? ` -> ${typeShape(n.returnType)}` : ""}${n.extends ? ` extends ${n.extends}` : ""} ${body(n.body)})`;
    case "FnDecl":
      return `(${n.isPub ? "pub " : ""}${n.isStream ? "gen " : ""}fn ${n.name}${n.typeParams.length ? `<${n.typeParams.map((t) => (t.variance === "covariant" ? "out " : t.variance === "contravariant" ? "in " : "") + t.name).join(", ")}>` : ""}(${n.params.map(paramShape).join(", ")})${n.returnType ? ` -> ${typeShape(n.returnType)}` : ""}${n.whereClauses.length ? ` where ${n.whereClauses.map((w) => `${w.typeName}: ${w.bound}`).join(", ")}` : ""} ${body(n.body)})`;
    case "ToolDecl":
      return `(${n.isPub ? "pub " : ""}tool ${n.name}(${n.params.map(paramShape).join(", ")})${n.returnType ? ` -> ${typeShape(n.returnType)}` : ""}${n.description !== null ? ` description=${JSON.stringify(n.description)}` : ""}${n.longRunning ? " long_running" : ""} ${body(n.body)})`;
    case "SkillDecl":
      return `(skill ${n.name}${n.fields.map(([k, v]) => ` ${k}=${shape(v)}`).join("")})`;
    case "EvalPackDecl":
      return `(eval_pack ${n.bindingName ?? "_"} ${n.packId ?? "_"}${n.fields.map(([k, v]) => ` ${k}=${shape(v)}`).join("")} ${body(n.body)}${n.summarize ? ` summarize ${body(n.summarize)}` : ""})`;
    case "StructDecl":
      return `(struct ${n.name}${n.typeParams.length ? `<${n.typeParams.map((t) => t.name).join(", ")}>` : ""} ${n.fields.map((f) => `${f.name}${f.optional ? "?" : ""}${f.type ? `: ${typeShape(f.type)}` : ""}`).join(", ")})`;
    case "EnumDecl":
      return `(enum ${n.name}${n.typeParams.length ? `<${n.typeParams.map((t) => t.name).join(", ")}>` : ""} ${n.variants.map((v) => v.name + (v.fields.length ? `(${v.fields.map(paramShape).join(", ")})` : "")).join(", ")})`;
    case "TypeDecl":
      return `(type ${n.name}${n.typeParams.length ? `<${n.typeParams.map((t) => t.name).join(", ")}>` : ""} ${typeShape(n.type)})`;
    case "InterfaceDecl":
      return `(interface ${n.name}${n.associatedTypes.map((a) => ` type ${a.name}${a.type ? ` = ${typeShape(a.type)}` : ""}`).join("")}${n.methods.map((m) => ` fn ${m.name}(${m.params.map(paramShape).join(", ")})${m.returnType ? ` -> ${typeShape(m.returnType)}` : ""}`).join("")})`;
    case "ImplBlock":
      return `(impl ${n.typeName} ${n.methods.map(shape).join(" ")})`;
    case "ImportDecl":
      return `(${n.isPub ? "pub " : ""}import ${JSON.stringify(n.path)})`;
    case "SelectiveImport":
      return `(${n.isPub ? "pub " : ""}import {${n.names.join(", ")}} ${JSON.stringify(n.path)})`;
    case "OverrideDecl":
      return `(override ${n.name}(${n.params.join(", ")}) ${body(n.body)})`;
    case "AttributedDecl":
      return `(${n.attributes.map((a) => `@${a.name}${a.args.length ? `(${a.args.map((x) => (x.name ? `${x.name}: ` : "") + shape(x.value)).join(", ")})` : ""}`).join(" ")} ${shape(n.inner)})`;
  }
}
