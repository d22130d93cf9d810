// Bundles the extension's client (src/extension.ts and vscode-languageclient)
// into dist/extension.js, so the packaged extension carries no node_modules
// (`vsce package --no-dependencies`). `vscode` is provided by the editor.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

await build({
  entryPoints: [join(here, "src/extension.ts")],
  outfile: join(here, "dist/extension.js"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["vscode"],
  legalComments: "none",
  logLevel: "warning",
});
