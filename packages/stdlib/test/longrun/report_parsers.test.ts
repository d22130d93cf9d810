import { describe, expect, it } from "vitest";
import { parseDiagnostics, parseTestSummary } from "../../src/longrun/commands/report_parsers";

describe("parseTestSummary", () => {
  it("reads cargo, vitest, jest, pytest, go and mocha summaries", () => {
    expect(parseTestSummary("running 3 tests\ntest result: ok. 3 passed; 0 failed; 1 ignored; 0 measured\n\ntest result: FAILED. 1 passed; 2 failed; 0 ignored;")).toEqual({ passed: 4, failed: 2, skipped: 1 });
    expect(parseTestSummary(" Test Files  1 failed | 3 passed (4)\n      Tests  2 failed | 10 passed | 1 skipped (13)\n")).toEqual({ passed: 10, failed: 2, skipped: 1 });
    expect(parseTestSummary("Test Suites: 1 failed, 2 passed, 3 total\nTests:       1 failed, 1 skipped, 5 passed, 7 total\n")).toEqual({ passed: 5, failed: 1, skipped: 1 });
    expect(parseTestSummary("..F\n=========== 3 passed, 1 failed, 2 skipped in 0.12s ===========\n")).toEqual({ passed: 3, failed: 1, skipped: 2 });
    expect(parseTestSummary("=== RUN   TestA\n--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)\n    --- SKIP: TestB/sub (0.00s)\n")).toEqual({ passed: 1, failed: 1, skipped: 1 });
    expect(parseTestSummary("\n  5 passing (12ms)\n  2 pending\n  1 failing\n")).toEqual({ passed: 5, failed: 1, skipped: 2 });
  });
  it("gives null for unrecognised output", () => {
    expect(parseTestSummary("all good\n")).toBeNull();
  });
});

describe("parseDiagnostics", () => {
  it("reads gcc/clang/go, tsc and rustc layouts", () => {
    const out = [
      "src/a.c:3:5: error: expected ';' before '}' token",
      "src/a.c:9:1: warning: control reaches end of non-void function [-Wreturn-type]",
      "src/b.ts(12,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "error[E0308]: mismatched types",
      "  --> src/main.rs:4:18",
      "   |",
      "make: *** [all] Error 1",
    ].join("\n");
    expect(parseDiagnostics(out)).toEqual([
      { path: "src/a.c", line: 3, column: 5, severity: "error", message: "expected ';' before '}' token" },
      { path: "src/a.c", line: 9, column: 1, severity: "warning", message: "control reaches end of non-void function [-Wreturn-type]" },
      { path: "src/b.ts", line: 12, column: 7, severity: "error", message: "Type 'string' is not assignable to type 'number'." },
      { path: "src/main.rs", line: 4, column: 18, severity: "error", message: "mismatched types" },
    ]);
    expect(parseDiagnostics("built ok\n")).toEqual([]);
  });
});
