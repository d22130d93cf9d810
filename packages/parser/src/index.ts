/**
 * @harn/parser: the Harn AST, `parse()`, the structural checks that run
 * before execution, and the shared diagnostic renderer.
 */
export type * from "./ast";
export { parse, type ParseOptions, type ParseResult } from "./parse";
export type { SyntaxDiagnostic } from "./syntax-error";
export { checkStructure, STRUCTURE_MESSAGES } from "./structure";
export { forEachChild, forEachPatternDefault, forEachPatternName, forEachTypeName, patternNames, walkChildren, type BlockRole, type ChildVisitor, type TypeReference } from "./visit";
export { PIPE_PARAM } from "./pipe";
export { closestName, levenshtein } from "./suggest";
export {
  renderDiagnostic,
  syntaxDiagnostic,
  plainStyle,
  utf16Column,
  sourceLine,
  type Diagnostic,
  type FixEdit,
  type Label,
  type DiagnosticStyle,
  type Severity,
} from "./diagnostics";
