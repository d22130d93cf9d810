/** `naming-convention` (lint.md §3.23). */
import type { Node } from "@harn/parser";
import type { Rule } from "../types";

const isSnake = (s: string): boolean => /^[a-z_][a-z0-9_]*$/.test(s);
const isPascal = (s: string): boolean => /^[A-Z][A-Za-z0-9]*$/.test(s);
const ALNUM = /[\p{L}\p{N}]/u;

export function toSnake(name: string): string {
  let out = "";
  [...name].forEach((c, i) => {
    const upper = c !== c.toLowerCase() && c === c.toUpperCase();
    if (upper) out += (i === 0 ? "" : "_") + c.toLowerCase();
    else if (ALNUM.test(c) || c === "_") out += c.toLowerCase();
  });
  return out;
}

export function toPascal(name: string): string {
  return name
    .split(/[^\p{L}\p{N}]+/u)
    .filter((p) => p.length > 0)
    .map((p) => {
      const [first, ...rest] = [...p];
      return first!.toUpperCase() + rest.join("").toLowerCase();
    })
    .join("");
}

export const namingConvention: Rule = {
  id: "naming-convention",
  meta: {
    reusable: true,
    severity: "warning",
    description: "fn/tool names not in snake_case; struct/enum/interface/type names not in PascalCase",
    fixable: false,
    messages: {
      snake: { message: "function `{name}` should use snake_case", help: "rename `{name}` to snake_case (for example `{suggestion}`)" },
      pascal: { message: "{kind} `{name}` should use PascalCase", help: "rename `{name}` to PascalCase (for example `{suggestion}`)" },
    },
  },
  create(ctx) {
    const fn = (n: Node & { name: string }): void => {
      if (isSnake(n.name)) return;
      ctx.report({
        node: n,
        messageId: "snake",
        data: { name: n.name, suggestion: toSnake(n.name) },
      });
    };
    const type = (kind: string) => (n: Node & { name: string }) => {
      if (isPascal(n.name)) return;
      ctx.report({
        node: n,
        messageId: "pascal",
        data: { kind, name: n.name, suggestion: toPascal(n.name) },
      });
    };
    return {
      FnDecl: fn,
      ToolDecl: fn,
      StructDecl: type("struct"),
      EnumDecl: type("enum"),
      InterfaceDecl: type("interface"),
      TypeDecl: type("type"),
    };
  },
};
