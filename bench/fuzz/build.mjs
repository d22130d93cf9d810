// Bundles fuzz.ts (the in-process fuzz worker) into fuzz.mjs.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
const here = dirname(fileURLToPath(import.meta.url));
await build({ entryPoints: [join(here, "fuzz.ts")], outfile: join(here, "fuzz.mjs"), bundle: true, platform: "node", format: "esm", target: "node20", logLevel: "warning",
  banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" } });
