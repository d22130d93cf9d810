/**
 * The in-process fuzz worker (bundled to fuzz.mjs by build.mjs; started by
 * run.mjs, which watches it for hangs and crashes). For each mutated seed
 * it drives the stages through their public APIs and classifies the
 * outcome: ok, a clean Harn error, or a BUG:
 *   - a JS exception escaping parse / check / lint / fix / fmt / run,
 *   - an error text that leaks JavaScript (`internal error`, `TypeError`,
 *     `undefined`, `[object Object]`, a stack frame),
 *   - `harn fmt` output that does not re-parse to the same AST (spans
 *     aside) or is not idempotent,
 *   - `--fix` output that does not re-parse, or lints with new errors,
 *   - a run that does not stop soon after it is cancelled.
 * Before each stage the input and stage name go to OUT/current.*, so the
 * supervisor can save the input a hang or a crash happened on.
 *
 *   node fuzz.mjs --seed N --count N --out DIR [--stages parse,check,lint,fmt,run]
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { check } from "../../packages/checker/src/index";
import { checkStructure, parse, renderDiagnostic, syntaxDiagnostic, plainStyle, type Program } from "@harn/parser";
import { applyFixes, lintProgram, typeErrorFixes, type RuleSetting } from "@harn/lint";
import { seededRandom } from "@harn/vm";
import { FormatError, formatSource } from "../../packages/fmt/src/index";
import { createRuntime, HarnError, renderRuntimeError, runSource } from "../../cli/src/host";
import { Flowchart } from "../../cli/src/commands/viz";
import { preflight } from "../../cli/src/preflight";
import { mutate } from "./mutate";

const { values: args } = parseArgs({
  options: {
    seed: { type: "string", default: String(Date.now() % 1e9) },
    count: { type: "string", default: "200" },
    out: { type: "string", default: join(import.meta.dirname, "out") },
    stages: { type: "string", default: "parse,check,viz,lint,fmt,run" },
    /** `--replay FILE`: run the stages on one file instead of mutating seeds. */
    replay: { type: "string" },
    /** `--emit DIR`: only write the mutated inputs that parse there (for end-to-end runs
     * of a command over many files in one process). */
    emit: { type: "string" },
  },
});
const seed = Number(args.seed);
const count = Number(args.count);
const out = args.out;
const stages = new Set(args.stages.split(","));
const { replay, emit } = args;
/** A run is cancelled after this long; it must then settle within RUN_GRACE_MS. */
const RUN_BUDGET_MS = 300;
const RUN_GRACE_MS = 3000;
/** A synchronous stage slower than this on one input is reported as slow. */
const SLOW_MS = 5000;

const root = join(import.meta.dirname, "../..");
mkdirSync(join(out, "bugs"), { recursive: true });

/** Builtins a mutated program must not reach: processes, network, models,
 * deleting or moving files, reading stdin, crawling the disk. */
const DENY =
  /^(exec|exec_at|shell|shell_at|hostlib_|host_tool_|http_(get|delete|post|put|patch|request|session|download|stream)|sse_connect|websocket_connect|llm_call|llm_stream|llm_completion|agent_loop|agent$|daemon_|delete_file|move_file|copy_file|tar_extract|zip_extract|prompt_user|read_stdin|read_line|walk_dir|glob|find_text|mkdir|write_file|append_file|write_file_bytes)/;

const LEAK = /internal error|TypeError|ReferenceError|RangeError|SyntaxError:|Cannot read prop|is not a function|undefined|\[object Object\]|\bat .*\.(ts|js|mjs|cjs):\d+|NaN:NaN/;

const seeds = replay ? [] : ["conformance", "examples"].flatMap((d) => harnFiles(join(root, d))).sort();
const texts = seeds.map((f) => readFileSync(f, "utf8"));

function harnFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".harn")).map((f) => join(dir, f));
}

interface Tally {
  ok: number;
  clean: number;
  bug: number;
}
const tally: Record<string, Tally> = {};
const bugs = new Map<string, number>();
let current = "";

