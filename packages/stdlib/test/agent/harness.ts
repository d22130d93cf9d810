/**
 * Runs real Harn programs (parser + evaluator + the whole stdlib) against a
 * fresh Runtime, the way `harn run` does, and captures what they print.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkStructure, parse } from "@harn/parser";
import { type Clock, HarnError, ProgramRunner, Runtime } from "@harn/vm";
import { installStdlibEagerly as installStdlib } from "../../src/eager";

export interface RunResult {
  stdout: string;
  stderr: string;
  /** The uncaught error's description, or null. */
  error: string | null;
  rt: Runtime;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Called after the runtime is built, before the program runs. */
  setup?: (rt: Runtime) => void;
  /** The runtime's clock (default: real time). */
  clock?: Clock;
  /** Also copy stderr to the test process's stderr (debugging). */
  echo?: boolean;
}

export async function runHarn(source: string, opts: RunOptions = {}): Promise<RunResult> {
  let stdout = "";
  let stderr = "";
  const rt = new Runtime({
    stdout: { write: (t) => void (stdout += t) },
    stderr: { write: (t) => void ((stderr += t), opts.echo && process.stderr.write(t)) },
    cwd: opts.cwd ?? mkdtempSync(join(tmpdir(), "harn-agent-test-")),
    env: { HARN_LLM_CALLS_DISABLED: "1", ...(opts.env ?? {}) },
    argv: null,
    clock: opts.clock,
  });
  installStdlib(rt);
  opts.setup?.(rt);
  const { program, errors } = parse(source, { file: "test.harn" });
  if (errors.length > 0) throw new Error(`syntax: ${errors.map((e) => e.message).join("; ")}`);
  const structural = checkStructure(program);
  if (structural.length > 0) throw new Error(`structure: ${structural[0]!.message}`);
  let error: string | null = null;
  try {
    await new ProgramRunner(rt, { file: "test.harn" }).run(program);
  } catch (e) {
    if (e instanceof HarnError) error = e.description();
    else throw e;
  } finally {
    await rt.shutdown();
  }
  return { stdout, stderr, error, rt };
}

/** Run and insist on success; returns stdout lines. */
export async function lines(source: string, opts: RunOptions = {}): Promise<string[]> {
  const r = await runHarn(source, opts);
  if (r.error !== null) throw new Error(`uncaught: ${r.error}\nstdout:\n${r.stdout}`);
  return r.stdout.replace(/\n$/, "").split("\n");
}
