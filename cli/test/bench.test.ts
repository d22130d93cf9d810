/**
 * `harn bench` (spec/cli.md §7.4): N runs on fresh runtimes, wall time and
 * aggregated LLM usage in the report.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-bench-", harn: "one-file", colour: "inherit", timeout: 60_000 });
const { harn } = cli;

describe("harn bench", () => {
  it("runs N times on fresh runtimes and sums the LLM calls, tokens and cost", () => {
    // a fresh runtime each run: the appended file grows by one line per run
    writeFileSync(
      join(cli.dir, "b.harn"),
      'pipeline default() {\n  append_file("runs.txt", "x\\n")\n  let r = llm_call("hello there", nil, {provider: "mock", model: "gpt-4o"})\n  println(r.text)\n}\n',
    );
    const r = harn(["bench", "b.harn", "-n", "3"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^bench b\.harn: 3 runs\n {2}total {2}\d+\.\d ms\n {2}mean {3}\d+\.\d ms {2}min \d+\.\d ms {2}max \d+\.\d ms\n/);
    const llm = /llm {4}(\d+) calls, (\d+) input tokens, (\d+) output tokens, \$(\d+\.\d{4})\n$/.exec(r.stdout);
    expect(llm).not.toBeNull();
    const [calls, input, output, usd] = llm!.slice(1).map(Number);
    expect(calls).toBe(3);
    expect(input! % 3).toBe(0);
    expect(usd).toBeCloseTo((input! * 2.5 + output! * 10) / 1e6, 4);
    expect(spawnSync("cat", [join(cli.dir, "runs.txt")], { encoding: "utf8" }).stdout).toBe("x\nx\nx\n");
  });

  it("stops at a failing run with its rendered error, exit 1; -n must be positive", () => {
    writeFileSync(join(cli.dir, "bad.harn"), 'throw "nope"\n');
    const r = harn(["bench", "bad.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^run 1 of 10 failed:\nerror: Thrown: nope\n {2}--> bad\.harn:1:1\n/);
    expect(harn(["bench", "bad.harn", "-n", "0"]).code).toBe(2);
  });
});
