/** `harn test --junit PATH`: the run as a JUnit XML test suite. */
import { writeFileSync } from "node:fs";

function xmlEscape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

/** One test as the report sees it. */
export interface JunitCase {
  rel: string;
  passed: boolean;
  ms: number;
  message: string | null;
}

/** Write the JUnit XML report of a run to `path` (`--junit`); a failure to
 * write is reported on stderr, not fatal. */
export function writeJunit(path: string, results: readonly JunitCase[], totalMs: number): void {
  const failures = results.filter((r) => !r.passed).length;
  let xml = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="harn" tests="${results.length}" failures="${failures}" time="${(totalMs / 1000).toFixed(3)}">\n`;
  for (const r of results) {
    const t = (r.ms / 1000).toFixed(3);
    if (r.passed) xml += `  <testcase name="${xmlEscape(r.rel)}" time="${t}" />\n`;
    else xml += `  <testcase name="${xmlEscape(r.rel)}" time="${t}">\n    <failure message="test failed">${xmlEscape(r.message ?? "")}</failure>\n  </testcase>\n`;
  }
  xml += "</testsuite>\n";
  try {
    writeFileSync(path, xml);
    process.stdout.write(`JUnit XML written to ${path}\n`);
  } catch (e) {
    process.stderr.write(`Failed to write JUnit XML to ${path}: ${(e as Error).message}\n`);
  }
}
