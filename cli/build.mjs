// Bundles the CLI into one file. Start-up matters (`harn check` on a small
// file should cost little more than `node -e 0`), and loading one bundled
// file is far cheaper than resolving dozens of ESM modules.
//
// Outputs are written to a temporary name and renamed into place, so a
// `harn` started while another build runs (test files build in parallel)
// never loads a half-written bundle.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));

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
  logLevel: "warning",
};

// Split at dynamic imports (cli/src/engine.ts): `harn check`, `--help` and
// `--version` load only the small entry chunk; the evaluator, the stdlib
// and their dependencies are separate chunks loaded by the commands that
// run scripts. Chunk names carry a content hash, so a `harn` started from
// an older build keeps finding its own chunks while a new build lands.
const cli = await bundle({
  metafile: true,
  entryPoints: { harn: join(here, "src/main.ts") },
  outdir: join(here, "dist"),
  entryNames: "[name]",
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  splitting: true,
  ...NODE_ESM,
  // execa and friends use `require` in places; give the ESM bundle one.
  banner: { js: "import { createRequire as __harnCreateRequire } from 'node:module'; const require = __harnCreateRequire(import.meta.url);" },
});

// The `harn lint` worker thread (packages/lint/src/worker-pool.ts): parser
// and linter only, so a worker starts faster than a second CLI would.
await bundle({
  entryPoints: [join(here, "../packages/lint/src/worker-entry.ts")],
  outfile: join(here, "dist/lint-worker.mjs"),
  ...NODE_ESM,
});

// What `harn lint` needs from the runtime (every builtin name, for
// `undefined-function`, and the bundled `std/...` sources), taken from a
// runtime of this very build and written beside the bundle, so that lint
// does not load the evaluator and the stdlib (a third of its start-up) to
// learn them. Without the file, lint creates a runtime as before.
const hostChunk = Object.entries(cli.metafile.outputs).find(([, o]) => o.entryPoint === "cli/src/host.ts" || o.entryPoint?.endsWith("/cli/src/host.ts"))?.[0];
if (!hostChunk) throw new Error("cli/build.mjs: no chunk for cli/src/host.ts in the metafile");
const dump = spawnSync(
  process.execPath,
  [
    "--input-type=module",
    "-e",
    `const { createRuntime } = await import(process.argv[1]);
     const sink = { write() {} };
     const rt = createRuntime({ stdout: sink, stderr: sink, cwd: process.cwd(), env: {}, argv: null });
     process.stdout.write(JSON.stringify({ builtins: [...rt.builtins.keys()], stdModules: [...rt.stdModules] }));
     process.exit(0);`,
    pathToFileURL(join(process.cwd(), hostChunk)).href,
  ],
  { encoding: "utf8", maxBuffer: 64 << 20 },
);
if (dump.status !== 0) throw new Error(`cli/build.mjs: listing the runtime's builtins failed: ${dump.stderr}`);
writeAtomically(join(here, "dist/lint-knowledge.json"), dump.stdout);
