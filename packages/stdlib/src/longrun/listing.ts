/**
 * Directory listings as two arrays, names and entry kinds, without one
 * `Dirent` object per entry.
 *
 * `fs.readdir(dir, {withFileTypes: true})` gets exactly these two arrays
 * from Node's C++ side (the names, and libuv's `UV_DIRENT_*` kind of each)
 * and then builds a `Dirent` per entry in JavaScript, after parsing its
 * options and validating the path on every call. For a crawl that only
 * needs each entry's name and whether it is a directory, that is most of
 * the main thread's work: `harn run` of `glob("**\/*.md")` on the bench/fs
 * tree (110,000 entries in 10,000 directories) spent a median of 250 ms of
 * CPU with the public call and 211 ms with the binding's, 11 runs each,
 * twice, on an idle 2-core machine (perf task-clock; whole process).
 *
 * So when Node's fs binding offers that call as Node 20 and 22 do
 * (`process.binding("fs").readdir(path, encoding, withTypes, req)`, the
 * allow-listed legacy accessor, POSIX only), a listing goes to it directly.
 * The public call stays the fallback, decided per listing so no entry is
 * ever lost or mistyped:
 * - no binding, or one whose shape is not the one above, or the permission
 *   model refusing it;
 * - `--pending-deprecation` / NODE_PENDING_DEPRECATION, which makes
 *   `process.binding` print a DEP0111 warning (it is then a wrapper named
 *   `deprecated` instead of the function named `binding`);
 * - a listing with an entry whose kind the filesystem did not report
 *   (`UV_DIRENT_UNKNOWN`): the public call `lstat`s those;
 * - a path with a NUL byte, which the public call rejects and the C++ side
 *   would silently cut short;
 * - a binding call that answers synchronously or throws, or whose result is
 *   not the pair of arrays: whatever Node version changed it, the public
 *   call lists that directory again.
 */
import { constants, readdir, type Dirent } from "node:fs";

/** Receives a listing: parallel arrays of names and `UV_DIRENT_*` kinds
 * (both empty on error). */
export type ListingDone = (err: Error | null, names: readonly string[], kinds: readonly number[]) => void;

/** Lists one directory; `done` is called exactly once, asynchronously. */
export type DirectoryLister = (dir: string, done: ListingDone) => void;

// all present at run time; @types/node lists only some of them
const UV = constants as unknown as Record<`UV_DIRENT_${"UNKNOWN" | "FILE" | "DIR" | "LINK" | "FIFO" | "SOCKET" | "CHAR" | "BLOCK"}`, number>;
export const KIND_DIRECTORY = UV.UV_DIRENT_DIR;
const KIND_UNKNOWN = UV.UV_DIRENT_UNKNOWN;
const NONE: readonly never[] = [];

/** The public `fs.readdir`, its `Dirent`s turned into kinds. */
export const publicLister: DirectoryLister = (dir, done) => {
  readdir(dir, { withFileTypes: true }, (err, dirents) => {
    if (err) done(err, NONE, NONE);
    else done(null, dirents.map(nameOf), dirents.map(kindOf));
  });
};

const nameOf = (d: Dirent) => d.name;

function kindOf(d: Dirent): number {
  if (d.isDirectory()) return KIND_DIRECTORY;
  if (d.isFile()) return UV.UV_DIRENT_FILE;
  if (d.isSymbolicLink()) return UV.UV_DIRENT_LINK;
  if (d.isFIFO()) return UV.UV_DIRENT_FIFO;
  if (d.isSocket()) return UV.UV_DIRENT_SOCKET;
  if (d.isCharacterDevice()) return UV.UV_DIRENT_CHAR;
  if (d.isBlockDevice()) return UV.UV_DIRENT_BLOCK;
  return KIND_UNKNOWN;
}

/** The shape of Node's fs binding this module relies on. */
interface FsBinding {
  readdir(path: string, encoding: string, withTypes: boolean, req: FsRequest): unknown;
  FSReqCallback: new () => FsRequest;
}
interface FsRequest {
  oncomplete: (err: Error | null, result?: unknown) => void;
}

/** A lister over `binding` (Node's fs binding), or null when it lacks the
 * calls this module needs. Exported for tests, which hand it fakes. */
export function bindingLister(binding: unknown): DirectoryLister | null {
  if (!isFsBinding(binding)) return null;
  const { FSReqCallback } = binding;
  return (dir, done) => {
    if (dir.includes("\0")) return publicLister(dir, done);
    const req = new FSReqCallback();
    req.oncomplete = (err, result) => {
      if (err) done(err, NONE, NONE);
      else if (isNamesAndKinds(result) && !result[1].includes(KIND_UNKNOWN)) done(null, result[0], result[1]);
      else publicLister(dir, done);
    };
    let answered: unknown;
    try {
      answered = binding.readdir(dir, "utf8", true, req);
    } catch {
      answered = true;
    }
    if (answered !== undefined) {
      req.oncomplete = () => {};
      publicLister(dir, done);
    }
  };
}

function isFsBinding(b: unknown): b is FsBinding {
  return (
    typeof b === "object" &&
    b !== null &&
    typeof (b as FsBinding).readdir === "function" &&
    typeof (b as FsBinding).FSReqCallback === "function"
  );
}

function isNamesAndKinds(r: unknown): r is [string[], number[]] {
  return Array.isArray(r) && r.length === 2 && Array.isArray(r[0]) && Array.isArray(r[1]) && r[0].length === r[1].length;
}

/** The binding's lister where it can be used (see the header), else the
 * public one. Cheap enough to ask per crawl, so nothing is cached. */
export function fastestLister(): DirectoryLister {
  if (process.platform === "win32") return publicLister;
  const legacy = (process as unknown as { binding?: (name: string) => unknown }).binding;
  if (typeof legacy !== "function" || legacy.name !== "binding") return publicLister;
  try {
    return bindingLister(legacy("fs")) ?? publicLister;
  } catch {
    return publicLister;
  }
}
