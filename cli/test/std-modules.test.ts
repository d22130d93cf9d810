/**
 * The std modules agents import (spec/workflows.md §5) as a user runs them:
 * separate `harn run` processes sharing what the modules keep on disk.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox, harnEnv, type CliResult } from "./cli-harness";

const box = cliSandbox({ prefix: "harn-std-modules-", harn: "one-file", colour: "plain", timeout: 60_000, dirPerTest: true, gitRoot: true });
const offline = { HARN_LLM_PROVIDER: "mock" };

describe("std/project", () => {
  it("keeps project_enrich's cache under the script's state root, so a second run makes no model call", () => {
    box.file("proj/Cargo.toml", '[package]\nname = "engine"\n');
    box.file("proj/src/lib.rs", "pub fn run() {}\n");
    box.file(
      "enrich.harn",
      `import { project_enrich } from "std/project"
pipeline main() {
  llm_mock({text: "{\\"summary\\": \\"from the model\\"}"})
  let r = project_enrich("proj", {prompt: "Summarise {{ package_name }}", schema: {type: "object", required: ["summary"]}})
  println(r.summary + " cached=" + to_string(r._provenance.cached) + " calls=" + to_string(len(llm_mock_calls())))
}
`,
    );
    const first = box.harn(["run", "enrich.harn"], { env: offline });
    expect(first.stderr).not.toContain("Error");
    expect(first.stdout).toBe("from the model cached=false calls=1\n");
    expect(readdirSync(join(box.dir, ".harn/cache/project_enrich"))).toHaveLength(1);
    expect(existsSync(join(box.dir, "std"))).toBe(false);
    const second = box.harn(["run", "enrich.harn"], { env: offline });
    expect(second.stdout).toBe("from the model cached=true calls=0\n");
    box.file("proj/src/lib.rs", "pub fn run() { todo!() }\n");
    expect(box.harn(["run", "enrich.harn"], { env: offline }).stdout).toBe("from the model cached=false calls=1\n");
  });
});

describe("std/agent_state", () => {
  it("a second harn run resumes the session, reads what the first wrote, and meets the first writer's key as a conflict", () => {
    box.file(
      "first.harn",
      `import { agent_state_init, agent_state_write, agent_state_handoff } from "std/agent_state"
pipeline main() {
  let h = agent_state_init("state", {session_id: "s1", writer_id: "planner"})
  agent_state_write(h, "ledger.md", "step 1 done")
  agent_state_handoff(h, "continue with step 2")
}
`,
    );
    box.file(
      "second.harn",
      `import { agent_state_resume, agent_state_read, agent_state_write, agent_state_list } from "std/agent_state"
pipeline main() {
  let h = agent_state_resume("state", "s1", {writer_id: "executor", conflict_policy: env_or("POLICY", "error")})
  println(agent_state_list(h))
  println(agent_state_read(h, "ledger.md"))
  println(json_parse(agent_state_read(h, "__handoff.json")).summary)
  agent_state_write(h, "ledger.md", "step 2 done")
  println(agent_state_read(h, "ledger.md"))
}
`,
    );
    expect(box.harn(["run", "first.harn"])).toMatchObject({ code: 0, stderr: "" });
    const clash = box.harn(["run", "second.harn"]);
    expect(clash.stdout).toBe("[__handoff.json, ledger.md]\nstep 1 done\ncontinue with step 2\n");
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain("agent_state.write: key 'ledger.md' was previously written by 'planner' and is now being written by 'executor'");
    expect(clash.stderr).toContain("second.harn:7");
    const warned = box.harn(["run", "second.harn"], { env: { POLICY: "warn" } });
    expect(warned.code).toBe(0);
    expect(warned.stdout.endsWith("step 2 done\n")).toBe(true);
    expect(warned.stderr).toBe("warning: agent_state.write: key 'ledger.md' was previously written by 'planner' and is now being written by 'executor'\n");
    // The executor wrote last now: the same writer again is no conflict.
    expect(box.harn(["run", "second.harn"])).toMatchObject({ code: 0, stderr: "" });
  });
});

/** One `harn` run started now, resolved when it exits. */
function start(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [box.bin, ...args], { cwd: box.dir, env: harnEnv("plain", env) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("std/agent_state two writers racing", () => {
  it("serialises writers of a key: under conflict_policy error exactly one of two processes writes each key, and value and writer agree", async () => {
    box.file(
      "racer.harn",
      `import { agent_state_init, agent_state_write, agent_state_read } from "std/agent_state"
pipeline main() {
  let me = env("WRITER")
  let h = agent_state_init("state", {session_id: "race", writer_id: me, conflict_policy: "error"})
  // A barrier, so that the two processes write at the same time.
  write_file("ready-" + me, "")
  while !(file_exists("ready-alpha") && file_exists("ready-beta")) {
    sleep(2)
  }
  var won = []
  for i in range(0, 200) {
    let key = "k" + to_string(i)
    let ok = try { agent_state_write(h, key, me) ; true } catch (e) { false }
    if ok {
      won = won + [key]
    }
  }
  println(json_stringify(won))
}
`,
    );
    const [a, b] = await Promise.all([start(["run", "racer.harn"], { WRITER: "alpha" }), start(["run", "racer.harn"], { WRITER: "beta" })]);
    expect(a).toMatchObject({ code: 0, stderr: "" });
    expect(b).toMatchObject({ code: 0, stderr: "" });
    const wonA = JSON.parse(a.stdout) as string[];
    const wonB = JSON.parse(b.stdout) as string[];
    // Every key was written by exactly one of them; the other met a conflict.
    expect([...wonA, ...wonB].sort()).toEqual(Array.from({ length: 200 }, (_, i) => `k${i}`).sort());
    const session = join(box.dir, "state/race");
    for (const key of wonA.concat(wonB)) {
      const winner = wonA.includes(key) ? "alpha" : "beta";
      expect(readFileSync(join(session, key), "utf8")).toBe(winner);
      expect(JSON.parse(readFileSync(join(session, ".agent_state_meta", `${key}.json`), "utf8")).writer.writer_id).toBe(winner);
    }
    // No temp or lock files are left behind.
    expect(readdirSync(session).filter((n) => n.includes(".tmp-"))).toEqual([]);
    expect(readdirSync(join(session, ".agent_state_meta")).filter((n) => !n.endsWith(".json"))).toEqual([]);
  });
});
