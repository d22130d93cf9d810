/**
 * A one-file bundle of the CLI for end-to-end tests that need a `harn`
 * independent of `cli/dist` (so parallel test files never race a build):
 * the same esbuild settings as cli/build.mjs, without code splitting.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Bundle `cli/src/main.ts` into `outfile`. */
export async function bundleHarn(outfile: string): Promise<void> {
  await build({
    entryPoints: [join(repo, "cli", "src", "main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    banner: { js: "import { createRequire as __harnCreateRequire } from 'node:module'; const require = __harnCreateRequire(import.meta.url);" },
  });
}
