import { describe, expect, it } from "vitest";
import { display, HDict } from "@harn/vm";
import { raised, rig, settle } from "./harness";

describe("host_call", () => {
  it("runs process.exec locally in shell and argv modes", async () => {
    const r = rig();
    const res = (await settle(r.callP("host_call", "process.exec", HDict.of({ command: "printf out; printf err >&2; exit 2", shell_id: "sh" })))) as HDict;
    expect(res.get("status")).toBe("completed");
    expect(res.get("exit_code")).toBe(2);
    expect(res.get("success")).toBe(false);
    expect(res.get("combined")).toBe("outerr");
    expect(res.get("handle_id")).toBe(null);
    expect(typeof res.get("pid")).toBe("number");
    const argv = (await settle(r.callP("host_call", "process.exec", HDict.of({ mode: "argv", argv: ["printf", "%s", "a b"] })))) as HDict;
    expect(argv.get("stdout")).toBe("a b");
    expect(argv.get("success")).toBe(true);
  });

  it("times out, killing the child", async () => {
    const r = rig();
    const res = (await settle(r.callP("host_call", "process.exec", HDict.of({ command: "sleep 20", shell_id: "sh", timeout_ms: 100 })))) as HDict;
    expect(res.get("status")).toBe("timed_out");
    expect(res.get("exit_code")).toBe(-1);
    expect(res.get("timed_out")).toBe(true);
    expect(res.get("stdout")).toBe("");
  });

  it("shell mode needs a shell", async () => {
    const r = rig();
    expect((await raised(() => r.callP("host_call", "process.exec", HDict.of({ command: "true" })))).description()).toBe(
      "Runtime error: host_call process.exec: shell mode requires `shell` or `shell_id`",
    );
  });

  it("lists shells and builds invocations", () => {
    const r = rig();
    const list = r.call("host_call", "process.list_shells") as HDict;
    const shells = list.get("shells") as HDict[];
    expect(shells.length).toBeGreaterThan(0);
    const def = r.call("host_call", "process.get_default_shell") as HDict;
    expect(def.get("id")).toBe(list.get("default_shell_id"));
    const inv = r.call("host_call", "process.shell_invocation", HDict.of({ shell_id: "sh", command: "echo hi" })) as HDict;
    expect(display(inv.get("args"))).toBe("[-c, echo hi]");
    expect(inv.get("command_arg_index")).toBe(1);
  });

  it("answers runtime and workspace queries and rejects unknown operations", async () => {
    const r = rig({ cwd: "/tmp", env: { HARN_TASK: "fix bug" } });
    expect(r.call("host_call", "runtime.task")).toBe("fix bug");
    expect(r.call("host_call", "workspace.cwd")).toBe("/tmp");
    expect(r.call("host_call", "workspace.project_root")).toBe("/tmp");
    expect((await raised(() => r.callP("host_call", "fs.teleport"))).caughtValue()).toBe("host_call: unsupported operation fs.teleport");
    expect((await raised(() => r.callP("host_call", "nodot"))).caughtValue()).toBe("host_call: unsupported operation name 'nodot'");
  });
});

describe("host mocks", () => {
  it("the latest matching mock wins; params filter; errors throw; calls are recorded", async () => {
    const r = rig();
    r.call("host_mock", "git", "status", "clean");
    r.call("host_mock", "git", "status", HDict.of({ result: "dirty", params: HDict.of({ repo: "b" }) }));
    r.call("host_mock", "git", "push", HDict.of({ error: "denied" }));
    expect(r.call("host_call", "git.status", HDict.of({ repo: "a" }))).toBe("clean");
    expect(r.call("host_call", "git.status", HDict.of({ repo: "b", extra: 1 }))).toBe("dirty");
    expect((await raised(() => r.callP("host_call", "git.push"))).caughtValue()).toBe("denied");
    expect(display(r.call("host_mock_calls"))).toBe(
      "[{capability: git, operation: status, params: {repo: a}}, {capability: git, operation: status, params: {extra: 1, repo: b}}, {capability: git, operation: push, params: {}}]",
    );
    expect(r.call("host_has", "git", "push")).toBe(true);
    expect(r.call("host_has", "git", "pull")).toBe(false);
    expect(r.call("host_has", "process")).toBe(true);
    const caps = r.call("host_capabilities") as HDict;
    expect(display((caps.get("git") as HDict).get("ops"))).toBe("[push, status]");
  });

  it("scopes save and restore mocks and calls", async () => {
    const r = rig();
    r.call("host_mock", "a", "b", 1);
    r.call("host_call", "a.b");
    r.call("host_mock_push_scope");
    expect(r.call("host_mock_calls")).toEqual([]);
    expect((await raised(() => r.callP("host_call", "a.b"))).caughtValue()).toBe("host_call: unsupported operation a.b");
    r.call("host_mock", "a", "b", 2);
    expect(r.call("host_call", "a.b")).toBe(2);
    r.call("host_mock_pop_scope");
    expect(r.call("host_call", "a.b")).toBe(1);
    expect((r.call("host_mock_calls") as unknown[]).length).toBe(2);
    r.call("host_mock_clear");
    expect((await raised(() => r.callP("host_mock_pop_scope"))).caughtValue()).toBe("host_mock_pop_scope: no scope to pop");
    expect((await raised(() => r.callP("host_mock", "a"))).caughtValue()).toBe("host_mock: capability and operation are required");
  });
});
