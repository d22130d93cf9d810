/**
 * Every chunk's exports object is in V8's fast mode once all chunks are
 * loaded (cli/build.mjs gives each its own root map). Calls between chunks
 * go through these objects' getters; a dictionary-mode one made every call
 * into its chunk a dictionary lookup (bench/vm 08_contains: 0.22 -> 0.46 s)
 * as soon as two chunks happened to share their first export's name.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCli, repoRoot } from "./cli-harness";

beforeAll(() => buildCli());

describe("the built chunks", () => {
  it("keep every exports object in fast mode, whatever names their exports share", () => {
    const meta = JSON.parse(readFileSync(join(repoRoot, "cli/dist/meta.json"), "utf8")) as {
      outputs: Record<string, { entryPoint?: string }>;
    };
    // the main chunk runs the CLI when loaded; every other chunk only defines things
    const chunks = Object.entries(meta.outputs)
      .filter(([file, o]) => file.endsWith(".cjs") && o.entryPoint !== "cli/src/main.ts")
      .map(([file]) => join(repoRoot, file));
    const probe = `
      const slow = [];
      for (const path of ${JSON.stringify(chunks)}) {
        const exports = require(path);
        if (!%HasFastProperties(exports)) slow.push(path);
      }
      console.log(JSON.stringify(slow));
    `;
    const r = spawnSync(process.execPath, ["--allow-natives-syntax", "-e", probe], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});
