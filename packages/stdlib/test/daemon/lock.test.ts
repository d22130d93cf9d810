/**
 * The root lock (one process per daemon root): live owners block, dead
 * owners' locks are taken over, nobody ever sees a half-written lock.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LOCK_FILE, RootLock } from "../../src/agent/daemon/lock";

const made: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), "harn-lock-"));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

describe("RootLock", () => {
  it("holds the root for its owner until released", () => {
    const root = fresh();
    const a = RootLock.acquire(root);
    expect(a.ok).toBe(true);
    expect(readFileSync(join(root, LOCK_FILE), "utf8")).toMatch(new RegExp(`^${process.pid} \\d*\\n$`));
    const b = RootLock.acquire(root);
    expect(b).toEqual({ ok: false, owner: { pid: process.pid, start: expect.any(String) } });
    if (a.ok) a.lock.release();
    expect(existsSync(join(root, LOCK_FILE))).toBe(false);
    const c = RootLock.acquire(root);
    expect(c.ok).toBe(true);
    if (c.ok) c.lock.release();
    // no private link files are left behind
    expect(readdirSync(root)).toEqual([]);
  });

  it("takes over a lock whose owner has exited", () => {
    const root = fresh();
    writeFileSync(join(root, LOCK_FILE), `${deadPid()} 12345\n`);
    const r = RootLock.acquire(root);
    expect(r.ok).toBe(true);
    expect(readFileSync(join(root, LOCK_FILE), "utf8")).toMatch(new RegExp(`^${process.pid} `));
    if (r.ok) r.lock.release();
  });

  it("takes over a lock of a recycled pid (same pid, another start time)", () => {
    const root = fresh();
    writeFileSync(join(root, LOCK_FILE), `${process.pid} 1\n`);
    const r = RootLock.acquire(root);
    expect(r.ok).toBe(true);
    if (r.ok) r.lock.release();
  });

  it("takes over an unreadable lock (left by a power loss), since live locks appear complete", () => {
    const root = fresh();
    writeFileSync(join(root, LOCK_FILE), "");
    const r = RootLock.acquire(root);
    expect(r.ok).toBe(true);
    if (r.ok) r.lock.release();
  });

  it("fails with the OS error when the root does not exist", () => {
    expect(() => RootLock.acquire(join(fresh(), "missing"))).toThrow(/ENOENT/);
  });
});
