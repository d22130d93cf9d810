// Bundles the CLI into one file. Start-up matters (`harn check` on a small
// file should cost little more than `node -e 0`), and loading one bundled
// file is far cheaper than resolving dozens of ESM modules.
//
// Outputs are written to a temporary name and renamed into place, so a
// `harn` started while another build runs (test files build in parallel)
// never loads a half-written bundle.
import { build } from "esbuild";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));

async function bundle(options) {
  const result = await build({ ...options, write: false });
  for (const f of result.outputFiles) {
    mkdirSync(dirname(f.path), { recursive: true });
    const tmp = `${f.path}.${process.pid}.tmp`;
    writeFileSync(tmp, f.contents);
    renameSync(tmp, f.path);
  }
}

// Split at dynamic imports (cli/src/engine.ts): `harn check`, `--help` and
// `--version` load only the small entry chunk; the evaluator, the stdlib
// and their dependencies are separate chunks loaded by the commands that
// run scripts. Chunk names carry a content hash, so a `harn` started from
// an older build keeps finding its own chunks while a new build lands.
await bundle({
  entryPoints: { harn: join(here, "src/main.ts") },
  outdir: join(here, "dist"),
  entryNames: "[name]",
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  splitting: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
  // execa and friends use `require` in places; give the ESM bundle one.
  banner: { js: "import { createRequire as __harnCreateRequire } from 'node:module'; const require = __harnCreateRequire(import.meta.url);" },
});

// The `harn lint` worker thread (packages/lint/src/worker-pool.ts): parser
// and linter only, so a worker starts faster than a second CLI would.
await bundle({
  entryPoints: [join(here, "../packages/lint/src/worker-entry.ts")],
  outfile: join(here, "dist/lint-worker.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
});
