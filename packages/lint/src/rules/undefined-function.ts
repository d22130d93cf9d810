/**
 * `undefined-function` (lint.md §3.8): a plain call to a name that nothing
 * defines. Every name bound anywhere in the file counts as callable,
 * including pipeline parameters, loop and catch variables (quirk Q5, FIX).
 */
import { BUILTIN_NAMES, isBuiltinName } from "../builtins";
import { closestName } from "@harn/parser";
import type { Rule } from "../types";

export const undefinedFunction: Rule = {
  id: "undefined-function",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A call to a name that is not a builtin, declaration, import or variable",
    fixable: false,
    messages: {
      undefined: { message: "function `{name}` is not defined", help: "check the spelling or import `{name}`" },
      undefinedNear: { message: "function `{name}` is not defined", help: "did you mean `{closest}`?" },
    },
  },
  create(ctx) {
    return {
      finalize() {
        const { facts, project: options } = ctx;
        // most files import no module by wildcard: no set for them
        let imported: Set<string> | null = null;
        for (const w of facts.wildcardImports) {
          const names = options.wildcardExports.get(w.path);
          if (!names) return; // the module graph cannot list them: skip the file
          imported ??= new Set();
          for (const n of names) imported.add(n);
        }
        let candidates: string[] | null = null;
        for (const call of facts.calls) {
          const name = call.name;
          if (
            name.startsWith("__") ||
            name.startsWith("hostlib_") ||
            isBuiltinName(name, options.extraBuiltins) ||
            facts.knownFunctions.has(name) ||
            facts.callableVariables.has(name) ||
            imported?.has(name) === true
          )
            continue;
          candidates ??= [...new Set([...BUILTIN_NAMES, ...options.extraBuiltins, ...facts.knownFunctions, ...(imported ?? [])])].sort();
          const closest = closestName(call.name, candidates);
          ctx.report({
            node: call,
            messageId: closest ? "undefinedNear" : "undefined",
            data: { name: call.name, closest: closest ?? "" },
          });
        }
      },
    };
  },
};
