// Bundles a bench tool written in TypeScript (it imports the packages as
// their TypeScript source) into an ES module beside it: `x.ts` -> `x.mjs`.
// The banner gives the bundled CommonJS dependencies the `require` an ES
// module lacks.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** @param {URL} entry the tool's `.ts` file */
export async function bundleTs(entry) {
  const file = fileURLToPath(entry);
  await build({ entryPoints: [file], outfile: file.replace(/\.ts$/, ".mjs"), bundle: true, platform: "node", format: "esm", target: "node20", logLevel: "warning",
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" } });
}
