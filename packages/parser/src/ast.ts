/**
 * The Harn AST: plain, typed, chevrotain-free data.
 *
 * Node names and fields mirror spec/syntax.md §10 (which mirrors the
 * reference implementation), so that checker and lint rules port directly.
 * Every node carries a `span`. Optional fields are `null` when absent.
 *
 * Consumers (VM, linter) dispatch on `kind`. Statement lists are `Node[]`:
 * there is one node union, and any node may appear in a statement list.
 */

/** A source range. Offsets index the JS source string (UTF-16 units) so
 * `source.slice(start, end)` is the node's text; `line`/`column` are
 * 1-based and count Unicode code points (spec/syntax.md §0.3). */
export interface Span {
  start: number;
  end: number;
  line: number;
  column: number;
  endLine: number;
  /** 1-based code-point column just past the last character. */
  endColumn: number;
}

interface Base {
  span: Span;
}

// ---------------------------------------------------------------------------
// Types (spec/syntax.md §8)

export type TypeExpr =
  | { kind: "Named"; name: string; span: Span }
  | { kind: "Union"; types: TypeExpr[]; span: Span }
  | { kind: "Shape"; fields: ShapeField[]; span: Span }
  | { kind: "List"; elem: TypeExpr; span: Span }
  | { kind: "Dict"; key: TypeExpr; value: TypeExpr; span: Span }
  | { kind: "Iter"; elem: TypeExpr; span: Span }
  | { kind: "Generator"; elem: TypeExpr; span: Span }
  | { kind: "Stream"; elem: TypeExpr; span: Span }
  | { kind: "Applied"; name: string; args: TypeExpr[]; span: Span }
  | { kind: "FnType"; params: TypeExpr[]; ret: TypeExpr; span: Span }
  | { kind: "Never"; span: Span }
  | { kind: "LitString"; value: string; span: Span }
  | { kind: "LitInt"; value: bigint; span: Span };

export interface ShapeField {
  name: string;
  type: TypeExpr;
  optional: boolean;
}

export interface TypeParam {
  name: string;
  variance: "invariant" | "covariant" | "contravariant";
}

export interface Param {
  name: string;
  type: TypeExpr | null;
  default: Node | null;
  rest: boolean;
  span: Span;
}

// ---------------------------------------------------------------------------
// Binding patterns (`let`, `var`, `for`) — spec/syntax.md §6.1

export type Pattern =
  | { kind: "ident"; name: string; span: Span }
  | { kind: "dict"; fields: DictPatternField[]; span: Span }
  | { kind: "list"; elements: ListPatternElement[]; span: Span }
  | { kind: "pair"; first: string; second: string; span: Span };

export interface DictPatternField {
  key: string;
  alias: string | null;
  default: Node | null;
  rest: boolean;
  span: Span;
}

export interface ListPatternElement {
  name: string;
  default: Node | null;
  rest: boolean;
  span: Span;
}

// ---------------------------------------------------------------------------
// Declarations

export interface Program extends Base {
  kind: "Program";
  items: Node[];
}

export interface Pipeline extends Base {
  kind: "Pipeline";
  name: string;
  params: string[];
  returnType: TypeExpr | null;
  body: Node[];
  extends: string | null;
  isPub: boolean;
}

export interface FnDecl extends Base {
  kind: "FnDecl";
  name: string;
  /** Span of the name token (diagnostics point here). */
  nameSpan: Span;
  typeParams: TypeParam[];
  params: Param[];
  returnType: TypeExpr | null;
  whereClauses: { typeName: string; bound: string }[];
  body: Node[];
  isPub: boolean;
  /** `gen fn`: a stream generator. */
  isStream: boolean;
}

export interface ToolDecl extends Base {
  kind: "ToolDecl";
  name: string;
  nameSpan: Span;
  description: string | null;
  params: Param[];
  returnType: TypeExpr | null;
  body: Node[];
  isPub: boolean;
  /** Extension (extensions.md §1.1): `long_running true` in the body header
   * or an `@long_running` attribute. */
  longRunning: boolean;
}

export interface SkillDecl extends Base {
  kind: "SkillDecl";
  name: string;
  fields: [string, Node][];
  isPub: boolean;
}

