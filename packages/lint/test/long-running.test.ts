/**
 * `long-running-without-cleanup` in the reference's syntactic form
 * (lint.md §4), every row of its edge-case tables.
 */
import { describe, expect, test } from "vitest";
import { inMain, only } from "./helpers";

const RULE = "long-running-without-cleanup";
const fires = (src: string): number => only(RULE, src).length;

describe("what counts as starting long-running work (§4.2)", () => {
  test.each([
    "walk_dir",
    "glob",
    "http_get",
    "http_request",
    "http_download",
    "run_command",
    "run_test",
    "run_build_command",
    "find_text",
  ])("direct builtin %s with long_running: true fires", (name) => {
    const ds = only(RULE, inMain(`  let h = ${name}("x", {long_running: true})`));
    expect(ds).toHaveLength(1);
    expect(ds[0]!.message).toBe(`\`${name}\` starts long-running work without a defer/finally cleanup path`);
    expect(ds[0]!.help).toBe(
      "store the returned handle and cancel it from a defer or finally block with `tools.cancel_handle`",
    );
    expect(ds[0]!.severity).toBe("warning");
  });

  test.each(["run_command", "run_test", "run_build_command", "tools.run_command", "tools.run_test", "tools.run_build_command"])(
    "host tool %s fires and names host_tool_call",
    (tool) => {
      const ds = only(RULE, inMain(`  let h = host_tool_call("${tool}", {argv: ["make"], background: true})`));
      expect(ds).toHaveLength(1);
      expect(ds[0]!.message).toContain("`host_tool_call` starts");
    },
  );

  // [TS extension] the `tools` namespace runs the host tools, so its starts are starts
  test.each(["run_command", "run_test", "run_build_command"])("tools.%s({background: true}) fires and names tools.%s", (tool) => {
    const ds = only(RULE, inMain(`  let h = tools.${tool}({argv: ["make"], background: true})`));
    expect(ds).toHaveLength(1);
    expect(ds[0]!.message).toBe(`\`tools.${tool}\` starts long-running work without a defer/finally cleanup path`);
    expect(only(RULE, inMain(`  let h = tools.${tool}({argv: ["make"], background: true})\n  defer { cancel_handle(h) }`))).toHaveLength(0);
    expect(only(RULE, inMain(`  let h = runner.${tool}({argv: ["make"], background: true})`))).toHaveLength(0);
  });

  test("the span is the whole call expression", () => {
    const src = inMain('  let handle = walk_dir("docs", {long_running: true})');
    const [d] = only(RULE, src);
    expect(src.slice(d!.span!.start, d!.span!.end)).toBe('walk_dir("docs", {long_running: true})');
    expect([d!.span!.line, d!.span!.column]).toEqual([2, 16]);
  });

  test.each([
    ["both flag keys: background", '  walk_dir("x", {background: true})', 1],
    ["a quoted key", '  walk_dir("x", {"long_running": true})', 1],
    ["flag in the third argument", '  glob("*.log", "logs", {long_running: true})', 1],
    ["spread plus literal entry", '  walk_dir("x", {...base, long_running: true})', 1],
    ["flag in a variable", '  let opts = {long_running: true}\n  walk_dir("src", opts)', 0],
    ["non-literal value", '  walk_dir("x", {long_running: enabled})', 0],
    ["value 1", '  walk_dir("x", {background: 1})', 0],
    ['value "true"', '  walk_dir("x", {long_running: "true"})', 0],
    ["value false", '  walk_dir("x", {long_running: false})', 0],
    ["nested dict", '  walk_dir("x", {options: {long_running: true}})', 0],
    ["variable tool name", '  host_tool_call(tool_name, {background: true})', 0],
    ["unlisted host tool", '  host_tool_call("read_file", {long_running: true})', 0],
    ["method-call syntax", "  runner.run_command({long_running: true})", 0],
    ["no flag at all", '  walk_dir("x")', 0],
  ])("%s", (_name, body, n) => {
    expect(fires(inMain(body))).toBe(n);
  });
});

