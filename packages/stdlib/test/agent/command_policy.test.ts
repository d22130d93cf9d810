/**
 * Command policies (agents-surface.md §5.3) against real processes: a
 * blocked command never starts, a rewritten one runs as rewritten, and a
 * tool handler inside a loop with a `command_policy` is governed by it
 * while the same command outside the loop is not.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { lines } from "./harness";

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

describe("command policies over real commands", () => {
  it("never spawns a blocked command", async () => {
    dir = mkdtempSync(join(tmpdir(), "harn-policy-"));
    const out = await lines(
      `pipeline main() {
  command_policy_push({deny_patterns: ["touch denied*"], pre: { ctx -> ctx.request.argv[1] == "asked" ? {action: "dry_run"} : nil }})
  for name in ["denied-file", "asked", "allowed-file"] {
    let r = host_call("process.exec", {mode: "argv", argv: ["touch", name]})
    println(name + " " + r.status)
  }
  command_policy_pop()
}`,
      { cwd: dir },
    );
    expect(out).toEqual(["denied-file blocked", "asked dry_run", "allowed-file completed"]);
    expect(readdirSync(dir)).toEqual(["allowed-file"]);
  });

  it("runs the rewritten request, and a loop's policy ends with the loop", async () => {
    dir = mkdtempSync(join(tmpdir(), "harn-policy-"));
    const out = await lines(
      `tool make(name: string) -> string {
  description "create a file"
  return host_call("process.exec", {mode: "argv", argv: ["touch", name]}).status
}
pipeline main() {
  llm_mock({tool_calls: [{name: "make", arguments: {name: "in-loop"}}]})
  llm_mock({text: "done"})
  let policy = {pre: { ctx -> {rewrite: {argv: ["touch", "rewritten-" + ctx.request.argv[1]]}} }}
  let r = agent_loop("go", nil, {provider: "mock", tools: make, tool_format: "native", command_policy: policy})
  println(r.transcript.messages.filter({ m -> m.role == "tool" }).map({ m -> m.content }))
  println(host_call("process.exec", {mode: "argv", argv: ["touch", "after-loop"]}).status)
}`,
      { cwd: dir },
    );
    expect(out).toEqual(["[completed]", "completed"]);
    expect(readdirSync(dir).sort()).toEqual(["after-loop", "rewritten-in-loop"]);
    expect(existsSync(join(dir, "in-loop"))).toBe(false);
  });
});
