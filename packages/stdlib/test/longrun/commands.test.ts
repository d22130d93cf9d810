import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HDict, type Value } from "@harn/vm";
import { longRunState } from "../../src/longrun/state";
import { caught, eventually, liveInGroup, tempDir, testRuntime, type TestRuntime } from "./helpers";

let dir: ReturnType<typeof tempDir>;
let t: TestRuntime;

beforeEach(() => {
  dir = tempDir();
  t = testRuntime(dir.path, { ...process.env, TMPDIR: dir.path, HARN_TEST_VAR: "from-run" });
});
afterEach(async () => {
  await t.rt.shutdown();
  dir.remove();
});

const req = (o: Record<string, Value>) => HDict.of(o);
const run = async (o: Record<string, Value>) => (await t.call("host_tool_call", ["run_command", req(o)])) as HDict;
const sh = (script: string): Value[] => ["sh", "-c", script];

describe("run_command in the foreground", () => {
  it("runs argv, captures both streams, and writes the artifacts (combined = the live log, in arrival order)", async () => {
    const r = await run({ argv: sh("printf 'out1\\n'; sleep 0.05; printf 'err1\\n' >&2; sleep 0.05; printf 'out2'") });
    expect(r.keys()).toEqual([
      "audit_id", "byte_count", "command_id", "duration_ms", "ended_at", "exit_code", "handle_id", "line_count", "output_path",
      "output_sha256", "pid", "process_group_id", "sandbox", "signal", "started_at", "status", "stderr", "stderr_path", "stdout",
      "stdout_path", "timed_out",
    ]);
    expect(r.get("status")).toBe("completed");
    expect(r.get("exit_code")).toBe(0);
    expect(r.get("signal")).toBeNull();
    expect(r.get("timed_out")).toBe(false);
    expect(r.get("handle_id")).toBeNull();
    expect(r.get("stdout")).toBe("out1\nout2");
    expect(r.get("stderr")).toBe("err1\n");
    expect(r.get("byte_count")).toBe(14);
    // "out1\nout2" + "err1\n": the unterminated stdout line runs into stderr's
    expect(r.get("line_count")).toBe(2);
    const id = r.get("command_id") as string;
    expect(id).toMatch(/^cmd_\d+_\d+_\d+$/);
    expect(r.get("audit_id")).toBe(`audit_${id}`);
    expect(r.get("process_group_id")).toBe(r.get("pid"));
    expect((r.get("sandbox") as HDict).keys()).toEqual(["enforced", "kind"]);
    const out = r.get("stdout_path") as string;
    // in the run's scratch directory, one per runtime
    expect(out).toMatch(new RegExp(`^${dir.path}/harn-run-[0-9a-f]{16}/harn-command-${id}/stdout\\.txt$`));
    expect(statSync(dirname(out)).mode & 0o777).toBe(0o700);
    expect(statSync(dirname(dirname(out))).mode & 0o777).toBe(0o700);
    expect(readFileSync(out, "utf8")).toBe("out1\nout2");
    expect(readFileSync(r.get("stderr_path") as string, "utf8")).toBe("err1\n");
    // never rewritten at the end: offsets saved while tailing stay valid
    expect(readFileSync(r.get("output_path") as string, "utf8")).toBe("out1\nerr1\nout2");
    expect(r.get("output_sha256")).toBe("sha256:" + createHash("sha256").update("out1\nout2err1\n").digest("hex"));
  });

  it("reports a non-zero exit as completed", async () => {
    const r = await run({ argv: sh("exit 3") });
    expect([r.get("status"), r.get("exit_code"), r.get("line_count"), r.get("byte_count")]).toEqual(["completed", 3, 0, 0]);
  });

  it("runs shell mode, in cwd, with stdin", async () => {
    const r = await run({ mode: "shell", command: "pwd; cat", cwd: dir.path, stdin: "fed" });
    expect(r.get("stdout")).toBe(`${dir.path}\nfed`);
  });

  it("builds the environment per env_mode", async () => {
    const env = async (o: Record<string, Value>) => (await run({ argv: sh('printf "%s|%s" "$HARN_TEST_VAR" "$EXTRA"'), ...o })).get("stdout");
    expect(await env({})).toBe("from-run|");
    expect(await env({ env: HDict.of({ EXTRA: "x" }) })).toBe("|x");
    expect(await env({ env: HDict.of({ EXTRA: "x" }), env_mode: "patch" })).toBe("from-run|x");
    expect(await env({ env: HDict.of({ EXTRA: "x" }), env_mode: "inherit_clean" })).toBe("from-run|x");
  });

  it("merges stderr into stdout on request and cuts inline text on a UTF-8 boundary", async () => {
    const merged = await run({ argv: sh("echo a; echo b >&2"), capture: HDict.of({ merge_stderr: true }) });
    expect(merged.get("stderr")).toBe("");
    expect((merged.get("stdout") as string).split("\n").sort()).toEqual(["", "a", "b"]);
    const legacy = await run({ argv: sh("echo b >&2"), capture_stderr: false });
    expect(legacy.get("stdout")).toBe("b\n");
    const cut = await run({ argv: ["printf", "aé€"], max_inline_bytes: 4 });
    expect(cut.get("stdout")).toBe("aé");
    expect(cut.get("byte_count")).toBe(6);
    const off = await run({ argv: ["printf", "x"], capture: HDict.of({ stdout: false }) });
    expect(off.get("stdout")).toBe("");
    expect(readFileSync(off.get("stdout_path") as string, "utf8")).toBe("x");
  });

  it("kills the whole process group on timeout", async () => {
    const r = await run({ argv: sh("sleep 100 & sleep 100"), timeout_ms: 200 });
    expect([r.get("status"), r.get("exit_code"), r.get("signal"), r.get("timed_out")]).toEqual(["timed_out", -1, "SIGKILL", true]);
    await eventually(() => liveInGroup(r.get("process_group_id") as number).length === 0);
  });

  it("on timeout also kills a descendant that left the group, which held the pipes", async () => {
    const f = `${dir.path}/escaped.pid`;
    let escaped = 0;
    try {
      const r = await run({ argv: sh(`setsid sh -c 'echo $$ > ${f}; exec sleep 100' & sleep 100`), timeout_ms: 200 });
      expect(r.get("status")).toBe("timed_out");
      await eventually(() => existsSync(f) && readFileSync(f, "utf8").endsWith("\n"));
      escaped = Number(readFileSync(f, "utf8"));
      // it leads a session (and group) of its own: no group kill reached it
      await eventually(() => liveInGroup(escaped).length === 0);
    } finally {
      if (escaped > 0 && liveInGroup(escaped).length > 0) process.kill(-escaped, "SIGKILL");
    }
  });

  it("kills the group when the calling task is cancelled", async () => {
    const ac = new AbortController();
    const pidFile = `${dir.path}/pid`;
    const p = t.call("host_tool_call", ["run_command", req({ argv: sh(`echo $$ > ${pidFile}; sleep 100 & sleep 100`) })], { signal: ac.signal });
    await eventually(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
    const pgid = Number(readFileSync(pidFile, "utf8"));
    await eventually(() => liveInGroup(pgid).length >= 2);
    ac.abort("task cancelled");
    await expect(p).rejects.toBe("task cancelled");
    await eventually(() => liveInGroup(pgid).length === 0);
  });

  it("echoes policy_context", async () => {
    const r = await run({ argv: ["true"], policy_context: HDict.of({ ticket: "T-1" }) });
    expect((r.get("policy_context") as HDict).get("ticket")).toBe("T-1");
  });
});

describe("run_command in the background", () => {
  it("returns the envelope at once and queues a payload with the contract's keys in order", async () => {
    const env = await run({ argv: sh("echo hi; echo oops >&2; exit 4"), background: true });
    expect(env.get("status")).toBe("running");
    expect(env.get("handle_id")).toMatch(/^hto-[0-9a-f]+-\d+$/);
    for (const [k, v] of Object.entries({ ended_at: null, duration_ms: 0, exit_code: null, signal: null, timed_out: false, stdout: "", stderr: "", line_count: 0, byte_count: 0, output_sha256: "" })) {
      expect(env.get(k)).toBe(v);
    }
    expect(env.get("command")).toBe("sh -c echo hi; echo oops >&2; exit 4");
    expect(env.get("command_or_op_descriptor")).toBe(env.get("command"));
    expect(existsSync(env.get("stdout_path") as string)).toBe(true);

    const queued = new Promise<void>((r) => longRunState(t.rt).onFeedback(() => r()));
    await queued;
    const [item] = longRunState(t.rt).pending();
    const payload = JSON.parse(item!.content);
    expect(Object.keys(payload)).toEqual([
      "command_id", "status", "handle_id", "command_or_op_descriptor", "started_at", "ended_at", "duration_ms", "exit_code", "stdout",
      "stderr", "output_path", "stdout_path", "stderr_path", "line_count", "byte_count", "output_sha256", "process_group_id", "signal",
    ]);
    expect(payload).toMatchObject({ status: "completed", exit_code: 4, stdout: "hi\n", stderr: "oops\n", signal: null, line_count: 2, byte_count: 8 });
    expect(payload.handle_id).toBe(env.get("handle_id"));
  });

  it("reports a signal death as SIG<number> with exit code -1", async () => {
    const env = await run({ argv: sh("kill -TERM $$"), long_running: true });
    const payload = (await t.call("handle_wait", [env])) as HDict;
    expect([payload.get("status"), payload.get("exit_code"), payload.get("signal")]).toEqual(["completed", -1, "SIG15"]);
  });

  it("reads background first: {background: false, long_running: true} is foreground", async () => {
    const r = await run({ argv: ["true"], background: false, long_running: true });
    expect(r.get("status")).toBe("completed");
  });

  it("cancel kills the whole group, returns true then false, and swallows the exit", async () => {
    const env = await run({ argv: sh("sleep 100 & sleep 100"), background: true });
    const pgid = env.get("process_group_id") as number;
    await eventually(() => liveInGroup(pgid).length >= 2);
    const first = (await t.call("host_tool_call", ["tools.cancel_handle", req({ handle_id: env.get("handle_id") })])) as HDict;
    expect(first.get("cancelled")).toBe(true);
    expect(((await t.call("cancel_handle", [env])) as HDict).get("cancelled")).toBe(false);
    await eventually(() => liveInGroup(pgid).length === 0);
    await new Promise((r) => setTimeout(r, 50));
    expect(longRunState(t.rt).pending()).toEqual([]);
  });

  it("runtime shutdown kills every remaining group", async () => {
    const a = await run({ argv: sh("sleep 100 & sleep 100"), background: true });
    const b = await run({ argv: ["sleep", "100"], background: true });
    await t.rt.shutdown();
    await eventually(() => liveInGroup(a.get("process_group_id") as number).length === 0 && liveInGroup(b.get("process_group_id") as number).length === 0);
  });

  it("lets read_command_output tail a running command", async () => {
    const env = await run({ argv: sh("printf 'first\\n'; sleep 100"), background: true });
    await eventually(() => readFileSync(env.get("output_path") as string, "utf8") === "first\n");
    const r = (await t.call("host_tool_call", ["read_command_output", req({ handle_id: env.get("handle_id") })])) as HDict;
    expect([r.get("content"), r.get("bytes_read"), r.get("total_bytes"), r.get("eof"), r.get("offset")]).toEqual(["first\n", 6, 6, true, 0]);
    const part = (await t.call("host_tool_call", ["read_command_output", req({ command_id: env.get("command_id"), offset: 2, length: 3 })])) as HDict;
    expect([part.get("content"), part.get("eof")]).toEqual(["rst", false]);
    const byPath = (await t.call("host_tool_call", ["read_command_output", req({ path: env.get("stdout_path") })])) as HDict;
    expect(byPath.get("content")).toBe("first\n");
  });
});

describe("run_test and run_build_command", () => {
  it("return their own foreground shapes", async () => {
    const test = (await t.call("host_tool_call", ["run_test", req({ argv: ["echo"], filter: "only_this" })])) as HDict;
    expect(test.keys()).toEqual(["duration_ms", "exit_code", "result_handle", "stderr", "stdout"]);
    expect(test.get("stdout")).toBe("only_this\n");
    const read = (await t.call("host_tool_call", ["read_command_output", req({ command_id: test.get("result_handle") })])) as HDict;
    expect(read.get("content")).toBe("only_this\n");
    const build = (await t.call("host_tool_call", ["tools.run_build_command", req({ argv: sh("exit 2") })])) as HDict;
    expect(build.keys()).toEqual(["diagnostics", "duration_ms", "exit_code", "stderr", "stdout"]);
    expect(build.get("exit_code")).toBe(2);
  });

  it("add a test summary and build diagnostics when the output has them", async () => {
    const test = (await t.call("host_tool_call", ["run_test", req({ argv: sh("echo 'test result: ok. 2 passed; 1 failed; 0 ignored;'") })])) as HDict;
    expect((test.get("summary") as HDict).keys()).toEqual(["failed", "passed", "skipped"]);
    expect([(test.get("summary") as HDict).get("passed"), (test.get("summary") as HDict).get("failed")]).toEqual([2, 1]);
    // a summary past the inline cap is still found, in the output's tail
    const long = (await t.call("host_tool_call", ["run_test", req({ argv: sh("head -c 200000 /dev/zero | tr '\\0' x; echo; echo '  7 passing'") })])) as HDict;
    expect(((long.get("summary") as HDict).get("passed"))).toBe(7);
    const build = (await t.call("host_tool_call", ["run_build_command", req({ argv: sh("echo 'x.c:1:2: error: boom' >&2; exit 1") })])) as HDict;
    const [d] = build.get("diagnostics") as HDict[];
    expect([d!.get("path"), d!.get("line"), d!.get("column"), d!.get("severity"), d!.get("message")]).toEqual(["x.c", 1, 2, "error", "boom"]);
  });

  it("long_running or background selects the background, which returns the run_command envelope", async () => {
    for (const tool of ["run_test", "run_build_command"]) {
      for (const flag of ["long_running", "background"]) {
        const bg = (await t.call("host_tool_call", [tool, req({ argv: ["true"], [flag]: true })])) as HDict;
        expect(bg.get("status")).toBe("running");
        expect(bg.get("handle_id")).toMatch(/^hto-/);
        expect(((await t.call("handle_wait", [bg])) as HDict).get("exit_code")).toBe(0);
      }
    }
    // long_running is read first
    const fg = (await t.call("host_tool_call", ["run_test", req({ argv: ["true"], long_running: false, background: true })])) as HDict;
    expect(fg.has("result_handle")).toBe(true);
  });

  it("require argv (no ecosystem detection)", async () => {
    expect(await caught(() => t.call("host_tool_call", ["run_test", req({})]))).toEqual(
      HDict.of({
        kind: "invalid_parameter",
        builtin: "hostlib_tools_run_test",
        message: "hostlib: hostlib_tools_run_test: invalid parameter 'argv': no recognized project manifest in cwd; pass argv explicitly",
      }),
    );
  });
});

describe("request errors (§6.2)", () => {
  const message = async (tool: string, request: Value | undefined) => {
    const e = await caught(() => t.call("host_tool_call", request === undefined ? [tool] : [tool, request]));
    expect(e).toBeInstanceOf(HDict);
    return (e as HDict).get("message");
  };
  const P = "hostlib: hostlib_tools_run_command: ";
  it("use the host-library dict shape and texts", async () => {
    expect(await message("run_command", undefined)).toBe(P + "missing required parameter 'request'");
    expect(await message("run_command", "ls")).toBe(P + "invalid parameter 'request': expected a dict (JSON request body), got string");
    expect(await message("run_command", req({}))).toBe(P + "missing required parameter 'argv'");
    expect(await message("run_command", req({ argv: [] }))).toBe(P + "invalid parameter 'argv': argv must contain at least one element");
    expect(await message("run_command", req({ argv: [""] }))).toBe(P + "invalid parameter 'argv': first argv element (program) must be non-empty");
    expect(await message("run_command", req({ argv: ["a", 1] }))).toBe(P + "invalid parameter 'argv': expected string at index 1, got int");
    expect(await message("run_command", req({ argv: "ls" }))).toBe(P + "invalid parameter 'argv': expected list of strings, got string");
    expect(await message("run_command", req({ argv: ["ls"], cwd: "/no/such/dir" }))).toBe(P + "invalid parameter 'cwd': not an existing directory: /no/such/dir");
    expect(await message("run_command", req({ argv: ["ls"], env_mode: "x" }))).toBe(
      P + 'invalid parameter \'env_mode\': unsupported env_mode "x"; expected inherit_clean, replace, or patch',
    );
    expect(await message("run_command", req({ argv: ["ls"], mode: "pty" }))).toBe(P + 'invalid parameter \'mode\': unsupported command mode "pty"; expected argv or shell');
    expect(await message("run_command", req({ argv: ["ls"], background: 1 }))).toBe(P + "invalid parameter 'background': expected bool, got int");
    expect(await message("run_command", req({ argv: ["ls"], env: [] }))).toBe(P + "invalid parameter 'env': expected dict, got list");
    expect(await message("run_command", req({ argv: ["ls"], stdin: 2.5 as unknown as Value }))).toMatch(/invalid parameter 'stdin': expected string, got/);
    expect(await message("run_command", req({ argv: ["definitely-not-a-program-xyz"] }))).toBe(P + "spawn failed: No such file or directory (os error 2)");
    expect(await message("run_command", req({ mode: "shell" }))).toBe(P + "missing required parameter 'command'");
  });

  it("cancel requests validate like the reference, and unknown ids are not errors", async () => {
    const C = "hostlib: hostlib_tools_cancel_handle: ";
    expect(await message("cancel_handle", req({}))).toBe(C + "missing required parameter 'handle_id'");
    expect(await message("cancel_handle", 5)).toBe(C + "invalid parameter 'request': expected a dict (JSON request body), got int");
    expect(await message("cancel_handle", req({ handle_id: 5 }))).toBe(C + "invalid parameter 'handle_id': expected string, got int");
    const r = (await t.call("host_tool_call", ["cancel_handle", req({ handle_id: "hto-0-77" })])) as HDict;
    expect([r.get("handle_id"), r.get("cancelled")]).toEqual(["hto-0-77", false]);
  });

  it("read_command_output needs a known id or an artifact path", async () => {
    const R = "hostlib: hostlib_tools_read_command_output: ";
    expect(await message("read_command_output", req({ handle_id: "hto-0-1" }))).toBe(R + "invalid parameter 'handle_id': unknown handle id 'hto-0-1' (not a command handle of this run)");
    expect(await message("read_command_output", req({ command_id: "cmd_1_2_3" }))).toBe(R + "invalid parameter 'command_id': unknown command id 'cmd_1_2_3'");
    expect(await message("read_command_output", req({}))).toBe(R + "missing required parameter 'command_id|handle_id|path'");
    expect(await message("read_command_output", req({ path: "/etc/passwd" }))).toBe(R + "invalid parameter 'path': path must point at a harn-command artifact directory");
  });
});

describe("host_tool_call routing, host_tool_list, the hostlib gate", () => {
  it("routes only the in-process tools; other names need a bridge", async () => {
    expect(await caught(() => t.call("host_tool_call", [""]))).toBe("host_tool_call: tool name is required");
    expect(await caught(() => t.call("host_tool_call", ["read_file", req({})]))).toBe("host_tool_call: no host bridge is attached");
    expect(await caught(() => t.call("host_tool_call", ["tools.toString", req({})]))).toBe("host_tool_call: no host bridge is attached");
    expect(await caught(() => t.call("host_tool_call", ["run_comand", req({})]))).toBe("host_tool_call: unknown host tool 'run_comand' (did you mean 'run_command'?)");
    expect(await caught(() => t.call("host_tool_call", ["tools.cancel_handel", req({})]))).toBe(
      "host_tool_call: unknown host tool 'tools.cancel_handel' (did you mean 'tools.cancel_handle'?)",
    );
  });

  it("lists the in-process tools", async () => {
    const list = (await t.call("host_tool_list", [])) as HDict[];
    expect(list.map((d) => d.get("name"))).toEqual(["run_command", "run_test", "run_build_command", "cancel_handle", "read_command_output"]);
    expect(list[0]!.keys()).toEqual(["deprecated", "description", "name", "schema"]);
  });

  it("gates the hostlib_tools_* names until hostlib_enable, except cancellation", async () => {
    const e = (await caught(() => t.call("hostlib_tools_run_command", [req({ argv: ["true"] })]))) as HDict;
    expect(e.get("kind")).toBe("backend_error");
    expect(e.get("message")).toBe(
      'hostlib: hostlib_tools_run_command: feature `tools:deterministic` is not enabled in this session — call `hostlib_enable("tools:deterministic")` before invoking deterministic tools',
    );
    expect(((await t.call("hostlib_tools_cancel_handle", [req({ handle_id: "x" })])) as HDict).get("cancelled")).toBe(false);
    const on = (await t.call("hostlib_enable", ["tools:deterministic"])) as HDict;
    expect([on.get("feature"), on.get("enabled"), on.get("newly_enabled")]).toEqual(["tools:deterministic", true, true]);
    expect(((await t.call("hostlib_enable", [HDict.of({ feature: "tools:deterministic" })])) as HDict).get("newly_enabled")).toBe(false);
    expect(((await t.call("hostlib_tools_run_command", [req({ argv: ["true"] })])) as HDict).get("exit_code")).toBe(0);
    const bad = (await caught(() => t.call("hostlib_enable", ["tools:everything"]))) as HDict;
    expect(bad.get("message")).toBe("hostlib: hostlib_enable: invalid parameter 'feature': unknown feature `tools:everything`; supported: [`tools:deterministic`]");
  });
});