describe("what counts as cleanup (§4.3)", () => {
  const start = '  let h = walk_dir(".", {long_running: true})\n';
  test.each([
    ["defer with cancel_handle", `${start}  defer { cancel_handle(h) }`, 0],
    ["defer with host cancel", `${start}  defer { host_tool_call("cancel_handle", {handle_id: h.handle_id}) }`, 0],
    ["defer with tools.cancel_handle", `${start}  defer { host_tool_call("tools.cancel_handle", {handle_id: h.handle_id}) }`, 0],
    ["finally", `${start}  try { log(1) } finally { cancel_handle(h) }`, 0],
    ["defer before the call", `  defer { cancel_handle(x) }\n${start}`, 0],
    ["if-nested defer", `${start}  if ok { defer { cancel_handle(h) } }`, 0],
    ["else-nested defer", `${start}  if ok { log(1) } else { defer { cancel_handle(h) } }`, 0],
    ["loop-nested defer", `${start}  for x in xs { defer { cancel_handle(h) } }`, 0],
    ["while-nested defer", `${start}  while ok { defer { cancel_handle(h) } }`, 0],
    ["retry-nested defer", `${start}  retry 3 { defer { cancel_handle(h) } }`, 0],
    ["spawn statement with defer", `${start}  spawn { defer { cancel_handle(h) } }`, 0],
    ["bare closure statement with defer", `${start}  { -> defer { cancel_handle(h) } }`, 0],
    ["defer inside a try body", `${start}  try { defer { cancel_handle(h) } } catch (e) { log(e) }`, 0],
    ["cancel nested in an argument", `${start}  defer { log(cancel_handle(h)) }`, 0],
    ["cancel inside an if in defer", `${start}  defer { if h { cancel_handle(h) } }`, 0],
    ["cancel in a dict in defer", `${start}  defer { log({r: cancel_handle(h)}) }`, 0],
    ["cancel as a return value in defer", `${start}  defer { return cancel_handle(h) }`, 0],
    ["catch-only cancel", `${start}  try { log(1) } catch (e) { cancel_handle(h) }`, 1],
    ["let-wrapped cancel (reference gap)", `${start}  defer {\n    let outcome = cancel_handle(h)\n  }`, 1],
    ["assignment-wrapped cancel", `${start}  defer { r = cancel_handle(h) }`, 1],
    // [TS extension] `tools.cancel_handle(..)` runs here (the `tools` namespace), so it cleans up
    ["tools-namespace cancel", `${start}  defer { tools.cancel_handle(h) }`, 0],
    ["method-form cancel on another receiver", `${start}  defer { runner.cancel_handle({handle_id: h.handle_id}) }`, 1],
    ["match-arm cancel", `${start}  defer { match h { _ -> { cancel_handle(h) } } }`, 1],
    ["match-arm defer", `${start}  match x { _ -> { defer { cancel_handle(h) } } }`, 1],
    ["let-bound closure with defer", `${start}  let c = { -> defer { cancel_handle(h) } }`, 1],
    ["helper-based cleanup", `${start}  defer { stop_everything(h) }`, 1],
    ["cancel in a plain statement", `${start}  cancel_handle(h)`, 1],
    ["guard else defer", `${start}  guard ok else { defer { cancel_handle(h) } }`, 1],
    ["cancel in interpolation", `${start}  defer { log("\${cancel_handle(h)}") }`, 1],
  ])("%s", (_name, body, n) => {
    expect(fires(inMain(body))).toBe(n);
  });

  test("any cancel satisfies every call in the body (handles are not matched)", () => {
    const src = inMain(
      '  let a = walk_dir("a", {long_running: true})\n  let b = glob("*", {background: true})\n  defer { cancel_handle("stale") }',
    );
    expect(fires(src)).toBe(0);
  });
});

describe("owner bodies (§4.4)", () => {
  test("a nested fn needs its own cleanup", () => {
    const src = `pipeline main() {
  defer { cancel_handle(x) }
  fn inner() {
    return walk_dir(".", {long_running: true})
  }
  inner()
}
`;
    expect(fires(src)).toBe(1);
  });

  test("a let-bound closure is its own owner (§4.6)", () => {
    const src = `pipeline main() {
  defer { host_tool_call("cancel_handle", {handle_id: "stale"}) }
  let kick = { -> walk_dir(".", {long_running: true}) }
  kick()
}
`;
    expect(fires(src)).toBe(1);
  });

  test("non-owner blocks inherit: spawn, if, loops, parallel", () => {
    const src = inMain(`  defer { cancel_handle(h) }
  spawn { walk_dir("a", {long_running: true}) }
  if x { glob("*", {long_running: true}) }
  for y in ys { walk_dir(y, {background: true}) }
  parallel each ys { y -> walk_dir(y, {background: true}) }`);
    expect(fires(src)).toBe(0);
  });

  test("tool bodies are owners (agents.md §1.18 reproduces the warning)", () => {
    const src = `tool start_scan(dir: string) -> dict {
  description "Start a background scan; the listing arrives on a later turn"
  return walk_dir(dir, {long_running: true, max_depth: 3})
}
pipeline main() {
  let warmup = glob("**/*.ts", {base: "web", background: true})
  defer { cancel_handle(warmup) }
  log(start_scan)
}
`;
    const ds = only(RULE, src);
    expect(ds.map((d) => d.span!.line)).toEqual([3]);
  });

  test("top-level script code is always reported, even with a top-level defer", () => {
    const src = 'defer { cancel_handle(h) }\nlet h = walk_dir(".", {long_running: true})\n';
    expect(fires(src)).toBe(1);
  });

  test("one diagnostic per long-running call", () => {
    expect(fires(inMain('  walk_dir("a", {long_running: true})\n  walk_dir("b", {long_running: true})'))).toBe(2);
  });
});

describe("the examples of §4.6", () => {
  test("reported: background host tool without cleanup", () => {
    const ds = only(
      RULE,
      `pipeline main() {
  let job = host_tool_call("tools.run_test", {argv: ["make", "check"], background: true})
  log(job.handle_id)
}
`,
    );
    expect(ds).toHaveLength(1);
    expect(ds[0]!.message).toContain("`host_tool_call`");
  });

  test("clean: cancelled in finally", () => {
    const src = `fn docs_snapshot(root) {
  let scan = glob("**/*.md", {base: root, long_running: true})
  try {
    return summarize_later(scan.handle_id)
  } finally {
    host_tool_call("tools.cancel_handle", {handle_id: scan.handle_id})
  }
}
`;
    expect(fires(src)).toBe(0);
  });

  test("clean: a defer placed after the call", () => {
    const src = `pipeline main() {
  let walk = walk_dir("vendor", {"long_running": true})
  agent_loop("audit vendored code", "You are an auditor.", {})
  defer { host_tool_call("cancel_handle", {handle_id: walk.handle_id}) }
}
`;
    expect(fires(src)).toBe(0);
  });
});
