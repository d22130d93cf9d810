// Bundles inproc.ts (the in-process timing aid) into inproc.mjs.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
const here = dirname(fileURLToPath(import.meta.url));
await build({ entryPoints: [join(here, "inproc.ts")], outfile: join(here, "inproc.mjs"), bundle: true, platform: "node", format: "esm", target: "node20", logLevel: "warning",
  banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" } });
