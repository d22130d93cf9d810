/**
 * The cap on what a tool or the feedback queue hands the model
 * (agent/loop/bounded.ts), at its default: a `walk_dir` completion of a
 * 60,000-entry tree was one 5.2-million-character message.
 */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Runtime } from "@harn/vm";
import { DEFAULT_FEEDBACK_MAX_BYTES, FeedbackBound } from "../../src/agent/loop/bounded";
import { tempDir } from "../longrun/helpers";

const dir = tempDir("harn-bounded-test-");
const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const rt of runtimes.splice(0)) await rt.shutdown();
});
afterAll(() => dir.remove());

function bound(maxBytes = DEFAULT_FEEDBACK_MAX_BYTES): FeedbackBound {
  const rt = new Runtime({ stdout: { write() {} }, stderr: { write() {} }, cwd: dir.path, env: { TMPDIR: dir.path } });
  runtimes.push(rt);
  return new FeedbackBound(rt, maxBytes);
}

describe("FeedbackBound", () => {
  it("cuts a 60,000-entry walk_dir payload to a valid one under 50 KB, with the full one in a file", () => {
    const result = Array.from({ length: 60_000 }, (_, i) => ({ depth: 1, is_dir: false, is_file: true, path: `/srv/app/src/module-${i}/index.ts` }));
    const payload = { handle_id: "hso-1-1", operation: "walk_dir", status: "completed", result };
    const text = JSON.stringify(payload);
    expect(text.length).toBeGreaterThan(4_000_000);
    const seen = bound().payload(text, payload, "hso-1-1");
    expect(Buffer.byteLength(seen)).toBeLessThanOrEqual(50_000);
    const p = JSON.parse(seen);
    expect(p.result_truncated).toBe(true);
    expect(p.result_total).toBe(60_000);
    expect(p.result_shown).toBe(p.result.length);
    expect(p.result).toEqual(result.slice(0, p.result_shown));
    // as many leading items as fit: one more would not
    expect(Buffer.byteLength(JSON.stringify({ ...p, result: result.slice(0, p.result_shown + 1), result_shown: p.result_shown + 1 }))).toBeGreaterThan(50_000);
    expect(readFileSync(p.full_result_path, "utf8")).toBe(text);
  });

  it("cuts find_text's matches inside its result dict", () => {
    const matches = Array.from({ length: 5_000 }, (_, i) => ({ column: 1, line: i + 1, path: "/a.txt", text: "TODO ".repeat(10) }));
    const payload = { handle_id: "hso-1-2", status: "completed", result: { matches, truncated: false } };
    const p = JSON.parse(bound(10_000).payload(JSON.stringify(payload), payload, "hso-1-2"));
    expect(p.result.truncated).toBe(false);
    expect(p.result.matches).toEqual(matches.slice(0, p.result_shown));
    expect(p.result_total).toBe(5_000);
  });

  it("cuts other text on a character boundary, with a marker naming the file", () => {
    const text = "é".repeat(1_000);
    const seen = bound(101).text(text, "call/1");
    const [head, marker] = seen.split("\n");
    expect(head).toBe("é".repeat(50));
    expect(marker).toMatch(/^\[truncated by harn: the first 100 of 2000 bytes are shown; the full text is in .*\/results\/call_1-1\.txt\]$/);
    expect(readFileSync(marker!.slice(marker!.indexOf(" in /") + 4, -1), "utf8")).toBe(text);
  });

  it("leaves text under the cap, and everything with the cap off, as it is", () => {
    expect(bound(10).text("short", "x")).toBe("short");
    expect(bound(0).text("y".repeat(100_000), "x")).toHaveLength(100_000);
  });
});
