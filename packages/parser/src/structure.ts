/**
 * Structural errors that the reference reports after parsing, before
 * anything runs (spec/syntax.md §9.2, semantics.md §10). Both `harn check`
 * and the VM run this pass; the message texts are the reference's.
 *
 * Scoping decisions (the spec names the errors, not every boundary):
 * - only `for` and `while` bodies are loops; a function, tool, closure,
 *   pipeline or override body starts afresh (a `break` in a closure inside a
 *   loop is an error, as in lint.md §3.2); `parallel`, `spawn`, `retry` and
 *   match arms are not loops;
 * - `try*` needs any enclosing function body: fn, tool, pipeline, override
 *   or closure (closures are functions with a return target too);
 * - `yield` is rejected directly inside a `gen fn` body (a nested plain fn or
 *   closure is its own body).
 */
import type { Node, Program, Span } from "./ast";
import type { Diagnostic } from "./diagnostics";
import { forEachChild, forEachPatternDefault } from "./visit";

/** A structural error: a `Diagnostic` with code `structure` and a short
 * caret label. */
function structureError(message: string, span: Span, label: string): Diagnostic {
  return { code: "structure", severity: "error", message, span, label };
}

export const STRUCTURE_MESSAGES = {
  breakOutsideLoop: "break outside of loop",
  continueOutsideLoop: "continue outside of loop",
  tryStarOutsideFunction: "try* requires an enclosing function (fn, tool, or pipeline) so the rethrow has a target",
  yieldInGenFn: "`yield` is not a stream emit; use `emit` inside `gen fn`",
  durationTooLarge: "duration literal is too large",
} as const;

const I64_MAX = 9223372036854775807n;

interface Context {
  loop: boolean;
  fn: boolean;
  genFn: boolean;
}

export function checkStructure(program: Program): Diagnostic[] {
  const errors: Diagnostic[] = [];
  const top: Context = { loop: false, fn: false, genFn: false };

  function visit(node: Node, ctx: Context): void {
    switch (node.kind) {
      case "BreakStmt":
        if (!ctx.loop) errors.push(structureError(STRUCTURE_MESSAGES.breakOutsideLoop, node.span, "not inside a loop"));
        return;
      case "ContinueStmt":
        if (!ctx.loop) errors.push(structureError(STRUCTURE_MESSAGES.continueOutsideLoop, node.span, "not inside a loop"));
        return;
      case "TryStar":
        if (!ctx.fn) errors.push(structureError(STRUCTURE_MESSAGES.tryStarOutsideFunction, node.span, "no enclosing function"));
        break;
      case "YieldExpr":
        if (ctx.genFn) errors.push(structureError(STRUCTURE_MESSAGES.yieldInGenFn, node.span, "inside a `gen fn`"));
        break;
      case "DurationLiteral":
        if (node.ms > I64_MAX) errors.push(structureError(STRUCTURE_MESSAGES.durationTooLarge, node.span, "too large"));
        return;
      case "FnDecl":
        visitChildren(node, { loop: false, fn: true, genFn: node.isStream });
        return;
      case "ToolDecl":
      case "Closure":
      case "Pipeline":
      case "OverrideDecl":
        visitChildren(node, { loop: false, fn: true, genFn: false });
        return;
      case "ForIn":
        visit(node.iterable, ctx);
        visitPatternDefaults(node, ctx);
        for (const s of node.body) visit(s, { ...ctx, loop: true });
        return;
      case "WhileLoop":
        visit(node.condition, ctx);
        for (const s of node.body) visit(s, { ...ctx, loop: true });
        return;
      default:
        break;
    }
    visitChildren(node, ctx);
  }

  function visitChildren(node: Node, ctx: Context): void {
    forEachChild(node, (child) => visit(child, ctx));
  }

  function visitPatternDefaults(node: Extract<Node, { kind: "ForIn" }>, ctx: Context): void {
    forEachPatternDefault(node.pattern, (d) => visit(d, ctx));
  }

  for (const item of program.items) visit(item, top);
  return errors;
}
