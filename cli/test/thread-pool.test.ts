/**
 * libuv's thread pool is sized to the machine (cli/src/thread-pool.ts)
 * without the variable that does it ever reaching scripts or children.
 * Runs the built `harn` (its CommonJS entry reads files synchronously, so
 * nothing has started the pool before the CLI sizes it; an ES module entry
 * would have, loading itself with asynchronous reads).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, harnBin } from "./hang-harness";

let work = "";

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "harn-thread-pool-"));
  buildCli();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(script: string, env: NodeJS.ProcessEnv) {
  const file = join(work, "env.harn");
  writeFileSync(file, script);
  return spawnSync(harnBin, ["run", file], { encoding: "utf8", env });
}

/** Threads of a harn process once its pool has started (a glob ran), minus
 * those of one whose pool never starts before the count. */
async function threadsWith(env: NodeJS.ProcessEnv): Promise<number> {
  const file = join(work, "pool.harn");
  writeFileSync(file, `glob("*", "${work}")\nprintln("ready")\nsleep(5000)\n`);
  const child = spawn(harnBin, ["run", file], { env, stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise<void>((ready) => child.stdout.once("data", () => ready()));
    return readdirSync(`/proc/${child.pid}/task`).length;
  } finally {
    child.kill();
  }
}

describe("the thread pool", () => {
  const base = { ...process.env };
  delete base.UV_THREADPOOL_SIZE;

  it("leaves UV_THREADPOOL_SIZE out of the script's and its children's environment", () => {
    const r = run('println(env("UV_THREADPOOL_SIZE"))\nprintln(shell("echo x$UV_THREADPOOL_SIZE").stdout)\n', base);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("nil\nx\n\n");
  });

  it("keeps a value the user set, for the pool and for children", async () => {
    const r = run('println(env("UV_THREADPOOL_SIZE"))\nprintln(shell("echo x$UV_THREADPOOL_SIZE").stdout)\n', { ...base, UV_THREADPOOL_SIZE: "7" });
    expect(r.stdout).toBe("7\nx7\n\n");
    const sized = Math.min(4, Math.max(2, availableParallelism()));
    const withUsers = await threadsWith({ ...base, UV_THREADPOOL_SIZE: "9" });
    const withOurs = await threadsWith(base);
    expect(withUsers - withOurs).toBe(9 - sized);
  });
});
