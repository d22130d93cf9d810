/**
 * Checked handle lifecycles (extensions.md §4): path-sensitive settlement,
 * discarded handles, cleanup of the wrong handle, static option values.
 */
import { describe, expect, test } from "vitest";
import { lint } from "./helpers";

const RULES = new Set(["long-running-without-cleanup", "long-running-handle-discarded", "cleanup-cancels-wrong-handle"]);

function findings(src: string): { rule: string; line: number; severity: string; message: string }[] {
  return lint(src, { checkedHandles: true })
    .filter((d) => RULES.has(d.code))
    .map((d) => ({ rule: d.code, line: d.span!.line, severity: d.severity, message: d.message }));
}

describe("settlement along every path", () => {
  test("a handle nobody settles leaks at the end of its body, and the message names that line", () => {
    const f = findings(`pipeline main() {
  let h = walk_dir("docs", {long_running: true})
  log(h.handle_id)
}
`);
    expect(f).toEqual([
      {
        rule: "long-running-without-cleanup",
        line: 2,
        severity: "warning",
        message:
          "`walk_dir` starts long-running work without a defer/finally cleanup path: `h` is still running when the pipeline ends at line 4",
      },
    ]);
  });

  test("an early return before the cancel leaks on that path", () => {
    const f = findings(`fn scan(root, quick) {
  let h = glob("**/*.md", {base: root, long_running: true})
  if quick {
    return nil
  }
  cancel_handle(h)
}
`);
    expect(f).toHaveLength(1);
    expect(f[0]!.message).toContain("when `return` at line 4 leaves the function");
  });

  test("cancelled on every path: clean", () => {
    expect(
      findings(`fn scan(root, quick) {
  let h = glob("**/*.md", {base: root, long_running: true})
  if quick {
    cancel_handle(h)
    return nil
  }
  cancel_handle(h)
}
`),
    ).toEqual([]);
  });

  test("a defer registered before every exit covers them all", () => {
    expect(
      findings(`fn scan(root, quick) {
  let h = glob("**/*.md", {base: root, long_running: true})
  defer { cancel_handle(h) }
  if quick { return nil }
  throw "boom"
}
`),
    ).toEqual([]);
  });

  test("an exit before the defer registers leaks", () => {
    const f = findings(`fn scan(root, quick) {
  let h = glob("**/*.md", {base: root, long_running: true})
  if quick { return nil }
  defer { cancel_handle(h) }
}
`);
    expect(f.map((x) => x.message)).toEqual([expect.stringContaining("when `return` at line 3 leaves the function")]);
  });

  test("a let-wrapped cancel in a defer counts (the reference gap is fixed here)", () => {
    expect(
      findings(`pipeline main() {
  let h = run_command(["sleep", "30"], {long_running: true})
  defer {
    let outcome = host_tool_call("cancel_handle", {handle_id: h.handle_id})
  }
}
`),
    ).toEqual([]);
  });

  test("finally covers a return inside the try", () => {
    expect(
      findings(`fn docs_snapshot(root) {
  let scan = glob("**/*.md", {base: root, long_running: true})
  try {
    return 1
  } finally {
    host_tool_call("tools.cancel_handle", {handle_id: scan.handle_id})
  }
}
`),
    ).toEqual([]);
  });

  test("a failing call inside a try without finally skips the cancel", () => {
    const f = findings(`fn run(x) {
  let h = walk_dir(x, {long_running: true})
  try {
    risky(x)
    cancel_handle(h)
  } catch (e) {
    log(e)
  }
}
`);
    expect(f).toHaveLength(1);
    expect(f[0]!.message).toContain("when the function ends at line 9");
  });

  test("break out of the loop that owns the handle leaks", () => {
    const f = findings(`pipeline main() {
  for d in dirs {
    let h = walk_dir(d, {long_running: true})
    if d == "stop" {
      break
    }
    cancel_handle(h)
  }
}
`);
    expect(f).toHaveLength(1);
    expect(f[0]!.message).toContain("when `break` at line 5 leaves the loop");
  });

  test.each([
    ["returned", "  return h"],
    ["returned inside a dict", "  return {job: h}"],
    ["passed to a user function", "  track(h)"],
    ["stored into a structure", "  jobs.push(h)"],
    ["stored into a property", "  state.job = h"],
    ["awaited", "  handle_wait(h)"],
    ["adopted by an agent loop", '  agent_loop("go", nil, {})'],
    ["drained", "  pending_feedback_drain()"],
    ["cancelled through an alias", "  let id = h.handle_id\n  cancel_handle(id)"],
    ["captured by a closure", "  let f = { -> cancel_handle(h) }\n  f()"],
  ])("settled when %s", (_name, rest) => {
    expect(findings(`fn work(x) {\n  let h = walk_dir(x, {long_running: true})\n${rest}\n}\nfn track(x) { log(x) }\n`)).toEqual([]);
  });

  test("handles collected in a list and cancelled in a loop", () => {
    expect(
      findings(`fn scan_all(dirs) {
  let jobs = [walk_dir("a", {long_running: true}), walk_dir("b", {long_running: true})]
  defer {
    for j in jobs {
      cancel_handle(j)
    }
  }
  var more = []
  for d in dirs {
    more = more + [glob(d, {background: true})]
  }
  for m in more {
    cancel_handle(m)
  }
}
`),
    ).toEqual([]);
  });

  test("a loop that cancels each handle of a list settles them all", () => {
    expect(
      findings(`fn scan_all() {
  let jobs = [walk_dir("a", {long_running: true}), walk_dir("b", {long_running: true})]
  for j in jobs {
    cancel_handle(j)
  }
}
`),
    ).toEqual([]);
    const f = findings(`fn scan_all() {
  let jobs = [walk_dir("a", {long_running: true})]
  for j in jobs {
    log(j)
  }
}
`);
    expect(f.map((x) => x.rule)).toEqual(["long-running-without-cleanup"]);
  });

  test("a closure that returns the handle hands it to its caller", () => {
    expect(findings(`pipeline main() {\n  let kick = { -> walk_dir(".", {long_running: true}) }\n  kick()\n}\n`)).toEqual([]);
  });

  test("a tool that returns the handle is clean (the result arrives later)", () => {
    expect(
      findings(`tool start_scan(dir: string) -> dict {
  description "scan"
  return walk_dir(dir, {long_running: true, max_depth: 3})
}
`),
    ).toEqual([]);
  });
});

