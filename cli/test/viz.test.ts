/**
 * `harn viz` (spec/cli.md §7.5): the Mermaid flowchart of a file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-viz-", harn: "one-file", colour: "inherit", timeout: 30_000 });
const { harn } = cli;

const SCRIPT = `fn check(x) {
  if x > 1 {
    throw "big"
  }
  return x
}

pipeline default(task) {
  for i in [1, 2] {
    check(i)
  }
  parallel each [1, 2] { v -> v }
}
`;

const CHART = `flowchart TD
  n0("fn check")
  n1(["pipeline default"])
  n2{"if x #gt; 1"}
  n0 --> n2
  n3(["throw"])
  n2 -->|then| n3
  n4(["return"])
  n2 -->|else| n4
  n5[["for i in [1, 2]"]]
  n1 --> n5
  n6["call check"]
  n5 -->|each| n6
  n6 -.-> n0
  n6 --> n5
  n7[/"parallel each [1, 2]"/]
  n5 -->|done| n7
`;

describe("harn viz", () => {
  it("prints the flowchart of pipelines, functions, branches, loops and calls", () => {
    writeFileSync(join(cli.dir, "a.harn"), SCRIPT);
    expect(harn(["viz", "a.harn"])).toMatchObject({ code: 0, stdout: CHART, stderr: "" });
  });

  it("-o writes the chart to a file; a syntax error is rendered, exit 1", () => {
    writeFileSync(join(cli.dir, "a.harn"), SCRIPT);
    expect(harn(["viz", "a.harn", "-o", "chart.mmd"])).toMatchObject({ code: 0, stdout: "" });
    expect(readFileSync(join(cli.dir, "chart.mmd"), "utf8")).toBe(CHART);
    writeFileSync(join(cli.dir, "bad.harn"), "let x = )\n");
    const r = harn(["viz", "bad.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: expected expression, found )\n  --> bad.harn:1:9\n");
  });
});