function mark(stage: string): void {
  writeFileSync(join(out, "current.stage"), stage);
}

function bug(stage: string, what: string, input: string, extra = ""): void {
  (tally[stage] ??= { ok: 0, clean: 0, bug: 0 }).bug++;
  const key = `${stage}: ${what.replace(/\d+/g, "N").slice(0, 160)}`;
  const seen = bugs.get(key) ?? 0;
  bugs.set(key, seen + 1);
  // Keep the smallest few inputs per class.
  if (seen < 3) {
    const h = createHash("sha1").update(input).digest("hex").slice(0, 10);
    const base = join(out, "bugs", `${stage}-${h}`);
    writeFileSync(`${base}.harn`, input);
    writeFileSync(`${base}.txt`, `${stage}: ${what}\n${current}\n${extra}\n`);
  }
  process.stdout.write(`BUG ${key}\n`);
}

function count_(stage: string, kind: keyof Tally): void {
  (tally[stage] ??= { ok: 0, clean: 0, bug: 0 })[kind]++;
}

function timed<T>(stage: string, input: string, f: () => T): T {
  const t0 = performance.now();
  const v = f();
  const ms = performance.now() - t0;
  if (ms > SLOW_MS) bug(stage, `slow: ${Math.round(ms)} ms`, input);
  return v;
}

function errText(e: unknown): string {
  return e instanceof Error ? `${e.constructor.name}: ${e.message}\n${e.stack ?? ""}` : String(e);
}

/** The AST without positions, for comparing the formatter's output. */
function shape(p: Program): string {
  return JSON.stringify(p, (k, v) => (k === "span" || k === "line" || k === "column" || k === "start" || k === "end" || k === "endLine" || k === "endColumn" || /Spans?$/.test(k) ? undefined : typeof v === "bigint" ? `${v}n` : v));
}

/** Options vary between inputs (Math.random: the input itself is seeded). */
const flip = (): boolean => Math.random() < 0.5;

/** Where two AST shapes part, with some context, for the report. */
function firstDiff(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `input:     …${a.slice(Math.max(0, i - 150), i + 100)}\nformatted: …${b.slice(Math.max(0, i - 150), i + 100)}`;
}

