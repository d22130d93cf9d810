/**
 * The `harn` entry (`cli/dist/harn.cjs`, which `cli/bin/harn.cjs` and the
 * ES module shim `cli/dist/harn.mjs` load): loads the CLI's chunks with
 * V8's code cache. The entry itself is CommonJS because an ES module entry
 * makes Node set up its ES module loader first (~4-5 ms of CPU, a fifth of
 * `node -e 0`).
 *
 * Why: Node 20 cannot cache compiled ES modules (22 has
 * `module.enableCompileCache`), and compiling the ~800 KB that `harn run`
 * loads was the largest part of its start-up, more than resolving and
 * linking them. So cli/build.mjs converts the split bundle's chunks to
 * plain CommonJS modules, and this loader compiles each with
 * `vm.Script` and the cached data the build produced for it (`NAME.cjs.v8`
 * beside `NAME.cjs`). A cache V8 rejects (another Node version, other V8
 * flags) or a missing one only costs the compile it would have saved.
 *
 * Chunk names carry a content hash, and a cache is named after its chunk,
 * so a cache can never be applied to other source text (V8 itself only
 * checks the source length), and a `harn` started from an older build
 * keeps loading its own chunks while a new build lands.
 *
 * `HARN_CODE_CACHE`: `off` compiles without caches (to compare), `report`
 * prints each chunk's cache status to stderr at exit, `write` (used by the
 * build) writes a cache for every loaded chunk that has none, at exit, so
 * that it holds the functions that process compiled.
 */
import type { Script as ScriptType } from "node:vm";

// Built-ins come from `process.getBuiltinModule`, not `import`: importing
// `node:fs` as an ES module builds its ES facade, which reads every export
// and so loads `fs/promises` and the stream modules that a script which
// never opens a stream does not need (~10 ms).
const { existsSync, readFileSync, renameSync, writeFileSync } = process.getBuiltinModule("node:fs");
const { createRequire, wrap } = process.getBuiltinModule("node:module");
const { basename, dirname, join } = process.getBuiltinModule("node:path");
const { Script } = process.getBuiltinModule("node:vm");

/** The main chunk's path relative to this file, set by cli/build.mjs. */
declare const HARN_MAIN_CHUNK: string;

type CacheMode = "use" | "off" | "report" | "write";

interface Chunk {
  readonly file: string;
  readonly module: { exports: unknown };
  readonly script: ScriptType;
  /** What happened to the cached data: used, rejected by V8, or none found. */
  readonly cache: "accepted" | "rejected" | "none";
}

class ChunkLoader {
  private readonly chunks = new Map<string, Chunk>();
  /** Node's own `require`, for built-in modules (every dependency is bundled). */
  private readonly nodeRequire = createRequire(__filename);

  constructor(private readonly mode: CacheMode) {}

  load(file: string): unknown {
    const known = this.chunks.get(file);
    if (known) return known.module.exports;
    const source = readSource(file, this.chunks.size === 0);
    const cachedData = this.mode === "use" || this.mode === "report" ? readIfPresent(`${file}.v8`) : undefined;
    // Chunks are plain CommonJS (cli/build.mjs): Node's own module wrapper.
    const script = new Script(wrap(source), { filename: file, cachedData });
    const cache = cachedData === undefined ? "none" : script.cachedDataRejected ? "rejected" : "accepted";
    const module = { exports: {} };
    // Registered before running, as Node does, so that a cycle between
    // chunks sees the partly initialised exports instead of recursing.
    this.chunks.set(file, { file, module, script, cache });
    const dir = dirname(file);
    const requireFromChunk = (id: string): unknown => (id.startsWith(".") ? this.load(join(dir, id)) : this.nodeRequire(id));
    const body = script.runInThisContext() as (...args: unknown[]) => void;
    body.call(module.exports, module.exports, requireFromChunk, module, file, dir);
    return module.exports;
  }

  /** At exit: what `report` and `write` ask for. */
  finish(): void {
    if (this.mode === "report") {
      for (const c of this.chunks.values()) process.stderr.write(`harn code cache: ${basename(c.file)} ${c.cache}\n`);
    } else if (this.mode === "write") {
      for (const c of this.chunks.values()) {
        const target = `${c.file}.v8`;
        if (existsSync(target)) continue;
        // Atomic: a concurrent `harn` reads either no cache or a whole one.
        const tmp = `${target}.${process.pid}.tmp`;
        writeFileSync(tmp, c.script.createCachedData());
        renameSync(tmp, target);
      }
    }
  }
}

/** A chunk's text. A chunk that is gone after start-up means a new build
 * removed it while this process ran (builds prune chunks of builds older
 * than a week, cli/build.mjs): say so instead of a bare ENOENT. */
function readSource(file: string, isMain: boolean): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    if (isMain || (e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    throw new Error(`this harn's build was replaced while it ran (${basename(file)} is gone); start harn again`);
  }
}

function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function cacheMode(value: string | undefined): CacheMode {
  return value === "off" || value === "report" || value === "write" ? value : "use";
}

const mode = cacheMode(process.env.HARN_CODE_CACHE);
const loader = new ChunkLoader(mode);
if (mode === "report" || mode === "write") process.on("exit", () => loader.finish());
loader.load(join(__dirname, HARN_MAIN_CHUNK));
