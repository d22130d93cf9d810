import { build } from "esbuild";
import { readdirSync, readFileSync } from "node:fs";
await build({ stdin: { contents: 'export { parse } from "@harn/parser"; export { lintProgram } from "@harn/lint";', resolveDir: "/work/wt/lint/bench/lint" }, outfile: "/tmp/split-entry.mjs", bundle: true, platform: "node", format: "esm", logLevel: "warning" });
const { parse, lintProgram } = await import("/tmp/split-entry.mjs");
const dir = "/tmp/benchproj";
const srcs = readdirSync(dir).map((n) => readFileSync(`${dir}/${n}`, "utf8"));
for (let round = 0; round < 4; round++) {
  let t0 = performance.now();
  const rs = srcs.map((s) => parse(s));
  const tParse = performance.now() - t0;
  t0 = performance.now();
  rs.forEach((r, i) => lintProgram(r.program, { source: srcs[i], tokens: r.tokens }));
  const tLint = performance.now() - t0;
  t0 = performance.now();
  rs.forEach((r, i) => lintProgram(r.program, {}));
  const tLintNoSrc = performance.now() - t0;
  console.log(`parse ${tParse.toFixed(0)}  lint ${tLint.toFixed(0)}  lint(no source) ${tLintNoSrc.toFixed(0)}`);
}