async function runOne(input: string, file: string): Promise<void> {
  // --- lexer + parser
  mark("parse");
  let parsed;
  try {
    parsed = timed("parse", input, () => parse(input, { file }));
  } catch (e) {
    bug("parse", `throws ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message).slice(0, 100)}`, input, errText(e));
    return;
  }
  if (parsed.errors.length > 0) {
    count_("parse", "clean");
    for (const d of parsed.errors) {
      let rendered = "";
      try {
        rendered = renderDiagnostic(syntaxDiagnostic(d), file, input, plainStyle);
      } catch (e) {
        bug("parse", `render throws ${(e as Error).message}`, input, errText(e));
      }
      if (LEAK.test(d.message)) bug("parse", `message leaks JS: ${d.message}`, input);
      if (!(d.span && d.span.line >= 1 && d.span.column >= 1)) bug("parse", `no position: ${d.message}`, input, rendered);
    }
  } else count_("parse", "ok");

  // --- formatter: runs on text that parses, or must fail with FormatError
  if (stages.has("fmt")) {
    mark("fmt");
    try {
      const width = [100, 100, 40, 12, 1][Math.floor(Math.random() * 5)]!;
      current = current.replace(/ fmt-width=\d+$/, "") + ` fmt-width=${width}`;
      const fopts = { lineWidth: width, separatorWidth: width };
      const f1 = timed("fmt", input, () => formatSource(input, fopts));
      if (parsed.errors.length > 0) bug("fmt", "formatted a file that does not parse", input);
      const p1 = parse(f1);
      if (p1.errors.length > 0) bug("fmt", `output does not parse: ${p1.errors[0]!.message}`, input, f1);
      else if (shape(p1.program) !== shape(parsed.program)) bug("fmt", "output parses to a different AST", input, `${firstDiff(shape(parsed.program), shape(p1.program))}\n--- formatted\n${f1}`);
      else {
        const f2 = formatSource(f1, fopts);
        if (f2 !== f1) bug("fmt", "not idempotent", input, `--- once\n${f1}\n--- twice\n${f2}`);
        else count_("fmt", "ok");
      }
    } catch (e) {
      if (e instanceof FormatError) {
        count_("fmt", "clean");
        if (LEAK.test(e.message)) bug("fmt", `message leaks JS: ${e.message}`, input);
        if (parsed.errors.length === 0 && !/could not keep/.test(e.message)) bug("fmt", `FormatError on parsable file: ${e.message}`, input);
        if (parsed.errors.length === 0 && /could not keep/.test(e.message)) bug("fmt", "could not keep meaning", input);
      } else bug("fmt", `throws ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message).slice(0, 100)}`, input, errText(e));
    }
  }
  if (parsed.errors.length > 0) return;
  const program = parsed.program;

  // --- structural checks + checker
  if (stages.has("check")) {
    mark("check");
    try {
      const structural = timed("check", input, () => checkStructure(program));
      const diags = structural.length > 0 ? [] : timed("check", input, () => check(program, { file, builtins: new Set(), resolveImport: () => null }));
      for (const d of [...structural, ...diags]) {
        if (LEAK.test(d.message)) bug("check", `message leaks JS: ${d.message}`, input);
        if (d.span && !(d.span && d.span.line >= 1 && d.span.column >= 1)) bug("check", `bad position: ${d.message}`, input);
      }
      count_("check", structural.length + diags.length > 0 ? "clean" : "ok");
    } catch (e) {
      bug("check", `throws ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message).slice(0, 100)}`, input, errText(e));
    }
  }

  // --- the other commands that read a program: viz and check's preflight
  if (stages.has("viz")) {
    mark("viz");
    try {
      timed("viz", input, () => new Flowchart(input).draw(program.items));
      const found = timed("viz", input, () => preflight(program, file, { stdModules: new Set(["std/math"]) }));
      for (const f of found) if (LEAK.test(f.message)) bug("viz", `preflight message leaks JS: ${f.message}`, input);
      count_("viz", "ok");
    } catch (e) {
      bug("viz", `throws ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message).slice(0, 100)}`, input, errText(e));
    }
  }

  // --- linter, all rules, and the --fix round trip
  if (stages.has("lint")) {
    mark("lint");
    try {
      const opts = { source: input, tokens: parsed.tokens, file, rules: (flip() ? { "require-file-header": { severity: "warning" } } : {}) as Record<string, RuleSetting> };
      const ds = timed("lint", input, () => lintProgram(program, opts));
      // `harn lint --fix` also applies the checker's string-concat fixes.
      const typeFixes = typeErrorFixes(program, input, check(program, { file, builtins: new Set(), resolveImport: () => null }));
      for (const d of ds) {
        if (LEAK.test(d.message)) bug("lint", `[${d.code}] message leaks JS: ${d.message}`, input);
        if (!(d.span && d.span.line >= 1 && d.span.column >= 1)) bug("lint", `[${d.code}] bad position`, input);
      }
      count_("lint", ds.length > 0 ? "clean" : "ok");
      if ([...ds, ...typeFixes].some((d) => d.fix && d.fix.length > 0)) {
        mark("fix");
        const fixed = applyFixes(input, [...ds, ...typeFixes]).text;
        const p2 = parse(fixed, { file });
        if (p2.errors.length > 0) {
          const rules = [...new Set(ds.filter((d) => d.fix?.length).map((d) => d.code))].join(",");
          bug("fix", `fixed text does not parse (${rules}): ${p2.errors[0]!.message}`, input, fixed);
        } else {
          const errs = (xs: typeof ds) => xs.filter((d) => d.severity === "error").map((d) => d.code);
          const before = errs(ds);
          const after = errs(lintProgram(p2.program, { ...opts, source: fixed, tokens: p2.tokens }));
          const added = after.filter((r) => !before.includes(r));
          if (added.length > 0 || after.length > before.length) {
            const rules = [...new Set(ds.filter((d) => d.fix?.length).map((d) => d.code))].join(",");
            bug("fix", `fix adds lint errors (${rules} -> ${added.join(",") || "more"})`, input, fixed);
          } else count_("fix", "ok");
        }
      }
    } catch (e) {
      bug("lint", `throws ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message).slice(0, 100)}`, input, errText(e));
    }
  }

  // --- evaluator, with a budget, in a temp dir, with no processes/network
  if (stages.has("run")) {
    mark("run");
    const dir = mkdtempSync(join(tmpdir(), "harn-fuzz-"));
    const path = join(dir, "main.harn");
    writeFileSync(path, input);
    let printed = 0;
    const sink = { write: (t: string) => void (printed += t.length) };
    const rt = createRuntime({ stdout: sink, stderr: sink, cwd: dir, env: { HOME: dir }, argv: [] });
    for (const name of rt.builtins.keys()) if (DENY.test(name)) rt.denied.add(name);
    const handle = runSource(rt, input, path);
    const timer = setTimeout(() => handle.cancel(HarnError.thrown("kind:cancelled:VM cancelled by host")), RUN_BUDGET_MS);
    let settled = false;
    try {
      const outcome = await Promise.race([
        handle.outcome.then((o) => ((settled = true), o)),
        new Promise<null>((res) => setTimeout(() => res(null), RUN_BUDGET_MS + RUN_GRACE_MS).unref()),
      ]);
      if (outcome === null) bug("run", "did not stop within the grace period after cancel", input);
      else if (outcome.kind === "error") {
        const text = renderRuntimeError(outcome.error, path, () => input);
        if (/internal error|Cannot read prop|Maximum call stack|is not a function|\[object Object\]|\bat .*\.(ts|js|mjs|cjs):\d+/.test(text)) {
          bug("run", `error leaks JS: ${outcome.error.description().slice(0, 120)}`, input, text);
        } else count_("run", "clean");
      } else if (outcome.kind === "compile" || outcome.kind === "syntax") {
        const m = outcome.kind === "compile" ? outcome.message : outcome.errors[0]!.message;
        if (LEAK.test(m)) bug("run", `compile message leaks JS: ${m}`, input);
        else count_("run", "clean");
      } else count_("run", "ok");
    } catch (e) {
      bug("run", `outcome rejects ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message).slice(0, 100)}`, input, errText(e));
    } finally {
      clearTimeout(timer);
      if (settled) rmSync(dir, { recursive: true, force: true });
    }
  }
}

