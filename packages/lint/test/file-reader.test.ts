/** The read-ahead thread of large lint runs (file-reader.ts). */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { readBytes } from "../src/batch";
import { FileReader } from "../src/file-reader";

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

function readAll(files: string[]): void {
  const reader = new FileReader(files);
  try {
    files.forEach((f, i) => {
      const got = reader.read(i);
      const want = readBytes(f);
      if (Buffer.isBuffer(want)) {
        expect(Buffer.isBuffer(got), f).toBe(true);
        expect((got as Buffer).equals(want), f).toBe(true);
      } else {
        expect(got).toEqual(want);
        expect(want.code).toBe("ENOENT");
      }
    });
  } finally {
    reader.close();
  }
}

test("hands over every file's bytes, in order, and says why one could not be read", () => {
  dir = mkdtempSync(join(tmpdir(), "harn-file-reader-"));
  const files: string[] = [];
  // more files than the helper reads ahead, of varied sizes (some empty)
  for (let i = 0; i < 1500; i++) {
    const f = join(dir, `f${i}.harn`);
    if (i % 97 !== 5) writeFileSync(f, `// file ${i}\n${"x".repeat(i % 13 === 0 ? 0 : i % 700)}\n`.slice(0, i % 11 === 0 ? 0 : undefined));
    files.push(f); // every 97th is missing
  }
  readAll(files);
});

test("large files come over in parts of a batch, each whole", () => {
  dir = mkdtempSync(join(tmpdir(), "harn-file-reader-"));
  const files: string[] = [];
  // a 2 MiB file in every 8: any batch of 32 holds 8 MiB, and is posted
  // in parts of about that size
  for (let i = 0; i < 64; i++) {
    const f = join(dir, `f${i}.harn`);
    writeFileSync(f, i % 8 === 3 ? Buffer.alloc(2 << 20, 97 + (i % 26)) : `// small ${i}\n`);
    files.push(f);
  }
  readAll(files);
});
