/**
 * Cleanup of agent tools' processes through a real `harn run` child
 * (agents.md §1.15, extensions.md §3.3), on the offline mock:
 * - the first Ctrl-C while a tool waits for a foreground command kills the
 *   command and ends the turn `interrupted`, and the script goes on (it
 *   used to end silently with exit 0: the abandoned child was awaited
 *   after being unref'd, so nothing kept Node alive);
 * - a script that ends while background commands run leaves no process.
 */
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, harn, run, type Workspace, workspace } from "./llm-harness";

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace("harn-agent-cleanup-");
});
afterAll(() => ws.dispose());

/** Live processes whose command line contains `marker`. */
function processesWith(marker: string): string[] {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).split("\n").filter((l) => l !== "");
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

async function gone(marker: string): Promise<void> {
  for (let i = 0; i < 200 && processesWith(marker).length > 0; i++) await new Promise((r) => setTimeout(r, 25));
  expect(processesWith(marker)).toEqual([]);
}

describe("agent tool processes", () => {
  it("Ctrl-C during a tool's foreground command interrupts the turn and the script goes on", async () => {
    const marker = `harn-audit-fg-${process.pid}-${Date.now()}`;
    const script = ws.file(
      "fg_tool.harn",
      `tool build(target: string) -> string {
  description "Build (slow)"
  host_tool_call("run_command", {argv: ["sh", "-c", "sleep 30; echo ${marker}"]})
  return "built " + target
}
pipeline main() {
  defer { println("defer ran") }
  llm_mock({text: "", tool_calls: [{name: "build", arguments: {target: "app"}}]})
  let r = agent_loop("Build the app", nil, {provider: "mock", tools: build, tool_format: "native"})
  println("status: " + r.status)
  println(r.transcript.messages[2].content)
}
`,
    );
    const c = harn(ws, ["run", script], cleanEnv());
    c.child.stdin!.end();
    await c.until(() => processesWith(marker).length > 0, "the command to start");
    c.child.kill("SIGINT");
    const { code } = await c.exited;
    expect(c.stdout()).toBe("status: interrupted\nError: interrupted by the user (Ctrl-C) while this tool was running\ndefer ran\n");
    expect(code).toBe(0);
    await gone(marker);
  });

  it("a script that ends with background commands and a sub-agent loop still running exits promptly and leaves no process", async () => {
    const marker = `harn-audit-bg-${process.pid}-${Date.now()}`;
    const script = ws.file(
      "bg_end.harn",
      `tool start(n: int) -> dict {
  description "Start background work"
  return host_tool_call("run_command", {argv: ["sh", "-c", "sleep 30; echo ${marker}"], background: true})
}
pipeline main() {
  let root = host_tool_call("run_command", {argv: ["sh", "-c", "sleep 31; echo ${marker}"], background: true})
  llm_mock({match: "*", text: "", tool_calls: [{name: "start", arguments: {n: 1}}], delay_ms: 50})
  let t = spawn { agent_loop("keep working", nil, {provider: "mock", tools: start, tool_format: "native", max_iterations: 1000}) }
  sleep(300ms)
  println("end of script")
}
`,
    );
    const r = await run(ws, ["run", script], cleanEnv(), 20_000);
    expect(r.stdout).toBe("end of script\n");
    expect(r.code).toBe(0);
    await gone(marker);
  });
});
