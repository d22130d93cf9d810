/**
 * `pr-open-without-secret-scan` (lint.md §3.37): a must-analysis over each
 * body's control-flow graph: is a secret scan behind us on *every* path
 * when a PR-open call runs? Closures and `parallel` bodies are their own
 * graphs and start unscanned. Graphs are built only for bodies that open a
 * PR at all.
 */
import type { FunctionCall, Node } from "@harn/parser";
import type { CfgOwner } from "../cfg/cfg";
import { replay, solveForward, type ForwardAnalysis } from "../cfg/dataflow";
import { literalString } from "../long-running-calls";
import type { Rule } from "../types";
import { clearArray } from "../reuse";

const SCAN_TOOLS = new Set(["harn.secret_scan", "harn::secret_scan"]);
const PR_TOOLS = new Set(["git::push_pr", "git.push_pr", "create_pr"]);

export function isSecretScan(n: FunctionCall): boolean {
  if (n.name === "secret_scan") return true;
  if (n.name === "mcp_call") return SCAN_TOOLS.has(literalString(n.args[1]) ?? "");
  if (n.name === "host_tool_call") return SCAN_TOOLS.has(literalString(n.args[0]) ?? "");
  return false;
}

export function isPrOpen(n: FunctionCall): boolean {
  if (n.name === "mcp_call") return PR_TOOLS.has(literalString(n.args[1]) ?? "");
  if (n.name === "host_tool_call") return PR_TOOLS.has(literalString(n.args[0]) ?? "");
  return false;
}

const scanned: ForwardAnalysis<boolean> = {
  entry: false,
  join: (a, b) => a && b,
  equals: (a, b) => a === b,
  transfer: (e, s) => s || (e.k === "call" && e.node.kind === "FunctionCall" && isSecretScan(e.node)),
};

const OWNER_KINDS = new Set(["Pipeline", "FnDecl", "ToolDecl", "Closure", "Parallel"]);

export const prOpenWithoutSecretScan: Rule = {
  id: "pr-open-without-secret-scan",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A PR-open tool call not preceded by `secret_scan(..)` on every path",
    fixable: false,
    // the PR-open calls (isPrOpen)
    triggers: { words: ["mcp_call", "host_tool_call"] },
    messages: {
      unscanned: {
        message: "PR-open flow calls `git::push_pr` without a preceding `secret_scan(...)` in the same handler",
        help: "run `secret_scan(content)` first and gate the PR-open call on an empty findings list",
      },
    },
  },
  create(ctx) {
    const owners: (CfgOwner | null)[] = [];
    const marked = new Set<CfgOwner>();
    const enter = (n: Node): void => {
      owners.push(n as CfgOwner);
    };
    const exit = (): void => {
      owners.pop();
    };
    return {
      // made once per run (meta.reusable): a file starts afresh
      Program() {
        clearArray(owners);
        marked.clear();
      },
      Pipeline: enter,
      "Pipeline:exit": exit,
      FnDecl: enter,
      "FnDecl:exit": exit,
      ToolDecl: enter,
      "ToolDecl:exit": exit,
      Closure: enter,
      "Closure:exit": exit,
      Parallel: enter,
      "Parallel:exit": exit,
      // override bodies and the top level are not analysed
      OverrideDecl() {
        owners.push(null);
      },
      "OverrideDecl:exit": exit,
      FunctionCall(n) {
        const o = owners[owners.length - 1];
        if (o && OWNER_KINDS.has(o.kind) && isPrOpen(n)) marked.add(o);
      },
      finalize() {
        // a call inside `finally` exists once per path through it: report once
        const reported = new Set<Node>();
        for (const owner of marked) {
          const g = ctx.cfg(owner);
          const states = solveForward(g, scanned);
          replay(g, scanned, states, (e, before) => {
            if (e.k !== "call" || e.node.kind !== "FunctionCall" || before || !isPrOpen(e.node)) return;
            if (reported.has(e.node)) return;
            reported.add(e.node);
            ctx.report({
              node: e.node,
              messageId: "unscanned",
            });
          });
        }
      },
    };
  },
};
