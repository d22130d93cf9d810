/**
 * The atomic, durable state-file writer (agents.md §4.2/§4.4, §8): what a
 * reader of the directory can observe, permissions, group commit, and the
 * §6.4 error texts naming the file.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync, chmodSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HarnError } from "@harn/vm";
import { DirectoryWriter, readStateFile, tempPath } from "../../src/agent/daemon/durable";

const made: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), "harn-durable-"));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof HarnError) return e.description();
    throw e;
  }
  throw new Error("expected a failure");
}

describe("DirectoryWriter", () => {
  it("creates the directory (0700) and owner-only files (0600), leaving no temp file", async () => {
    const dir = join(fresh(), "a", "b");
    const w = new DirectoryWriter(dir);
    await w.write("daemon.meta.json", "meta", () => '{"x": 1}\n');
    expect(readFileSync(join(dir, "daemon.meta.json"), "utf8")).toBe('{"x": 1}\n');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "daemon.meta.json")).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["daemon.meta.json"]);
  });

  it("replaces a stale temp file left by a crash, whatever its permissions", async () => {
    const dir = fresh();
    const live = join(dir, "daemon.json");
    writeFileSync(live, "old\n");
    writeFileSync(tempPath(live), "half-writ");
    chmodSync(tempPath(live), 0o644);
    await new DirectoryWriter(dir).write("daemon.json", "snapshot", () => "new\n");
    expect(readFileSync(live, "utf8")).toBe("new\n");
    expect(statSync(live).mode & 0o777).toBe(0o600);
    expect(existsSync(tempPath(live))).toBe(false);
  });

  it("each write resolves only once content at least as new as its own is in place", async () => {
    const dir = fresh();
    const w = new DirectoryWriter(dir);
    let state = 0;
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: 40 }, async () => {
        const mine = ++state;
        await w.write("daemon.meta.json", "meta", () => String(state));
        seen.push(Number(readFileSync(join(dir, "daemon.meta.json"), "utf8")) - mine);
      }),
    );
    expect(seen.every((d) => d >= 0)).toBe(true);
    expect(readFileSync(join(dir, "daemon.meta.json"), "utf8")).toBe("40");
    // concurrent requests shared commits
    expect(w.commits).toBeLessThan(40);
    expect(w.commits).toBeGreaterThanOrEqual(2);
  });

  it("commits of different files run side by side and both land", async () => {
    const dir = fresh();
    const w = new DirectoryWriter(dir);
    await Promise.all([w.write("daemon.json", "snapshot", () => "s\n"), w.write("daemon.meta.json", "meta", () => "m\n")]);
    expect(readFileSync(join(dir, "daemon.json"), "utf8")).toBe("s\n");
    expect(readFileSync(join(dir, "daemon.meta.json"), "utf8")).toBe("m\n");
    await w.settled();
  });

  it("fails with the §6.4 texts naming the path, and recovers once the cause is gone", async () => {
    const base = fresh();
    const blocker = join(base, "file");
    writeFileSync(blocker, "");
    const mk = await failure(new DirectoryWriter(join(blocker, "root")).write("daemon.meta.json", "meta", () => "{}"));
    expect(mk).toBe(`Runtime error: daemon meta mkdir error: ${join(blocker, "root")}: Not a directory (os error 20)`);

    const dir = fresh();
    const w = new DirectoryWriter(dir);
    const enc = await failure(
      w.write("daemon.json", "snapshot", () => {
        throw new Error("cannot encode");
      }),
    );
    expect(enc).toBe("Runtime error: daemon snapshot encode error: cannot encode");
    // the live name is a directory: the rename cannot replace it
    const live = join(dir, "daemon.meta.json");
    mkdirSync(join(live, "inside"), { recursive: true });
    const fin = await failure(w.write("daemon.meta.json", "meta", () => "{}"));
    expect(fin).toMatch(new RegExp(`^Runtime error: daemon meta finalize error: ${live.replace(/[/.]/g, "\\$&")}: `));
    await w.write("daemon.json", "snapshot", () => "ok\n");
    expect(readFileSync(join(dir, "daemon.json"), "utf8")).toBe("ok\n");
  });
});

describe("readStateFile", () => {
  it("is null for a missing file and a read error naming any other failure", async () => {
    const dir = fresh();
    expect(await readStateFile(join(dir, "daemon.json"), "snapshot")).toBeNull();
    const err = await failure(readStateFile(dir, "meta"));
    expect(err).toBe(`Runtime error: daemon meta read error: ${dir}: Is a directory (os error 21)`);
  });
});