export interface EvalPackDecl extends Base {
  kind: "EvalPackDecl";
  /** NAME, or the name derived from the id when the header has none. */
  bindingName: string;
  packId: string | null;
  fields: [string, Node][];
  body: Node[];
  summarize: Node[] | null;
  isPub: boolean;
}

export interface StructDecl extends Base {
  kind: "StructDecl";
  name: string;
  typeParams: TypeParam[];
  fields: { name: string; type: TypeExpr | null; optional: boolean; span: Span }[];
  isPub: boolean;
}

export interface EnumDecl extends Base {
  kind: "EnumDecl";
  name: string;
  typeParams: TypeParam[];
  variants: { name: string; fields: Param[]; span: Span }[];
  isPub: boolean;
}

export interface TypeDecl extends Base {
  kind: "TypeDecl";
  name: string;
  typeParams: TypeParam[];
  type: TypeExpr;
}

export interface InterfaceDecl extends Base {
  kind: "InterfaceDecl";
  name: string;
  typeParams: TypeParam[];
  associatedTypes: { name: string; type: TypeExpr | null }[];
  methods: { name: string; typeParams: TypeParam[]; params: Param[]; returnType: TypeExpr | null; span: Span }[];
}

export interface ImplBlock extends Base {
  kind: "ImplBlock";
  typeName: string;
  methods: FnDecl[];
}

export interface ImportDecl extends Base {
  kind: "ImportDecl";
  path: string;
  isPub: boolean;
}

export interface SelectiveImport extends Base {
  kind: "SelectiveImport";
  names: string[];
  /** One span per name, in order. */
  nameSpans: Span[];
  path: string;
  isPub: boolean;
}

export interface OverrideDecl extends Base {
  kind: "OverrideDecl";
  name: string;
  params: string[];
  body: Node[];
}

export type AttributeArgValue = Node;

export interface Attribute {
  name: string;
  args: { name: string | null; value: AttributeArgValue }[];
  span: Span;
}

export interface AttributedDecl extends Base {
  kind: "AttributedDecl";
  attributes: Attribute[];
  inner: Node;
}

// ---------------------------------------------------------------------------
// Statements

export interface LetBinding extends Base {
  kind: "LetBinding";
  pattern: Pattern;
  type: TypeExpr | null;
  value: Node;
}

export interface VarBinding extends Base {
  kind: "VarBinding";
  pattern: Pattern;
  type: TypeExpr | null;
  value: Node;
}

export type AssignOp = null | "+" | "-" | "*" | "/" | "%";

export interface Assignment extends Base {
  kind: "Assignment";
  /** Identifier | PropertyAccess | SubscriptAccess */
  target: Node;
  value: Node;
  op: AssignOp;
}

export interface IfElse extends Base {
  kind: "IfElse";
  condition: Node;
  thenBody: Node[];
  /** `else if` is an elseBody holding a single IfElse. */
  elseBody: Node[] | null;
}

export interface ForIn extends Base {
  kind: "ForIn";
  pattern: Pattern;
  iterable: Node;
  body: Node[];
}

export interface WhileLoop extends Base {
  kind: "WhileLoop";
  condition: Node;
  body: Node[];
}

export interface MatchArm {
  pattern: Node;
  guard: Node | null;
  body: Node[];
  span: Span;
}

export interface MatchExpr extends Base {
  kind: "MatchExpr";
  value: Node;
  arms: MatchArm[];
}

export interface TryCatch extends Base {
  kind: "TryCatch";
  body: Node[];
  errorVar: string | null;
  errorType: TypeExpr | null;
  /** `[]` with `errorVar === null` means "no catch" (spec/syntax.md §10). */
  catchBody: Node[];
  finallyBody: Node[] | null;
  /** True when a `catch` clause was written at all (even `catch {}`). The
   * runtime follows the reference (no catch when the handler is empty and
   * binds nothing); the linter may want the literal truth. */
  hasCatchClause: boolean;
}

export interface TryExpr extends Base {
  kind: "TryExpr";
  body: Node[];
}

export interface TryStar extends Base {
  kind: "TryStar";
  operand: Node;
}

export interface ReturnStmt extends Base {
  kind: "ReturnStmt";
  value: Node | null;
}

