/**
 * `harn viz FILE [-o OUT]` (spec/cli.md §7.5): a Mermaid `flowchart TD` of
 * the file's pipelines and functions, to stdout or to OUT.
 *
 * Each top-level pipeline (stadium) and function (rounded) starts a chain.
 * Only the control flow is drawn: `if` and `match` (diamonds, edges
 * labelled with the branch), `for`/`while` loops (subroutine boxes with a
 * back edge from the end of the body; `each`/`done` edges), `parallel`
 * (parallelogram), `retry` (hexagon), `try`/`catch`, `deadline`,
 * `return`/`throw` (which end their chain) and calls to the file's own
 * functions (a box with a dotted edge to the function). Other statements
 * are left out.
 */
import { writeFileSync } from "node:fs";
import { forEachChild, type Node } from "@harn/parser";
import type { Command } from "commander";
import { readAndParse } from "../parse-file";
import { reason } from "../targets";
import type { SetExitCode } from "./index";

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("viz")
    .description("print a Mermaid flowchart of a .harn file's pipelines and functions")
    .argument("<file>", "script to draw")
    .option("-o <out>", "write the chart to this file instead of stdout")
    .action((file: string, opts: { o?: string }) => {
      setExitCode(viz(file, opts.o));
    });
}

function viz(file: string, out: string | undefined): number {
  const parsed = readAndParse(file);
  if (parsed === undefined) return 1;
  const { source, program } = parsed;
  const chart = new Flowchart(source).draw(program.items);
  if (out === undefined) {
    process.stdout.write(chart);
    return 0;
  }
  try {
    writeFileSync(out, chart);
  } catch (e) {
    process.stderr.write(`Failed to write ${out}: ${reason(e)}\n`);
    return 1;
  }
  return 0;
}

/** Where a chain continues: a node, and the label of the edge leaving it. */
interface Tail {
  id: string;
  label?: string;
}

type Shape = readonly [open: string, close: string];
const STADIUM: Shape = ["([", "])"];
const ROUNDED: Shape = ["(", ")"];
const BOX: Shape = ["[", "]"];
const DIAMOND: Shape = ["{", "}"];
const SUBROUTINE: Shape = ["[[", "]]"];
const PARALLELOGRAM: Shape = ["[/", "/]"];
const HEXAGON: Shape = ["{{", "}}"];

function unwrap(n: Node): Node {
  while (n.kind === "AttributedDecl") n = n.inner;
  return n;
}

export class Flowchart {
  private readonly lines = ["flowchart TD"];
  private count = 0;
  private readonly functions = new Map<string, string>();

  constructor(private readonly source: string) {}

  draw(items: readonly Node[]): string {
    const chains: [Node[], string][] = [];
    for (const item of items) {
      const n = unwrap(item);
      if (n.kind === "Pipeline") chains.push([n.body, this.node(STADIUM, `pipeline ${n.name}`)]);
      else if (n.kind === "FnDecl") {
        const id = this.node(ROUNDED, `fn ${n.name}`);
        this.functions.set(n.name, id);
        chains.push([n.body, id]);
      }
    }
    for (const [body, start] of chains) this.body(body, [{ id: start }]);
    return this.lines.join("\n") + "\n";
  }

  private node(shape: Shape, label: string): string {
    const id = `n${this.count++}`;
    this.lines.push(`  ${id}${shape[0]}"${escape(label)}"${shape[1]}`);
    return id;
  }

  private connect(tails: readonly Tail[], to: string): void {
    for (const t of tails) this.lines.push(`  ${t.id} -->${t.label !== undefined ? `|${escape(t.label)}|` : ""} ${to}`);
  }

  /** A node after the tails; the chain continues from it. */
  private step(tails: readonly Tail[], shape: Shape, label: string): string {
    const id = this.node(shape, label);
    this.connect(tails, id);
    return id;
  }

  private text(n: { span: Node["span"] }): string {
    const t = this.source.slice(n.span.start, n.span.end).replace(/\s+/g, " ").trim();
    return t.length > 40 ? t.slice(0, 39) + "…" : t;
  }

  private body(nodes: readonly Node[], tails: Tail[]): Tail[] {
    for (const n of nodes) tails = this.statement(n, tails);
    return tails;
  }

  private statement(n: Node, tails: Tail[]): Tail[] {
    switch (n.kind) {
      case "IfElse": {
        const d = this.step(tails, DIAMOND, `if ${this.text(n.condition)}`);
        const then = this.body(n.thenBody, [{ id: d, label: "then" }]);
        const other = n.elseBody ? this.body(n.elseBody, [{ id: d, label: "else" }]) : [{ id: d, label: "else" }];
        return [...then, ...other];
      }
      case "MatchExpr": {
        const d = this.step(tails, DIAMOND, `match ${this.text(n.value)}`);
        return n.arms.flatMap((arm) => this.body(arm.body, [{ id: d, label: this.text(arm.pattern) }]));
      }
      case "ForIn":
      case "WhileLoop": {
        const label = n.kind === "ForIn" ? `for ${this.text(n.pattern)} in ${this.text(n.iterable)}` : `while ${this.text(n.condition)}`;
        const loop = this.step(tails, SUBROUTINE, label);
        this.connect(this.body(n.body, [{ id: loop, label: "each" }]), loop);
        return [{ id: loop, label: "done" }];
      }
      case "Parallel":
        return this.body(n.body, [{ id: this.step(tails, PARALLELOGRAM, `parallel ${n.mode} ${this.text(n.expr)}`) }]);
      case "Retry":
        return this.body(n.body, [{ id: this.step(tails, HEXAGON, `retry ${this.text(n.count)}`) }]);
      case "DeadlineBlock":
        return this.body(n.body, [{ id: this.step(tails, HEXAGON, `deadline ${this.text(n.duration)}`) }]);
      case "TryCatch": {
        const t = this.step(tails, BOX, "try");
        const ok = this.body(n.body, [{ id: t }]);
        const caught = n.hasCatchClause ? this.body(n.catchBody, [{ id: t, label: "catch" }]) : [];
        const joined = [...ok, ...caught];
        return n.finallyBody ? this.body(n.finallyBody, [{ id: this.step(joined, BOX, "finally") }]) : joined;
      }
      case "ReturnStmt":
        this.step(tails, STADIUM, "return");
        return [];
      case "ThrowStmt":
        this.step(tails, STADIUM, "throw");
        return [];
      default:
        for (const name of this.calls(n)) {
          const id = this.step(tails, BOX, `call ${name}`);
          this.lines.push(`  ${id} -.-> ${this.functions.get(name)}`);
          tails = [{ id }];
        }
        return tails;
    }
  }

  /** Calls to the file's own functions inside a statement, in source order. */
  private calls(n: Node): string[] {
    const found: string[] = [];
    const visit = (x: Node) => {
      if (x.kind === "FunctionCall" && this.functions.has(x.name)) found.push(x.name);
      forEachChild(x, visit);
    };
    visit(n);
    return found;
  }
}

/** Mermaid label text: quotes and the characters Mermaid treats specially. */
function escape(s: string): string {
  return s.replace(/"/g, "#quot;").replace(/</g, "#lt;").replace(/>/g, "#gt;");
}
