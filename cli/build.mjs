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

await bundle({
  entryPoints: [join(here, "src/main.ts")],
  outfile: join(here, "dist/harn.mjs"),
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
