/**
 * Directory listers (src/longrun/listing.ts): the fs binding's lister must
 * list exactly what the public `fs.readdir` lists, and fall back to it
 * whenever the binding answers in a way it does not know.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bindingLister, fastestLister, publicLister, type DirectoryLister } from "../../src/longrun/listing";
import { listUnordered } from "../../src/longrun/tree";
import { tempDir } from "./helpers";

let dir: ReturnType<typeof tempDir>;
let server: Server | null = null;

beforeEach(async () => {
  dir = tempDir();
  mkdirSync(join(dir.path, "sub"));
  writeFileSync(join(dir.path, "file.md"), "x");
  writeFileSync(join(dir.path, "sub", "inner.md"), "y");
  symlinkSync(join(dir.path, "sub"), join(dir.path, "link-to-dir"));
  symlinkSync(join(dir.path, "file.md"), join(dir.path, "link-to-file"));
  symlinkSync(join(dir.path, "nowhere"), join(dir.path, "dangling"));
  writeFileSync(join(dir.path, "caf\u00e9 \u{1F600}.txt"), "");
  execFileSync("mkfifo", [join(dir.path, "pipe")]);
  server = createServer();
  await new Promise<void>((ready) => server!.listen(join(dir.path, "sock"), ready));
});
afterEach(async () => {
  await new Promise((closed) => server?.close(closed));
  dir.remove();
});

type Listing = { err: Error | null; entries: [string, number][] };

function list(lister: DirectoryLister, path: string): Promise<Listing> {
  return new Promise((resolve, reject) => {
    let calls = 0;
    lister(path, (err, names, kinds) => {
      if (++calls > 1) reject(new Error("done called twice"));
      const entries = names.map((n, i): [string, number] => [n, kinds[i]!]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
      setTimeout(() => resolve({ err, entries }), 20);
    });
  });
}

/** A stand-in for Node's fs binding whose readdir answers with `answer`. */
function fakeBinding(answer: (req: { oncomplete: (err: Error | null, r?: unknown) => void }) => unknown) {
  return {
    FSReqCallback: class {
      oncomplete: (err: Error | null, r?: unknown) => void = () => {};
    },
    readdir: (_path: string, _enc: string, _types: boolean, req: { oncomplete: (err: Error | null, r?: unknown) => void }) => answer(req),
  };
}

describe("directory listers", () => {
  it("uses Node's fs binding on this Node, listing every kind of entry exactly as fs.readdir does", async () => {
    const fast = fastestLister();
    expect(fast).not.toBe(publicLister);
    const expected = await list(publicLister, dir.path);
    expect(expected.entries.map(([n]) => n)).toEqual([
      "caf\u00e9 \u{1F600}.txt",
      "dangling",
      "file.md",
      "link-to-dir",
      "link-to-file",
      "pipe",
      "sock",
      "sub",
    ]);
    expect(new Set(expected.entries.map(([, k]) => k)).size).toBe(5); // file, link, fifo, socket, dir
    expect(await list(fast, dir.path)).toEqual(expected);
  });

  it("reports a missing or unreadable directory as an error with no entries", async () => {
    for (const lister of [fastestLister(), publicLister]) {
      const r = await list(lister, join(dir.path, "missing"));
      expect((r.err as NodeJS.ErrnoException).code).toBe("ENOENT");
      expect(r.entries).toEqual([]);
      const f = await list(lister, join(dir.path, "file.md"));
      expect((f.err as NodeJS.ErrnoException).code).toBe("ENOTDIR");
    }
  });

  it("asks fs.readdir again when the binding answers in a way it does not know", async () => {
    const expected = await list(publicLister, dir.path);
    const answers = {
      "unknown kinds (no d_type)": fakeBinding((req) => void setImmediate(() => req.oncomplete(null, [["file.md"], [0]]))),
      "a result of another shape": fakeBinding((req) => void setImmediate(() => req.oncomplete(null, ["file.md"]))),
      "a synchronous answer": fakeBinding(() => [["file.md"], [1]]),
      "a throw": fakeBinding(() => {
        throw new TypeError("bad arguments");
      }),
    };
    for (const [what, binding] of Object.entries(answers)) {
      expect(await list(bindingLister(binding)!, dir.path), what).toEqual(expected);
    }
  });

  it("leaves paths with a NUL byte to fs.readdir, which rejects them", async () => {
    let called = false;
    const lister = bindingLister(fakeBinding(() => (called = true)))!;
    await expect(new Promise((_, reject) => lister(`${dir.path}\0x`, () => {}))).rejects.toThrow(/null bytes/);
    expect(called).toBe(false);
  });

  it("is not built over something that lacks the binding's calls", () => {
    expect(bindingLister(null)).toBeNull();
    expect(bindingLister({ readdir() {} })).toBeNull();
  });

  it("crawls the same entries with either lister", async () => {
    const crawl = async (lister: DirectoryLister) => {
      const seen: string[] = [];
      const ok = await listUnordered(dir.path, new AbortController().signal, (p, _n, isDir) => seen.push(`${p}${isDir ? "/" : ""}`), lister);
      expect(ok).toBe(true);
      return seen.sort();
    };
    const viaPublic = await crawl(publicLister);
    expect(viaPublic).toContain(join(dir.path, "sub", "inner.md"));
    expect(viaPublic).not.toContain(join(dir.path, "link-to-dir", "inner.md"));
    expect(await crawl(fastestLister())).toEqual(viaPublic);
  });
});
