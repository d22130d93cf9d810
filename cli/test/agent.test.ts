/**
 * Agents end to end through the real `harn` binary (child processes):
 * a loop yielded in one process and resumed from its JSON in another, and
 * the grace period for background sub-agents when a script ends.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-agent-e2e-", harn: "built", colour: "unset", env: { HARN_LLM_CALLS_DISABLED: "1" }, timeout: 60_000 });
const { harn, file } = cli;

const DEPLOY_TOOL = `
tool deploy(env: string) -> dict {
  description "Deploy to an environment"
  long_running true
  return {task_id: "deploy-" + env, status: "pending"}
}
`;

describe("agent_resume across processes", () => {
  it("a yielded state written as JSON by one process is resumed by another", () => {
    file(
      "start.harn",
      `${DEPLOY_TOOL}
pipeline main() {
  llm_mock({text: "", tool_calls: [{name: "deploy", arguments: {env: "prod"}}]})
  let r = agent_loop("Deploy prod", "You deploy.", {provider: "mock", tools: deploy, on_pending: "yield"})
  write_file("state.json", json_stringify(r))
  println(r.status + " " + r.pending_tool_calls[0].call_id + " " + r.pending_tool_calls[0].tool)
}
`,
    );
    file(
      "finish.harn",
      `${DEPLOY_TOOL}
pipeline main() {
  let state = json_parse(read_file("state.json"))
  llm_mock({text: "Prod is live at https://prod.example"})
  let r = agent_resume(state, {mock_call_1: {url: "https://prod.example", ok: true}}, {tools: deploy})
  println(r.status + ": " + r.visible_text)
  println(r.llm.iterations)
  let sent = llm_mock_calls()[0]
  println(sent.system == "You deploy." || contains(sent.system, "You deploy."))
  println(json_stringify(sent.messages.map({ m -> m.role })))
  println(sent.messages[2].content)
}
`,
    );
    const first = harn(["run", "start.harn"]);
    expect(first.stderr).toBe("");
    expect(first.stdout).toBe("input_required mock_call_1 deploy\n");
    expect(first.code).toBe(0);
    const state = JSON.parse(readFileSync(join(cli.dir, "state.json"), "utf8"));
    expect(state.status).toBe("input_required");
    const second = harn(["run", "finish.harn"]);
    expect(second.stderr).toBe("");
    const lines = second.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("done: Prod is live at https://prod.example");
    expect(lines[1]).toBe("2");
    expect(lines[2]).toBe("true");
    // text tool format: the assistant turn and one results message
    expect(lines[3]).toBe('["user","assistant","user"]');
    expect(lines[4]).toContain("<runtime_feedback kind=\"tool_results\">");
    expect(second.stdout).toContain("[result of deploy]\n{ok: true, url: https://prod.example}\n[end of deploy result]");
    expect(second.code).toBe(0);
  });
});

const SLOW_AGENT = (marker: string, secs: string) => `
tool slow_write(path: string) -> string {
  description "Wait, then write a file"
  sleep(${secs})
  write_file(path, "written")
  return "wrote " + path
}
pipeline main() {
  llm_mock({match: "user\\nSlow job*", text: "", tool_calls: [{name: "slow_write", arguments: {path: "${marker}"}}], consume_match: true})
  llm_mock({match: "*wrote*", text: "child done", consume_match: true})
  llm_mock({match: "user\\nStart it", text: "", tool_calls: [{name: "background_task", arguments: {prompt: "Slow job"}}], consume_match: true})
  llm_mock({match: "*submitted*", text: "Started in the background.", consume_match: true})
  let r = agent_loop("Start it", nil, {provider: "mock", tools: slow_write, background_tasks: true, tool_format: "native"})
  println(r.status + ": " + r.visible_text)
  println(background_tasks()[0].status)
}
`;

describe("background sub-agents at exit", () => {
  it("harn run waits for running background tasks and reports them", () => {
    file("bg_wait.harn", SLOW_AGENT("marker-wait.txt", "200ms"));
    const r = harn(["run", "bg_wait.harn"]);
    expect(r.stdout).toBe("done: Started in the background.\nrunning\n");
    expect(r.stderr).toMatch(/^Waiting for 1 background task \(up to 5m\)\.\.\.\nBackground task \[[0-9a-f]{8}\] done\n  ✓ \[[0-9a-f]{8}\] done\n$/);
    expect(readFileSync(join(cli.dir, "marker-wait.txt"), "utf8")).toBe("written");
    expect(r.code).toBe(0);
  });

  it("--background-grace 0 cancels them at once", () => {
    file("bg_cancel.harn", SLOW_AGENT("marker-cancel.txt", "30s"));
    const r = harn(["run", "--background-grace", "0", "bg_cancel.harn"]);
    expect(r.stdout).toBe("done: Started in the background.\nrunning\n");
    expect(r.stderr).toMatch(/^Cancelling 1 background task\.\.\.\nBackground task \[[0-9a-f]{8}\] error\n  ✗ \[[0-9a-f]{8}\] cancelled\n$/);
    expect(existsSync(join(cli.dir, "marker-cancel.txt"))).toBe(false);
    expect(r.code).toBe(0);
  });

  it("a grace period shorter than the work cancels what is left", () => {
    file("bg_short.harn", SLOW_AGENT("marker-short.txt", "30s"));
    const r = harn(["run", "--background-grace", "100ms", "bg_short.harn"]);
    expect(r.stderr).toContain("Waiting for 1 background task (up to 100ms)...");
    expect(r.stderr).toMatch(/✗ \[[0-9a-f]{8}\] cancelled\n$/);
    expect(existsSync(join(cli.dir, "marker-short.txt"))).toBe(false);
    expect(r.code).toBe(0);
  });

  it("rejects a malformed grace value as a usage error", () => {
    file("noop.harn", "pipeline main() { println(1) }\n");
    const r = harn(["run", "--background-grace", "soon", "noop.harn"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("invalid duration 'soon'");
  });
});
