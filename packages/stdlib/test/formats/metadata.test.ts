import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { display, HDict, type Value } from "@harn/vm";
import { rig } from "../core/harness";

const d = (o: Record<string, Value>) => HDict.of(o);
const env = { ...process.env, HARN_STATE_DIR: undefined };

describe("metadata store (core-gaps.md §7.1)", () => {
  let root = "";
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "harn-metadata-"));
    writeFileSync(join(root, "harn.toml"), "");
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "a.txt"), "abc");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("keeps writes in memory until metadata_save, which writes only when something changed", () => {
    const a = rig({ cwd: root, env });
    a.call("metadata_set", "src", "classification", d({ owner: "ann" }));
    expect(display(rig({ cwd: root, env }).call("metadata_get", "src", "classification"))).toBe("nil");
    a.call("metadata_save");
    const files = readdirSync(join(root, ".harn", "metadata"));
    expect(files.length).toBe(1);
    expect(display(rig({ cwd: root, env }).call("metadata_get", "src", "classification"))).toBe("{owner: ann}");
    // nothing changed since: no write (the shard's removal stays unnoticed)
    rmSync(join(root, ".harn", "metadata", files[0]!));
    a.call("metadata_save");
    expect(readdirSync(join(root, ".harn", "metadata"))).toEqual([]);
  });

  it("hashes a directory's direct children with FNV-1a: names and sizes, then mtimes", () => {
    const a = rig({ cwd: root, env });
    utimesSync(join(root, "src", "a.txt"), 1000, 1000);
    // FNV-1a 64 of "a.txt:3:1000", computed independently
    expect(a.call("compute_content_hash", "src")).toBe(fnv("a.txt:3:1000"));
    a.call("metadata_set", "src", "classification", d({ contentHash: fnv("a.txt:3:1000") }));
    a.call("metadata_refresh_hashes");
    expect(display(a.call("metadata_stale", "x"))).toBe("{any_stale: false, tier1: [], tier2: []}");
    utimesSync(join(root, "src", "a.txt"), 2000, 2000);
    expect(display(a.call("metadata_stale", "x"))).toBe("{any_stale: true, tier1: [], tier2: [src]}");
    writeFileSync(join(root, "src", "b.txt"), "");
    expect(display(a.call("metadata_stale", "x"))).toBe("{any_stale: true, tier1: [src], tier2: []}");
  });
});

function fnv(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(text)) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h.toString(16);
}
