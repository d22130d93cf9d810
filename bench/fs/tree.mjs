// Generates the benchmark tree once: 100,000 files in 10,000 directories.
// Deterministic (seeded), so every run of the bench measures the same data;
// a marker file records the layout version so a stale tree is rebuilt.
import { mkdir, writeFile, readFile, rm } from "node:fs/promises";
import { join } from "node:path";

export const TREE_VERSION = "1";
export const TOP_DIRS = 100;
export const SUB_DIRS = 99; // per top dir: 100 + 100*99 = 10,000 directories
export const FILES_PER_DIR = 10; // 100,000 files
export const NEEDLE = "harn_bench_needle";

const EXTENSIONS = [".md", ".ts", ".txt", ".json", ".rs"];
const WORDS = ["alpha", "beta", "gamma", "delta", "walk", "glob", "tree", "node", "agent", "pipeline", "handle", "queue"];

/** xorshift32: small, seeded, good enough for filler text. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

function fileText(next, withNeedle) {
  const lines = 5 + (next() % 20);
  const out = [];
  const needleLine = withNeedle ? next() % lines : -1;
  for (let i = 0; i < lines; i++) {
    const n = 3 + (next() % 9);
    const words = [];
    for (let j = 0; j < n; j++) words.push(WORDS[next() % WORDS.length]);
    if (i === needleLine) words.splice(next() % words.length, 0, NEEDLE);
    out.push(words.join(" "));
  }
  return out.join("\n") + "\n";
}

/** Creates (or reuses) the tree under `root`; returns the counts. */
export async function ensureTree(root, log = () => {}) {
  const marker = join(root, ".bench-tree");
  try {
    if ((await readFile(marker, "utf8")).trim() === TREE_VERSION) return;
  } catch {
    // missing or unreadable marker: (re)build below
  }
  log(`creating benchmark tree in ${root} (once) ...`);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  const next = rng(0x5eed);
  let fileNo = 0;
  const writeDir = async (dir) => {
    await mkdir(dir, { recursive: true });
    const writes = [];
    for (let f = 0; f < FILES_PER_DIR; f++) {
      const ext = EXTENSIONS[fileNo % EXTENSIONS.length];
      // one file in 97 holds the needle: a sparse literal search, like a real one
      writes.push(writeFile(join(dir, `file${f}${ext}`), fileText(next, fileNo % 97 === 0)));
      fileNo++;
    }
    await Promise.all(writes);
  };
  for (let t = 0; t < TOP_DIRS; t++) {
    const top = join(root, `dir${t}`);
    await writeDir(top);
    for (let s = 0; s < SUB_DIRS; s++) await writeDir(join(top, `sub${s}`));
  }
  await writeFile(marker, TREE_VERSION + "\n");
}