describe("long-running-handle-discarded", () => {
  test.each([
    ["a bare statement", '  walk_dir(".", {long_running: true})'],
    ["an argument of a builtin that does not keep it", '  log(walk_dir(".", {long_running: true}))'],
    ["a condition", '  if walk_dir(".", {long_running: true}) { log(1) }'],
    ["bound to _", '  let _ = walk_dir(".", {long_running: true})'],
  ])("fires for %s", (_name, body) => {
    const f = findings(`pipeline main() {\n${body}\n}\n`);
    expect(f.map((x) => x.rule)).toEqual(["long-running-handle-discarded"]);
    expect(f[0]!.message).toBe(
      "the handle returned by `walk_dir` is discarded, so its background work can never be cancelled or awaited",
    );
  });

  test("does not fire for a bound handle or a synchronous call", () => {
    const f = findings(`pipeline main() {\n  let h = walk_dir(".", {long_running: true})\n  defer { cancel_handle(h) }\n  walk_dir(".")\n}\n`);
    expect(f).toEqual([]);
  });
});

describe("cleanup-cancels-wrong-handle", () => {
  test("fires when the only cleanup cancels another variable", () => {
    const f = findings(`pipeline main() {
  let job = walk_dir("src", {long_running: true})
  let jobs = []
  defer { cancel_handle(jobs) }
}
`);
    expect(f).toEqual([
      {
        rule: "cleanup-cancels-wrong-handle",
        line: 2,
        severity: "warning",
        message: "`walk_dir` starts long-running work, but the cleanup at line 4 cancels `jobs` instead of `job`",
      },
    ]);
  });

  test("does not fire when the cleanup cancels the right handle", () => {
    expect(findings(`pipeline main() {\n  let job = walk_dir("src", {long_running: true})\n  defer { cancel_handle(job) }\n}\n`)).toEqual([]);
  });
});

describe("statically true option values", () => {
  test.each([
    ["a let bound to true", "  let bg = true\n  let h = walk_dir(x, {long_running: bg})"],
    ["a let-bound options dict", "  let opts = {background: true}\n  let h = walk_dir(x, opts)"],
    ["a spread of such a dict", "  let opts = {background: true}\n  let h = walk_dir(x, {...opts, max_depth: 2})"],
  ])("%s counts as long-running", (_name, body) => {
    const f = findings(`fn go(x) {\n${body}\n}\n`);
    expect(f.map((x) => [x.rule, x.severity])).toEqual([["long-running-without-cleanup", "warning"]]);
  });

  test("a value that cannot be known is reported as info", () => {
    const f = findings(`fn go(x, bg) {\n  let h = walk_dir(x, {long_running: bg})\n}\n`);
    expect(f.map((x) => [x.rule, x.severity])).toEqual([["long-running-without-cleanup", "info"]]);
    expect(f[0]!.message).toContain("may start long-running work");
  });

  test("a let bound to false is not long-running", () => {
    expect(findings(`fn go(x) {\n  let bg = false\n  let h = walk_dir(x, {long_running: bg})\n}\n`)).toEqual([]);
  });
});

test("without checked handles the extension rules stay silent", () => {
  const ds = lint(`pipeline main() {\n  walk_dir(".", {long_running: true})\n}\n`);
  expect(ds.filter((d) => RULES.has(d.code)).map((d) => d.code)).toEqual(["long-running-without-cleanup"]);
});
