/**
 * Reading test summaries and build diagnostics out of tool output
 * (agents.md §1.12, P2): `run_test`'s optional `summary` and
 * `run_build_command`'s `diagnostics`. Best effort over the formats of the
 * common runners and compilers; when nothing is recognised the summary is
 * absent and the diagnostics list is empty, as the spec allows.
 */

export interface TestSummary {
  passed: number;
  failed: number;
  skipped: number;
}

export interface Diagnostic {
  severity: string;
  message: string;
  path: string;
  line: number;
  column: number;
}

const num = (s: string | undefined) => (s === undefined ? 0 : Number(s));

/** Counts of one runner's summary line(s), or null when no format matched. */
export function parseTestSummary(output: string): TestSummary | null {
  const sum: TestSummary = { passed: 0, failed: 0, skipped: 0 };
  let found = false;
  const add = (passed: number, failed: number, skipped: number) => {
    sum.passed += passed;
    sum.failed += failed;
    sum.skipped += skipped;
    found = true;
  };

  // cargo: one line per test binary
  for (const m of output.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm)) add(num(m[1]), num(m[2]), num(m[3]));
  if (found) return sum;

  // vitest: " Tests  2 failed | 10 passed | 1 skipped (13)"
  for (const m of output.matchAll(/^\s*Tests\s+((?:\d+ \w+(?: \| )?)+)\s*\(\d+\)/gm)) {
    const counts = countWords(m[1]!);
    add(counts.passed, counts.failed, counts.skipped);
  }
  if (found) return sum;

  // jest: "Tests:       1 failed, 1 skipped, 5 passed, 7 total"
  for (const m of output.matchAll(/^Tests:\s+(.*\d+ total)/gm)) {
    const counts = countWords(m[1]!);
    add(counts.passed, counts.failed, counts.skipped);
  }
  if (found) return sum;

  // pytest: "==== 3 passed, 1 failed, 2 skipped in 0.12s ===="
  for (const m of output.matchAll(/^=+ (.*?\d+ (?:passed|failed|skipped|error|errors).*?) in [\d.]+s/gm)) {
    const counts = countWords(m[1]!);
    add(counts.passed, counts.failed, counts.skipped);
  }
  if (found) return sum;

  // go test -v: one line per test
  const go = { passed: 0, failed: 0, skipped: 0 };
  for (const m of output.matchAll(/^\s*--- (PASS|FAIL|SKIP): /gm)) {
    if (m[1] === "PASS") go.passed++;
    else if (m[1] === "FAIL") go.failed++;
    else go.skipped++;
    found = true;
  }
  if (found) return go;

  // mocha: "  5 passing (12ms)", "  1 failing", "  2 pending"
  const passing = /^\s*(\d+) passing/m.exec(output);
  if (passing) {
    add(num(passing[1]), num(/^\s*(\d+) failing/m.exec(output)?.[1]), num(/^\s*(\d+) pending/m.exec(output)?.[1]));
    return sum;
  }
  return null;
}

/** "2 failed, 10 passed | 1 skipped" → counts (errors count as failed). */
function countWords(text: string): TestSummary {
  const out: TestSummary = { passed: 0, failed: 0, skipped: 0 };
  for (const m of text.matchAll(/(\d+) (\w+)/g)) {
    const n = Number(m[1]);
    const word = m[2]!;
    if (word === "passed" || word === "passing") out.passed += n;
    else if (word === "failed" || word === "failing" || word === "error" || word === "errors") out.failed += n;
    else if (word === "skipped" || word === "pending" || word === "todo" || word === "ignored") out.skipped += n;
  }
  return out;
}

/**
 * Compiler diagnostics in the common layouts:
 * `path:line:col: error: msg` (gcc, clang, go, eslint-unix),
 * `path(line,col): error TS2322: msg` (tsc), and rustc's
 * `error[E0308]: msg` followed by ` --> path:line:col`.
 */
export function parseDiagnostics(output: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = output.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, "");
    let m = /^(.+?):(\d+):(\d+): (?:fatal )?(error|warning|note|info)(?:\[[^\]]*\])?: (.*)$/.exec(line);
    if (m) {
      out.push({ path: m[1]!, line: Number(m[2]), column: Number(m[3]), severity: m[4]!, message: m[5]! });
      continue;
    }
    m = /^(.+?)\((\d+),(\d+)\): (error|warning) (?:TS\d+: )?(.*)$/.exec(line);
    if (m) {
      out.push({ path: m[1]!, line: Number(m[2]), column: Number(m[3]), severity: m[4]!, message: m[5]! });
      continue;
    }
    m = /^(error|warning)(?:\[\w+\])?: (.*)$/.exec(line);
    if (m) {
      // rustc: the location follows on a later ` --> path:line:col` line
      for (let j = i + 1; j < Math.min(lines.length, i + 4); j++) {
        const loc = /^\s*--> (.+?):(\d+):(\d+)/.exec(lines[j]!);
        if (loc) {
          out.push({ path: loc[1]!, line: Number(loc[2]), column: Number(loc[3]), severity: m[1]!, message: m[2]! });
          break;
        }
      }
    }
  }
  return out;
}
