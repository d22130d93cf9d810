/**
 * `harn viz` (spec/cli.md §7.5): the Mermaid flowchart of a file.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleHarn } from "./harn-bundle";

let dir: string;
let bin: string;

function harn(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: "utf8", timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "harn-viz-"));
  bin = join(dir, "harn.mjs");
  await bundleHarn(bin);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

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
    writeFileSync(join(dir, "a.harn"), SCRIPT);
    expect(harn(["viz", "a.harn"])).toMatchObject({ code: 0, stdout: CHART, stderr: "" });
  });

  it("-o writes the chart to a file; a syntax error is rendered, exit 1", () => {
    writeFileSync(join(dir, "a.harn"), SCRIPT);
    expect(harn(["viz", "a.harn", "-o", "chart.mmd"])).toMatchObject({ code: 0, stdout: "" });
    expect(readFileSync(join(dir, "chart.mmd"), "utf8")).toBe(CHART);
    writeFileSync(join(dir, "bad.harn"), "let x = )\n");
    const r = harn(["viz", "bad.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: expected expression, found )\n  --> bad.harn:1:9\n");
  });
});
