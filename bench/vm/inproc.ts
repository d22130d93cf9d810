/**
 * In-process timing of one workload (no process start-up, several rounds
 * so the JIT is warm): `node bench/vm/inproc.mjs FILE [ROUNDS]` after
 * `node bench/vm/build-inproc.mjs`. A profiling aid for the evaluator; the
 * official comparison is run.mjs.
 */
import { readFileSync } from "node:fs";
import { parse } from "@harn/parser";
import { installStdlib } from "@harn/stdlib";
import { ProgramRunner, Runtime } from "@harn/vm";

const file = process.argv[2]!;
const rounds = Number(process.argv[3] ?? "5");
const source = readFileSync(file, "utf8");
const { program, errors } = parse(source);
if (errors.length > 0) throw new Error(errors[0]!.message);
for (let i = 0; i < rounds; i++) {
  let out = "";
  const rt = new Runtime({ stdout: { write: (t) => void (out += t) }, stderr: { write: () => {} }, cwd: process.cwd(), env: {} });
  installStdlib(rt);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await new ProgramRunner(rt, { file }).run(program);
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1000;
  console.log(`round ${i + 1}: wall ${(performance.now() - t0).toFixed(1)} ms, cpu ${cpu.toFixed(1)} ms  ${out.trim().slice(0, 40)}`);
}
