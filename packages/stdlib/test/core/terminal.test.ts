import { describe, expect, it } from "vitest";
import { float, HDict } from "@harn/vm";
import { raised, rig } from "./harness";

describe("progress, colours, tty, stdin, stderr capture", () => {
  it("progress line forms", () => {
    const r = rig();
    r.call("progress", "build", "compiling");
    r.call("progress", "build", "compiling", 40);
    r.call("progress", "build", "compiling", 3, 10);
    r.call("progress", "p", "m", HDict.of({ mode: "spinner", step: 5 }));
    r.call("progress", "p", "m", HDict.of({ mode: "bar", current: 3, total: 10, width: 10 }));
    r.call("progress", "p", "m", HDict.of({ mode: "bar", current: 1, total: 0 }));
    expect(r.stdout()).toBe(
      "[build] compiling\n[build] compiling (40%)\n[build] compiling (3/10)\n[p] / m\n[p] [###-------] m (3/10)\n[p] [----------] m (1/0)\n",
    );
  });

  it("the tty answer for stdout is the runtime's sink's, when it says", () => {
    const captured = rig({ env: {}, stdoutTTY: false });
    expect(captured.call("is_stdout_tty")).toBe(false);
    expect(captured.call("color", "x", "red")).toBe("x");
    const terminal = rig({ env: {}, stdoutTTY: true });
    expect(terminal.call("is_stdout_tty")).toBe(true);
    expect(terminal.call("color", "x", "red")).toBe("\u001b[31mx\u001b[0m");
    terminal.call("mock_tty", "stdout", false);
    expect(terminal.call("is_stdout_tty")).toBe(false);
  });

  it("colours follow the mode; auto honours FORCE_COLOR / NO_COLOR / the tty", async () => {
    const r = rig({ env: {} });
    expect(r.call("color", "x", "red")).toBe("x");
    r.call("set_color_mode", "always");
    expect(r.call("color", "x", "red")).toBe("\u001b[31mx\u001b[0m");
    expect(r.call("bold", 5)).toBe("\u001b[1m5\u001b[0m");
    expect(r.call("color", "x", "nope")).toBe("x");
    r.call("set_color_mode", "auto");
    r.call("mock_tty", "stdout", true);
    expect(r.call("dim", "d")).toBe("\u001b[2md\u001b[0m");
    expect(r.call("is_stdout_tty")).toBe(true);
    r.call("unmock_tty");
    expect(rig({ env: { FORCE_COLOR: "1" } }).call("color", "g", "green")).toBe("\u001b[32mg\u001b[0m");
    expect((await raised(() => r.call("set_color_mode", "loud"))).caughtValue()).toBe(
      "set_color_mode: invalid mode 'loud'. Expected 'auto', 'always', or 'never'.",
    );
    expect((await raised(() => r.call("mock_tty", "stdx", true))).caughtValue()).toBe(
      "mock_tty: invalid stream 'stdx'. Expected 'stdin', 'stdout', or 'stderr'.",
    );
  });

  it("mocked stdin feeds read_line, read_stdin and prompt_user", () => {
    const r = rig();
    r.call("mock_stdin", "a\r\nb  \nc\n");
    expect(r.call("read_line")).toBe("a");
    expect(r.call("prompt_user", "? ")).toBe("b");
    expect(r.call("read_stdin")).toBe("c\n");
    expect(r.call("read_line")).toBe(null);
    expect(r.stdout()).toBe("? ");
  });

  it("stderr capture diverts eprint", () => {
    const r = rig();
    r.call("capture_stderr_start");
    r.call("eprintln", "hidden");
    expect(r.call("capture_stderr_take")).toBe("hidden\n");
    r.call("eprint", "shown");
    expect(r.err.join("")).toBe("shown");
  });
});

describe("structured logging and tracing", () => {
  it("writes JSON lines with sorted fields and honours the level", async () => {
    const r = rig();
    r.call("mock_time", 0);
    r.call("log_info", "hello", HDict.of({ b: float(1.5), a: "x", n: null, l: [1], i: float(Infinity) }));
    r.call("log_set_level", "warn");
    r.call("log_info", "dropped");
    r.call("log_error", "bad");
    r.call("log_json", "k", 2);
    expect(r.stdout()).toBe(
      '{"ts":"1970-01-01T00:00:00.000Z","level":"info","msg":"hello","a":"x","b":1.5,"i":null,"l":"[1]","n":null}\n' +
        '{"ts":"1970-01-01T00:00:00.000Z","level":"error","msg":"bad"}\n' +
        '{"ts":"1970-01-01T00:00:00.000Z","key":"k","value":2}\n',
    );
    expect((await raised(() => r.call("log_set_level", "loud"))).caughtValue()).toBe(
      "log_set_level: invalid level 'loud'. Expected debug, info, warn, or error",
    );
  });

  it("spans nest, share the trace id, and log span_end in the enclosing context", () => {
    const r = rig();
    r.call("mock_time", 1000);
    expect(r.call("trace_id")).toBe(null);
    const outer = r.call("trace_start", "outer") as HDict;
    const inner = r.call("trace_start", "inner") as HDict;
    expect(inner.get("trace_id")).toBe(outer.get("trace_id"));
    expect(outer.get("span_id")).toMatch(/^[0-9a-f]{8}$/);
    r.call("advance_time", 5);
    r.call("trace_end", inner);
    // the automatic context is the enclosing span; the fields name the ended one
    expect(r.stdout()).toContain(`"span_id":"${outer.get("span_id")}","duration_ms":5,"name":"inner","span_id":"${inner.get("span_id")}"`);
    r.call("trace_end", outer);
    expect(r.call("trace_id")).toBe(null);
    expect((r.call("trace_spans") as unknown[]).length).toBe(2);
  });
});
