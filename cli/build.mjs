// Bundles the CLI into one file. Start-up matters (`harn check` on a small
// file should cost little more than `node -e 0`), and loading one bundled
// file is far cheaper than resolving dozens of ESM modules.
//
// Outputs are written to a temporary name and renamed into place, so a
// `harn` started while another build runs (test files build in parallel)
// never loads a half-written bundle.
import { build, transform, version as esbuildVersion } from "esbuild";
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { basename, dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
/** Paths in esbuild's metafile are relative to this (the repository). */
const repo = join(here, "..");

function writeAtomically(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

async function bundle(options) {
  const result = await build({ ...options, write: false });
  for (const f of result.outputFiles) writeAtomically(f.path, f.contents);
  return result;
}

/** Settings every bundle of this build shares. */
const NODE_ESM = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  legalComments: "none",
  absWorkingDir: repo,
  logLevel: "warning",
};

/**
 * commander requires `node:child_process` at load time, for executable
 * subcommands that harn never uses; loading it (with `net`, `dgram` and
 * their dependencies) cost `harn check` and `harn lint` ~5-8 ms of start-up.
 * This makes that one require lazy. If a commander upgrade changes the
 * line, the build fails here instead of silently losing the saving.
 */
const lazyChildProcessInCommander = {
  name: "lazy-child-process-in-commander",
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const eager = "const childProcess = require('node:child_process');";
      const text = await readFile(args.path, "utf8");
      if (!text.includes(eager)) throw new Error(`cli/build.mjs: ${args.path} no longer has \`${eager}\`; update lazyChildProcessInCommander`);
      const lazy = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };";
      return { contents: text.replace(eager, lazy), loader: "js" };
    });
  },
};

// What the builtin registry generates (packages/stdlib/src/registry/
// generate.ts): every stdlib module is installed once, in a child process of
// its own, and its definitions give the lazy groups' name lists (a source
// file, written first so the bundle below includes it), what `harn lint`
// and `harn check` need to know without loading the evaluator (every builtin
// name, the bundled `std/...` sources) and the builtin table for editors.
{
  const genDir = mkdtempSync(join(tmpdir(), "harn-build-registry-"));
  try {
    const script = join(genDir, "generate.mjs");
    await build({
      ...NODE_ESM,
      sourcemap: false,
      // CommonJS dependencies (cross-spawn under the MCP SDK) require Node
      // built-ins, which an ES module bundle can only do through this.
      banner: { js: `import { createRequire as __harnRequire } from "node:module"; const require = __harnRequire(import.meta.url);` },
      stdin: {
        // Written to a file: process.exit after a large write to a pipe
        // can cut the output short.
        contents: `import { writeFileSync } from "node:fs";
          import { generateFromRegistry } from "./packages/stdlib/src/registry/generate.ts";
          writeFileSync(process.argv[2], JSON.stringify(generateFromRegistry()));
          process.exit(0);`,
        resolveDir: repo,
        loader: "ts",
      },
      outfile: script,
    });
    const out = join(genDir, "generated.json");
    const run = spawnSync(process.execPath, [script, out], { encoding: "utf8", maxBuffer: 64 << 20 });
    if (run.status !== 0) throw new Error(`cli/build.mjs: generating from the builtin registry failed:\n${run.stderr}`);
    const generated = JSON.parse(readFileSync(out, "utf8"));
    const groupNames = join(repo, "packages/stdlib/src/lazy/group-names.ts");
    if (readFileSync(groupNames, "utf8") !== generated.groupNamesSource) writeAtomically(groupNames, generated.groupNamesSource);
    writeAtomically(join(here, "dist/lint-knowledge.json"), JSON.stringify(generated.knowledge));
    writeAtomically(join(here, "dist/builtins.json"), JSON.stringify({ builtins: generated.table }, null, 1) + "\n");
  } finally {
    rmSync(genDir, { recursive: true, force: true });
  }
}

