/**
 * Handle summaries worked out on first use (project.ts, `importsAhead`):
 * a linted file that no import seen so far names is summarised only when
 * a later file imports it, parsed again then. What importers see must not
 * depend on when that happens.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { parse } from "@harn/parser";
import { DEFAULT_CONFIG } from "../src/config";
import { lintFiles } from "../src/worker-pool";
import { ProjectGraph } from "../src/project";
import type { HandleSummary } from "../src/index";

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

function project(files: Record<string, string>): string[] {
  dir = mkdtempSync(join(tmpdir(), "harn-deferred-summaries-"));
  return Object.entries(files).map(([name, text]) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  });
}

const MODULES: Record<string, string> = {
  // a factory, a function that cancels, one that hands on through another module
  "a_jobs.harn": `import { settle } from "b_more"
pub fn start() {
  return walk_dir(".", {long_running: true})
}
pub fn stop(h) {
  cancel_handle(h)
}
pub fn pass_on(h) {
  settle(h)
}
pub fn show(h) {
  log(h)
}
`,
  "b_more.harn": `pub fn settle(h) {
  handle_wait(h)
}
pub fn again() {
  return walk_dir(".", {background: true})
}
`,
  // no imports of its own: nothing about it is worked out until it is imported
  "b_plain.harn": `let limit = 3
fn helper() {
  return limit
}
pub fn plain_start() {
  return walk_dir(".", {long_running: true})
}
`,
  // a cycle: each summary is worked out while the other is being loaded
  "c_cycle.harn": `import { d_start, d_stop } from "d_cycle"
pub fn c_start() {
  return d_start()
}
pub fn c_stop(h) {
  d_stop(h)
}
`,
  "d_cycle.harn": `import { c_start } from "c_cycle"
pub fn d_start() {
  return walk_dir(".", {long_running: true})
}
pub fn d_stop(h) {
  cancel_handle(h)
}
pub fn d_again() {
  return c_start()
}
`,
  "e_main.harn": `import { start, stop, pass_on, show } from "a_jobs"
import { again } from "b_more"
import "c_cycle"
import "d_cycle"
import "b_plain"
pipeline main() {
  let h = start()
  show(h)
}
`,
};

function summariesSeen(files: string[], importsAhead: boolean, ahead: string[]): string {
  const graph = new ProjectGraph({ importsAhead });
  const sources = new Map(files.map((f) => [f, MODULES[f.slice(dir.length + 1)]!]));
  for (const f of ahead) graph.noteImportsAhead(Buffer.from(sources.get(f)!));
  const seen: Record<string, unknown> = {};
  for (const f of files) {
    const source = sources.get(f)!;
    const program = parse(source, { file: f, flatChains: true }).program;
    graph.addFile(f, program, source);
    const paths = program.items.flatMap((i) => (i.kind === "ImportDecl" || i.kind === "SelectiveImport" ? [i.path] : []));
    seen[f.slice(dir.length + 1)] = {
      handles: [...graph.importedHandles(f, program)].sort(([a], [b]) => (a < b ? -1 : 1)),
      // what importing a module gives and does, and what a wildcard brings in
      modules: paths.map((p) => {
        const m = graph.moduleAt(f, p);
        return m && { exports: [...m.exports].sort(), pure: m.pure };
      }),
      wildcards: [...graph.wildcardExports(f, program)],
    };
  }
  seen.externallyImported = [...graph.externallyImported].sort();
  return JSON.stringify(seen, null, 1);
}

test("importers see the same summaries whether a module was summarised when linted or when first imported", () => {
  const files = project(MODULES);
  const orders = [files, [...files].reverse(), [files[2]!, files[0]!, files[5]!, files[4]!, files[3]!, files[1]!]];
  for (const order of orders) {
    const eager = summariesSeen(order, false, []);
    expect(eager).toContain('"returnsHandle": true');
    expect(eager).toContain('"plain_start"');
    // nothing noted ahead: every module imported after it was linted is parsed again
    expect(summariesSeen(order, true, [])).toBe(eager);
    // the importers noted ahead: summarised when linted
    expect(summariesSeen(order, true, files)).toBe(eager);
  }
});

test("a run of many files finds a leak through a factory linted long before its importer", async () => {
  // the factory sorts first, the importer last: far beyond the read-ahead
  const fillers: Record<string, string> = {};
  for (let i = 0; i < 1300; i++) fillers[`m_${String(i).padStart(4, "0")}.harn`] = `/** Filler ${i}. */\npub fn f_${i}(x) {\n  return x + ${i}\n}\n`;
  const files = project({ ...MODULES, ...fillers, "z_main.harn": MODULES["e_main.harn"]!.replace("show(h)", "show(h)\n  let k = again()\n  log(k)\n  let p = plain_start()\n  log(p)") });
  const settings = { requireFileHeader: false, builtins: ["walk_dir", "cancel_handle", "handle_wait", "log"], stdModules: [] };
  const run = async (names: string[]) => {
    const jobs = names.map((file, index) => ({ index, file, config: DEFAULT_CONFIG }));
    const { outcomes } = await lintFiles(jobs, settings, { workerScript: null });
    return outcomes.filter((o) => o.file.endsWith("z_main.harn")).flatMap((o) => o.diagnostics.filter((d) => d.code === "long-running-without-cleanup").map((d) => d.message));
  };
  const many = await run(files);
  expect(many).toEqual([
    "`start` starts long-running work without a defer/finally cleanup path: `h` is still running when the pipeline ends at line 13",
    "`again` starts long-running work without a defer/finally cleanup path: `k` is still running when the pipeline ends at line 13",
    "`plain_start` starts long-running work without a defer/finally cleanup path: `p` is still running when the pipeline ends at line 13",
  ]);
  // a run too small for the read-ahead summarises every file as it is linted
  const few = await run([...files.slice(0, 5), files[files.length - 1]!]);
  expect(few).toEqual(many);
});