export interface ThrowStmt extends Base {
  kind: "ThrowStmt";
  value: Node;
}

export interface BreakStmt extends Base {
  kind: "BreakStmt";
}

export interface ContinueStmt extends Base {
  kind: "ContinueStmt";
}

export interface GuardStmt extends Base {
  kind: "GuardStmt";
  condition: Node;
  elseBody: Node[];
}

export interface RequireStmt extends Base {
  kind: "RequireStmt";
  condition: Node;
  message: Node | null;
}

export interface DeferStmt extends Base {
  kind: "DeferStmt";
  body: Node[];
}

export interface MutexBlock extends Base {
  kind: "MutexBlock";
  body: Node[];
}

export interface DeadlineBlock extends Base {
  kind: "DeadlineBlock";
  duration: Node;
  body: Node[];
}

export interface Retry extends Base {
  kind: "Retry";
  count: Node;
  body: Node[];
}

export interface YieldExpr extends Base {
  kind: "YieldExpr";
  value: Node | null;
}

export interface EmitExpr extends Base {
  kind: "EmitExpr";
  value: Node;
}

export type ParallelMode = "count" | "each" | "eachStream" | "settle";

export interface Parallel extends Base {
  kind: "Parallel";
  mode: ParallelMode;
  expr: Node;
  variable: string | null;
  body: Node[];
  options: [string, Node][];
}

export interface SelectCase {
  variable: string;
  channel: Node;
  body: Node[];
  span: Span;
}

export interface SelectExpr extends Base {
  kind: "SelectExpr";
  cases: SelectCase[];
  timeout: { duration: Node; body: Node[] } | null;
  defaultBody: Node[] | null;
}

export interface SpawnExpr extends Base {
  kind: "SpawnExpr";
  body: Node[];
}

// ---------------------------------------------------------------------------
// Expressions

export interface IntLiteral extends Base {
  kind: "IntLiteral";
  /** Always within the signed 64-bit range. */
  value: bigint;
}

export interface FloatLiteral extends Base {
  kind: "FloatLiteral";
  value: number;
}

export interface StringLiteral extends Base {
  kind: "StringLiteral";
  value: string;
}

export interface RawStringLiteral extends Base {
  kind: "RawStringLiteral";
  value: string;
}

export type InterpolationSegment =
  | { kind: "text"; text: string }
  /** `expr` is null when the embedded text failed to lex (the segment
   * contributes nothing). When it failed to parse, the segment is turned
   * into a `text` segment holding the raw source (spec/syntax.md §1.9.2). */
  | { kind: "expr"; expr: Node | null; source: string; line: number; column: number };

export interface InterpolatedString extends Base {
  kind: "InterpolatedString";
  segments: InterpolationSegment[];
}

export interface BoolLiteral extends Base {
  kind: "BoolLiteral";
  value: boolean;
}

export interface NilLiteral extends Base {
  kind: "NilLiteral";
}

export interface DurationLiteral extends Base {
  kind: "DurationLiteral";
  ms: bigint;
}

export interface Identifier extends Base {
  kind: "Identifier";
  name: string;
}

export interface ListLiteral extends Base {
  kind: "ListLiteral";
  /** Elements may be `Spread`. */
  elements: Node[];
}

export interface DictEntry {
  /** Identifier keys are stored as StringLiteral; computed keys keep their
   * expression; spread entries have a StringLiteral key "" and a Spread value. */
  key: Node;
  value: Node;
  computed: boolean;
}

export interface DictLiteral extends Base {
  kind: "DictLiteral";
  entries: DictEntry[];
}

export interface Spread extends Base {
  kind: "Spread";
  expr: Node;
}

export interface Closure extends Base {
  kind: "Closure";
  params: Param[];
  body: Node[];
  /** `fn(…) { … }` expression rather than `{ x -> … }`. */
  fnSyntax: boolean;
}

export interface FunctionCall extends Base {
  kind: "FunctionCall";
  name: string;
  nameSpan: Span;
  typeArgs: TypeExpr[];
  args: Node[];
}

export interface MethodCall extends Base {
  kind: "MethodCall";
  object: Node;
  method: string;
  methodSpan: Span;
  args: Node[];
}

