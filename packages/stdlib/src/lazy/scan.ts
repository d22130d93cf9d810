/**
 * The names a program may call builtins by, for `preloadBuiltins`: every
 * called name and every identifier (a builtin can be passed as a value,
 * `xs.map(to_string)`), `ns.member` of a method call on a name (a
 * namespace dict's builtin, `tools.run_command(…)`), plus the builtins the evaluator calls on a
 * program's behalf (`tool` declarations register through `tool_registry`
 * and `tool_define`, `skill` declarations through `skill_registry` and
 * `skill_define`, `eval_pack` declarations through `eval_pack_manifest`). An over-approximation is harmless: a local that
 * shares a builtin's name only loads that builtin's group early.
 */
import { forEachChild, type Node, type Program } from "@harn/parser";

export function builtinNamesIn(program: Program | readonly Node[], into: Set<string> = new Set()): Set<string> {
  const stack: Node[] = "items" in program ? [...program.items] : [...program];
  const push = (n: Node) => void stack.push(n);
  while (stack.length > 0) {
    const node = stack.pop()!;
    switch (node.kind) {
      case "FunctionCall":
      case "Identifier":
        into.add(node.name);
        break;
      case "MethodCall":
        // a namespace member: `tools.run_command(…)` calls `tools.run_command`
        if (node.object.kind === "Identifier") into.add(`${node.object.name}.${node.method}`);
        break;
      case "ToolDecl":
        into.add("tool_registry");
        into.add("tool_define");
        break;
      case "SkillDecl":
        into.add("skill_registry");
        into.add("skill_define");
        break;
      case "EvalPackDecl":
        into.add("eval_pack_manifest");
        break;
    }
    forEachChild(node, push);
  }
  return into;
}

/**
 * Builtins that the native functions of a bundled `std/...` module call
 * through the runtime (std/small.ts `builtin(ctx, NAME, …)`), which no
 * source scan sees. Hosts add them for each std module a program imports.
 */
const STD_MODULE_CALLS: Readonly<Record<string, readonly string[]>> = {
  "std/collections": ["store_get", "store_set"],
  "std/schema": ["schema_is", "schema_check", "schema_parse", "schema_pick", "schema_omit", "schema_partial", "schema_to_json_schema"],
};

export function builtinNamesOfStdModule(key: string): readonly string[] {
  return STD_MODULE_CALLS[key] ?? [];
}
