/**
 * `pair-pattern-over-dict` [extension]: `for (k, v) in d` over a dict.
 * Iterating a dict yields `{key, value}` dicts and the pair pattern reads
 * `.first` / `.second`, so both names are nil on every turn
 * (semantics.md §6 "Pair pattern", listed there as a trap): the loop runs
 * and silently does nothing useful. `for (k, v) in iter(d)` yields pairs;
 * `for {key, value} in d` destructures the entries.
 *
 * Reported only when the iterable is surely a dict: a dict literal, or a
 * name bound exactly once in the file, by a `let` whose value is a dict
 * literal or whose declared type is a dict. No fix: which of the two
 * spellings the author meant is theirs to say.
 */
import type { ForIn, LetBinding, Node, TypeExpr } from "@harn/parser";
import type { Rule } from "../types";
import { clearArray } from "../reuse";

const isDictType = (t: TypeExpr | null): boolean =>
  t !== null && (t.kind === "Dict" || t.kind === "Shape" || (t.kind === "Named" && t.name === "dict"));

function surelyDict(binding: LetBinding): boolean {
  return binding.value.kind === "DictLiteral" || isDictType(binding.type);
}

export const pairPatternOverDict: Rule = {
  id: "pair-pattern-over-dict",
  meta: {
    reusable: true,
    severity: "warning",
    description: "`for (k, v) in` a dict, which binds nil to both names",
    fixable: false,
    messages: {
      pairOverDict: {
        message: "`for ({first}, {second})` over a dict binds nil to both names: iterating a dict yields {key, value} dicts, not pairs",
        help: "write `for ({first}, {second}) in iter({dict})` or `for {key, value} in {dict}`",
      },
    },
  },
  create(ctx) {
    const byName: ForIn[] = [];
    const report = (n: ForIn): void => {
      if (n.pattern.kind !== "pair") return;
      const { first, second } = n.pattern;
      ctx.report({
        node: n.iterable as Node,
        messageId: "pairOverDict",
        data: { first, second, dict: ctx.text(n.iterable) || "d" },
      });
    };
    return {
      // made once per run (meta.reusable): a file starts afresh
      Program() {
        clearArray(byName);
      },
      ForIn(n) {
        if (n.pattern.kind !== "pair") return;
        if (n.iterable.kind === "DictLiteral") report(n);
        else if (n.iterable.kind === "Identifier") byName.push(n);
      },
      finalize() {
        const f = ctx.facts;
        for (const n of byName) {
          const name = (n.iterable as Extract<Node, { kind: "Identifier" }>).name;
          const bindings = f.bindings.filter((b) => b.name === name);
          if (bindings.length !== 1 || f.params.some((p) => p.name === name)) continue;
          const b = bindings[0]!;
          if (b.node.kind === "LetBinding" && !b.destructured && surelyDict(b.node)) report(n);
        }
      },
    };
  },
};