// Split at dynamic imports (cli/src/engine.ts): `harn check`, `--help` and
// `--version` load only the small main chunk; the evaluator, the stdlib
// and their dependencies are separate chunks loaded by the commands that
// run scripts. Chunk names carry a content hash, so a `harn` started from
// an older build keeps finding its own chunks while a new build lands.
//
// esbuild splits only ES modules, and Node 20 cannot cache the compiled
// code of ES modules, which made compiling them the largest part of
// `harn run`'s start-up. So each chunk is then converted to a plain
// CommonJS module (imports become `require` calls, `import()` a promise of
// one) and loaded by cli/boot/chunk-loader.ts, the entry `dist/harn.cjs`,
// with a V8 code cache the build produces below.
const chunksDir = join(here, "dist/chunks");
const buildSalt = createHash("sha256").update(readFileSync(fileURLToPath(import.meta.url))).update(esbuildVersion).digest("hex").slice(0, 16);
const cli = await build({
  ...NODE_ESM,
  sourcemap: false,
  write: false,
  metafile: true,
  entryPoints: { main: join(here, "src/main.ts") },
  outdir: chunksDir,
  entryNames: "[name]-[hash]",
  chunkNames: "[name]-[hash]",
  outExtension: { ".js": ".cjs" },
  splitting: true,
  define: { "import.meta.url": "__harnUrl" },
  // Chunk names hash the ES module text; this line puts the conversion
  // below (this file, esbuild's version) into that text too, so a chunk name
  // always means the same final text, and its cache can never be applied to
  // another text of the same length (V8 checks only the length).
  banner: { js: `/* harn build ${buildSalt} */` },
  plugins: [lazyChildProcessInCommander],
});
const written = new Set();
for (const f of cli.outputFiles) {
  let { code } = await transform(f.text, {
    format: "cjs",
    platform: "node",
    target: "node20",
    supported: { "dynamic-import": false },
    logLevel: "warning",
  });
  // esbuild's CommonJS exports object copies each export behind one shared
  // getter closure (`() => from[key]`), whose keyed load V8 sees with every
  // key, megamorphic: every use of another chunk's export paid a generic
  // lookup (bench/vm 08_contains ran 2.5x slower than from ES modules).
  // The module's own exports object has one getter per export; use it.
  const exportsObject = /^module\.exports = __toCommonJS\((\w+)\);$/m;
  if (code.includes("__toCommonJS(") && !exportsObject.test(code)) throw new Error(`cli/build.mjs: no \`module.exports = __toCommonJS(...)\` in ${f.path}; esbuild's output changed`);
  const exportsName = exportsObject.exec(code)?.[1];
  code = code.replace(exportsObject, 'module.exports = __defProp($1, "__esModule", { value: true });');
  // Every exports object starts as `{}` and gets its getters in name order,
  // so all chunks' exports share V8's map transitions from `{}`: when two
  // chunks' first export has the same name, the second object meets a
  // transition whose getter is another function and V8 turns it into a
  // dictionary, and every call into that chunk from another one pays a
  // dictionary lookup. (Re-exporting vm's CANCELLED_TEXT from host.ts made
  // CANCELLED_TEXT the first export of both: bench/vm 08_contains went from
  // 0.22 to 0.46 s.) A class of its own per chunk gives each exports object
  // its own root map. cli/test/chunk-exports.test.ts checks them all.
  if (exportsName !== undefined) {
    const plainObject = `var ${exportsName} = {};`;
    if (!code.includes(plainObject)) throw new Error(`cli/build.mjs: no \`${plainObject}\` in ${f.path}; esbuild's output changed`);
    code = code.replace(plainObject, `var ${exportsName} = new (class ChunkExports {})();`);
  }
  // Only the chunk that needs its own URL computes it, so every chunk is
  // plain CommonJS (Node can `require` it too, as the builtin dump below does).
  const url = code.includes("__harnUrl") ? 'var __harnUrl = require("node:url").pathToFileURL(__filename).href;\n' : "";
  writeAtomically(f.path, url + code);
  written.add(f.path);
}
// Which sources went into which chunk, and what each chunk imports
// (cli/test/lazy-builtins.test.ts checks what `harn run` loads up front).
writeAtomically(join(here, "dist/meta.json"), JSON.stringify(cli.metafile));
/** The output chunk whose entry point is `source` (relative to the repository). */
function chunkOf(source) {
  const chunk = Object.entries(cli.metafile.outputs).find(([, o]) => o.entryPoint === source)?.[0];
  if (!chunk) throw new Error(`cli/build.mjs: no chunk for ${source} in the metafile`);
  return chunk;
}
const mainChunk = chunkOf("cli/src/main.ts");

await bundle({
  ...NODE_ESM,
  format: "cjs",
  sourcemap: false,
  entryPoints: [join(here, "boot/chunk-loader.ts")],
  outfile: join(here, "dist/harn.cjs"),
  define: { HARN_MAIN_CHUNK: JSON.stringify(`./chunks/${basename(mainChunk)}`) },
});
// For scripts and tests that run `dist/harn.mjs`, as before.
writeAtomically(join(here, "dist/harn.mjs"), '// The `harn` entry is harn.cjs (see cli/boot/chunk-loader.ts).\nimport "./harn.cjs";\n');

// The `harn lint` worker thread (packages/lint/src/worker-pool.ts): parser
// and linter only, so a worker starts faster than a second CLI would.
await bundle({
  entryPoints: [join(here, "../packages/lint/src/worker-entry.ts")],
  outfile: join(here, "dist/lint-worker.mjs"),
  ...NODE_ESM,
});

// The V8 code caches: the new `harn` runs a few typical commands with
// HARN_CODE_CACHE=write, and each chunk's cache is taken from the first
// command that loaded it (so it holds the functions that command compiled;
// the run comes first: start-up of `harn run` matters most).
const training = join(here, "boot/training.harn");
const trainingDir = mkdtempSync(join(tmpdir(), "harn-build-training-"));
try {
  mkdirSync(join(trainingDir, "docs"));
  writeFileSync(join(trainingDir, "docs/notes.md"), "a needle\n");
  writeFileSync(join(trainingDir, "main.txt"), "text\n");
  const env = { ...process.env, HARN_CODE_CACHE: "write", HARN_LLM_PROVIDER: "mock", NO_COLOR: "1" };
  for (const args of [["run", training, "--", trainingDir], ["lint", training], ["check", training], ["--help"]]) {
    const r = spawnSync(process.execPath, [join(here, "dist/harn.cjs"), ...args], { env, cwd: trainingDir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`cli/build.mjs: \`harn ${args.join(" ")}\` failed while producing the code cache: ${r.stderr}`);
  }
} finally {
  rmSync(trainingDir, { recursive: true, force: true });
}

// Chunks of earlier builds stay while a `harn` started from one (a daemon
// runs for days) may still load them lazily; after a week they are removed
// with their caches (a process that then needs one says so and stops).
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;
for (const name of readdirSync(chunksDir)) {
  const path = join(chunksDir, name);
  if (written.has(path) || written.has(path.replace(/\.v8$/, ""))) continue;
  try {
    if (Date.now() - statSync(path).mtimeMs > KEEP_MS) unlinkSync(path);
  } catch {
    // removed by a concurrent build
  }
}