export interface OptionalMethodCall extends Base {
  kind: "OptionalMethodCall";
  object: Node;
  method: string;
  methodSpan: Span;
  args: Node[];
}

export interface PropertyAccess extends Base {
  kind: "PropertyAccess";
  object: Node;
  property: string;
  propertySpan: Span;
}

export interface OptionalPropertyAccess extends Base {
  kind: "OptionalPropertyAccess";
  object: Node;
  property: string;
  propertySpan: Span;
}

export interface SubscriptAccess extends Base {
  kind: "SubscriptAccess";
  object: Node;
  index: Node;
}

export interface OptionalSubscriptAccess extends Base {
  kind: "OptionalSubscriptAccess";
  object: Node;
  index: Node;
}

export interface SliceAccess extends Base {
  kind: "SliceAccess";
  object: Node;
  start: Node | null;
  end: Node | null;
}

export type BinaryOperator =
  | "|>"
  | "||"
  | "&&"
  | "=="
  | "!="
  | "<"
  | ">"
  | "<="
  | ">="
  | "in"
  | "not_in"
  | "+"
  | "-"
  | "??"
  | "*"
  | "/"
  | "%"
  | "**";

export interface BinaryOp extends Base {
  kind: "BinaryOp";
  op: BinaryOperator;
  left: Node;
  right: Node;
  /** Span of the operator token. */
  opSpan: Span;
}

export interface UnaryOp extends Base {
  kind: "UnaryOp";
  op: "!" | "-";
  operand: Node;
}

export interface Ternary extends Base {
  kind: "Ternary";
  condition: Node;
  thenExpr: Node;
  elseExpr: Node;
}

export interface RangeExpr extends Base {
  kind: "RangeExpr";
  start: Node;
  end: Node;
  /** false iff written with `exclusive`. */
  inclusive: boolean;
}

export interface TryOperator extends Base {
  kind: "TryOperator";
  operand: Node;
}

export interface StructConstruct extends Base {
  kind: "StructConstruct";
  structName: string;
  fields: DictEntry[];
}

export interface OrPattern extends Base {
  kind: "OrPattern";
  alternatives: Node[];
}

/**
 * The pipe placeholder rewrite of spec/syntax.md §5.12: when the right side
 * of `|>` mentions `_`, the parser wraps it as a one-parameter function of
 * the piped value. `param` is the synthesized parameter name.
 */
export interface PipePlaceholder extends Base {
  kind: "PipePlaceholder";
  param: string;
  body: Node;
}

export type Node =
  // declarations
  | Pipeline
  | FnDecl
  | ToolDecl
  | SkillDecl
  | EvalPackDecl
  | StructDecl
  | EnumDecl
  | TypeDecl
  | InterfaceDecl
  | ImplBlock
  | ImportDecl
  | SelectiveImport
  | OverrideDecl
  | AttributedDecl
  // statements
  | LetBinding
  | VarBinding
  | Assignment
  | IfElse
  | ForIn
  | WhileLoop
  | MatchExpr
  | TryCatch
  | TryExpr
  | TryStar
  | ReturnStmt
  | ThrowStmt
  | BreakStmt
  | ContinueStmt
  | GuardStmt
  | RequireStmt
  | DeferStmt
  | MutexBlock
  | DeadlineBlock
  | Retry
  | YieldExpr
  | EmitExpr
  | Parallel
  | SelectExpr
  | SpawnExpr
  // expressions
  | IntLiteral
  | FloatLiteral
  | StringLiteral
  | RawStringLiteral
  | InterpolatedString
  | BoolLiteral
  | NilLiteral
  | DurationLiteral
  | Identifier
  | ListLiteral
  | DictLiteral
  | Spread
  | Closure
  | FunctionCall
  | MethodCall
  | OptionalMethodCall
  | PropertyAccess
  | OptionalPropertyAccess
  | SubscriptAccess
  | OptionalSubscriptAccess
  | SliceAccess
  | BinaryOp
  | UnaryOp
  | Ternary
  | RangeExpr
  | TryOperator
  | StructConstruct
  | OrPattern
  | PipePlaceholder;

export type NodeKind = Node["kind"];

/** Narrow a node union member by its kind. */
export type NodeOf<K extends NodeKind> = Extract<Node, { kind: K }>;
