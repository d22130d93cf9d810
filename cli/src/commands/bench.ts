/**
 * `harn bench FILE [-n N]` (spec/cli.md §7.4): parse the file once, then
 * run it N times (default 10), each on a fresh runtime, and report the wall
 * time and the LLM calls, tokens and cost of all runs together. The
 * script's own output is discarded (the report is the output); a run that
 * fails stops the benchmark with the error, exit 1.
 *
 * Report (stdout):
 * ```
 * bench {file}: {N} runs
 *   total  {ms} ms
 *   mean   {ms} ms  min {ms} ms  max {ms} ms
 *   llm    {calls} calls, {input} input tokens, {output} output tokens, ${cost}
 * ```
 */
import { checkStructure, renderDiagnostic } from "@harn/parser";
import type { Command } from "commander";
import { loadEngine } from "../engine";
import { positiveInt } from "../int-options";
import { readAndParse } from "../parse-file";
import type { SetExitCode } from "./index";

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("bench")
    .description("run a .harn file N times on fresh runtimes and report wall time and LLM usage")
    .argument("<file>", "script to run")
    .option("-n <runs>", "number of runs", positiveInt, 10)
    .action(async (file: string, opts: { n: number }) => {
      setExitCode(await bench(file, opts.n));
    });
}

interface LlmTotals {
  calls: number;
  input: number;
  output: number;
  usd: number;
}

async function bench(file: string, runs: number): Promise<number> {
  const parsed = readAndParse(file);
  if (parsed === undefined) return 1;
  const { source, program } = parsed;
  const structural = checkStructure(program);
  if (structural.length > 0) {
    process.stderr.write(renderDiagnostic(structural[0]!, file, source));
    return 1;
  }
  const engine = await loadEngine();
  const llm: LlmTotals = { calls: 0, input: 0, output: 0, usd: 0 };
  const times: number[] = [];
  const sink = { write() {} };
  for (let i = 0; i < runs; i++) {
    const rt = engine.createRuntime({ stdout: sink, stderr: sink, cwd: process.cwd(), env: process.env, argv: [] });
    engine.setTurnObserver(rt, {
      event(ev) {
        if (ev.kind !== "completed") return;
        llm.calls++;
        llm.input += ev.input_tokens;
        llm.output += ev.output_tokens;
        llm.usd += engine.costUsd(ev.model ?? "", ev.input_tokens, ev.output_tokens);
      },
    });
    const t0 = performance.now();
    const o = await engine.runSource(rt, program, file).outcome;
    times.push(performance.now() - t0);
    if (o.kind === "ok" || (o.kind === "exit" && o.code === 0)) continue;
    const why =
      o.kind === "error"
        ? engine.renderRuntimeError(o.error, file, (f) => (f === file ? source : engine.readSourceFile(f)))
        : o.kind === "exit"
          ? `error: the script exited with code ${o.code}\n`
          : o.kind === "syntax"
            ? `error: ${o.errors[0]!.message}\n`
            : `error: ${o.message}\n`;
    process.stderr.write(`run ${i + 1} of ${runs} failed:\n${why}`);
    return 1;
  }
  const total = times.reduce((a, b) => a + b, 0);
  const ms = (x: number) => x.toFixed(1);
  process.stdout.write(
    `bench ${file}: ${runs} run${runs === 1 ? "" : "s"}\n` +
      `  total  ${ms(total)} ms\n` +
      `  mean   ${ms(total / runs)} ms  min ${ms(Math.min(...times))} ms  max ${ms(Math.max(...times))} ms\n` +
      `  llm    ${llm.calls} calls, ${llm.input} input tokens, ${llm.output} output tokens, $${llm.usd.toFixed(4)}\n`,
  );
  return 0;
}
