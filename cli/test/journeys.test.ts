/**
 * User journeys end to end: realistic scripts that combine several features,
 * run through `harn` as a child process, pinned where a user hit something
 * that surprised them.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./cli-harness";
import { alive, eventually } from "./hang-harness";

const cli = cliSandbox({ prefix: "harn-journeys-", harn: "one-file", colour: "plain", env: { HARN_LLM_CALLS_DISABLED: "1" }, timeout: 60_000 });
const { harn, file } = cli;

describe("agent journeys", () => {
  it("tools: [a, b] over two tool declarations offers both tools to the model", () => {
    // Each `tool` declaration binds a one-tool registry; listing them is the
    // natural way to give a loop several tools. The model's calls used to be
    // refused as "not available in the current environment".
    file(
      "two_tools.harn",
      `tool add(a: int, b: int) -> int {
  description "Add two numbers"
  return a + b
}

tool owner(name: string) -> string {
  description "Who owns a service"
  return "alice owns " + name
}

pipeline main() {
  llm_mock({text: "", tool_calls: [{name: "add", arguments: {a: 2, b: 3}}, {name: "owner", arguments: {name: "api"}}]})
  llm_mock({text: "5, and alice. ##DONE##"})
  let r = agent_loop("Add 2 and 3; who owns the api?", nil, {provider: "mock", tools: [add, owner], tool_format: "native", persistent: true})
  println(r.status)
  println(r.tools.successful)
  println(r.tools.rejected)
  let results = r.transcript.messages.filter({ m -> m.role == "tool" }).map({ m -> m.content })
  println(results)
}
`,
    );
    const r = harn(["run", "two_tools.harn"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("done\n[add, owner]\n[]\n[5, alice owns api]\n");
    expect(r.code).toBe(0);
  });
});

describe("CI helper journey", () => {
  it("runs tests and a build in the background, searches while they run, then summarises", () => {
    file("src/a.txt", "TODO: first\n");
    file("src/b.txt", "done\nTODO: second\n");
    file("notes/c.txt", "TODO: not in src\n");
    file(
      "ci.harn",
      `pipeline main() {
  let tests = host_tool_call("run_command", {argv: ["sh", "-c", "echo test 1 ok; echo test 2 FAILED; exit 1"], long_running: true})
  defer { cancel_handle(tests) }
  let build = host_tool_call("run_command", {argv: ["sh", "-c", "echo built"], background: true})
  defer { cancel_handle(build) }
  let sources = glob("src/*.txt")
  println(sources.map({ p -> basename(p) }))
  let todos = find_text("TODO", {base: "src"})
  println(todos.matches.map({ m -> basename(m.path) + ":" + to_string(m.line) }))
  let t = handle_wait(tests, {timeout_ms: 20000})
  let b = handle_wait(build, {timeout_ms: 20000})
  println("tests exit " + to_string(t.exit_code) + ", build exit " + to_string(b.exit_code))
  let log = host_tool_call("read_command_output", {handle_id: tests.handle_id})
  print(log.content)
}
`,
    );
    const r = harn(["run", "ci.harn"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("[a.txt, b.txt]\n[a.txt:1, b.txt:2]\ntests exit 1, build exit 0\ntest 1 ok\ntest 2 FAILED\n");
    expect(r.code).toBe(0);
  });
});

describe("mistakes in a small project", () => {
  it("an import of a missing module says where the import is", () => {
    file("app.harn", 'import { helper } from "./lib/helpers"\n\npipeline main() {\n  println(helper())\n}\n');
    const r = harn(["run", "app.harn"]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      'error: compile error: Import error: cannot find module "./lib/helpers"\n  --> app.harn:1:1\n   |\n 1 | import { helper } from "./lib/helpers"\n',
    );
    expect(r.code).toBe(1);
  });

  it("a module's own broken import is shown in that module", () => {
    file("lib/util.harn", 'import "./gone"\n\npub fn f() {\n  return 1\n}\n');
    file("uses_util.harn", 'import { f } from "./lib/util"\n\npipeline main() {\n  println(f())\n}\n');
    const r = harn(["run", "uses_util.harn"]);
    expect(r.stderr).toContain('error: compile error: Import error: cannot find module "./gone"\n');
    expect(r.stderr).toMatch(/--> \S*lib\/util\.harn:1:1\n/);
    expect(r.stderr).toContain(' 1 | import "./gone"\n');
    expect(r.code).toBe(1);
  });
});

describe("Ctrl-C (or a closed terminal) during harn test", () => {
  it.each([
    ["SIGINT", 130],
    ["SIGHUP", 129],
  ] as const)("%s stops the running test, kills the command it started in the background, exits %i", async (signal, status) => {
    file(
      "tests/test_background.harn",
      `pipeline test_waits_on_a_slow_command() {
  let h = host_tool_call("run_command", {argv: ["sleep", "300"], background: true})
  defer { cancel_handle(h) }
  write_file("pid.txt", to_string(h.pid))
  handle_wait(h)
}
`,
    );
    const pidFile = join(cli.dir, "tests", "pid.txt");
    rmSync(pidFile, { force: true });
    const child = spawn(process.execPath, [cli.bin, "test", "tests"], { cwd: cli.dir, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolveExit) => child.on("exit", (code) => resolveExit(code)));
    await eventually(() => existsSync(pidFile) && readFileSync(pidFile, "utf8") !== "", "the test started its command");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    child.kill(signal);
    expect(await exited).toBe(status);
    expect(stderr).toContain("[harn] signal received, flushing state...");
    // the command ran in a process group of its own: nothing but harn could stop it
    expect(alive(pid)).toBe(false);
  });
});