process.on("unhandledRejection", (e) => {
  writeFileSync(join(out, "current.unhandled"), errText(e));
  process.stdout.write(`BUG unhandled rejection: ${String((e as Error)?.message).slice(0, 120)}\n`);
});

async function main(): Promise<void> {
  if (emit !== undefined) mkdirSync(emit, { recursive: true });
  if (replay) {
    current = `replay ${replay}`;
    await runOne(readFileSync(replay, "utf8"), replay);
  } else {
    const r = seededRandom(seed);
    for (let i = 0; i < count; i++) {
      const a = Math.floor(r() * texts.length);
      const b = Math.floor(r() * texts.length);
      const { text, ops } = mutate(texts[a]!, texts[b]!, r);
      current = `seed=${seed} i=${i} base=${relative(root, seeds[a]!)} other=${relative(root, seeds[b]!)} ops=${ops.join(",")}`;
      if (emit !== undefined) {
        // Only inputs that parse: `harn lint` and `harn check` stop at the first file that does not.
        if (parse(text).errors.length > 0) continue;
        writeFileSync(join(emit, `in${String(i).padStart(5, "0")}.harn`), text);
        continue;
      }
      writeFileSync(join(out, "current.harn"), text);
      writeFileSync(join(out, "current.info"), current);
      await runOne(text, "fuzz.harn");
      process.stdout.write(`. ${i}\n`);
    }
  }
  process.stdout.write(`TALLY ${JSON.stringify(tally)}\n`);
  for (const [k, n] of bugs) process.stdout.write(`CLASS ${n} ${k}\n`);
}

await main();
process.exit(0);
