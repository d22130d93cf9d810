/**
 * File builtins (spec/stdlib.md §14). Paths resolve against the execution
 * root and errors (thrown strings) name the resolved path and the Rust
 * `io::Error` text. The calls are synchronous, like the reference: each is
 * one short system call, and a promise per read would cost more than it
 * saves.
 */
import * as fs from "node:fs";
import { compareStrings, err, HarnError, HBytes, HDict, float, ok, typeOf, type Runtime, type Value } from "@harn/vm";
import { arg, strArg } from "./args";
import { osErrorText } from "./oserror";
import { resolvePath } from "./paths";
import { lines } from "./text";

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function fail(prefix: string, e: unknown): never {
  throw HarnError.thrown(`${prefix}: ${osErrorText(e)}`);
}

/** Rust `fs::copy`: a source that is not a regular file (after following
 * symlinks) fails with this InvalidInput text, before the destination is
 * touched. */
function copyRegularFile(src: string, dst: string): void {
  if (!fs.statSync(src).isFile()) throw new Error("the source path is neither a regular file nor a symlink to a regular file");
  fs.copyFileSync(src, dst);
}

/** Read a file as strict UTF-8; the error detail follows Rust. */
export function readText(path: string): string {
  const data = fs.readFileSync(path);
  try {
    return UTF8.decode(data);
  } catch {
    throw { message: "stream did not contain valid UTF-8" };
  }
}

function readFileError(path: string, e: unknown): string {
  return `Failed to read file ${path}: ${osErrorText(e)}`;
}

export function installFs(rt: Runtime): void {
  rt.defineBuiltin("read_file", (args, ctx) => {
    const path = resolvePath(ctx.runtime, strArg(args, 0));
    try {
      return readText(path);
    } catch (e) {
      throw HarnError.thrown(readFileError(path, e));
    }
  });

  rt.defineBuiltin("read_file_result", (args, ctx) => {
    const path = resolvePath(ctx.runtime, strArg(args, 0));
    try {
      return ok(readText(path));
    } catch (e) {
      return err(readFileError(path, e));
    }
  });

  rt.defineBuiltin("write_file", (args, ctx) => {
    if (args.length < 2) return null;
    const path = resolvePath(ctx.runtime, strArg(args, 0));
    try {
      fs.writeFileSync(path, strArg(args, 1));
    } catch (e) {
      fail(`Failed to write file ${path}`, e);
    }
    return null;
  });

  rt.defineBuiltin("append_file", (args, ctx) => {
    if (args.length < 2) return null;
    const path = resolvePath(ctx.runtime, strArg(args, 0));
    let fd: number;
    try {
      fd = fs.openSync(path, "a");
    } catch (e) {
      fail(`Failed to open file ${path}`, e);
    }
    try {
      fs.writeSync(fd, strArg(args, 1));
    } catch (e) {
      fail(`Failed to append to file ${path}`, e);
    } finally {
      fs.closeSync(fd);
    }
    return null;
  });

  rt.defineBuiltin("file_exists", (args, ctx) => fs.existsSync(resolvePath(ctx.runtime, strArg(args, 0))));

  rt.defineBuiltin("mkdir", (args, ctx) => {
    const path = resolvePath(ctx.runtime, strArg(args, 0));
    try {
      fs.mkdirSync(path, { recursive: true });
    } catch (e) {
      fail(`Failed to create directory ${path}`, e);
    }
    return null;
  });

  rt.defineBuiltin("delete_file", (args, ctx) => {
    const arg = strArg(args, 0);
    const path = resolvePath(ctx.runtime, arg);
    // An omitted or empty path resolves to the execution root itself; a
    // recursive delete of the whole project because a variable was empty is
    // data loss, so refuse (our choice: the spec is silent on this case).
    if (arg === "") throw HarnError.thrown(`Failed to delete file ${path}: refusing to delete the execution root (empty path)`);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(path);
    } catch (e) {
      fail(`Failed to delete file ${path}`, e);
    }
    if (st.isDirectory()) {
      try {
        fs.rmSync(path, { recursive: true });
      } catch (e) {
        fail(`Failed to delete directory ${path}`, e);
      }
    } else {
      try {
        fs.unlinkSync(path);
      } catch (e) {
        fail(`Failed to delete file ${path}`, e);
      }
    }
    return null;
  });

  rt.defineBuiltin("list_dir", (args, ctx) => {
    const path = resolvePath(ctx.runtime, args.length > 0 && args[0] !== null ? strArg(args, 0) : ".");
    try {
      return fs.readdirSync(path).sort(compareStrings);
    } catch (e) {
      fail(`Failed to list directory ${path}`, e);
    }
  });

  rt.defineBuiltin("copy_file", (args, ctx) => {
    if (args.length < 2) return null;
    const src = resolvePath(ctx.runtime, strArg(args, 0));
    const dst = resolvePath(ctx.runtime, strArg(args, 1));
    try {
      copyRegularFile(src, dst);
    } catch (e) {
      fail(`Failed to copy ${src} to ${dst}`, e);
    }
    return null;
  });

  rt.defineBuiltin("move_file", (args, ctx) => {
    if (args.length < 2 || args[0] === null || args[1] === null) throw HarnError.thrown("move_file: src and dst are required");
    const src = resolvePath(ctx.runtime, strArg(args, 0));
    const dst = resolvePath(ctx.runtime, strArg(args, 1));
    try {
      fs.renameSync(src, dst);
      return null;
    } catch {
      // across devices (or other rename failures): copy, then remove
    }
    try {
      copyRegularFile(src, dst);
    } catch (e) {
      fail("move_file: copy failed", e);
    }
    try {
      fs.unlinkSync(src);
    } catch (e) {
      fail("move_file: remove src failed", e);
    }
    return null;
  });

  rt.defineBuiltin("read_lines", (args, ctx) => {
    const path = resolvePath(ctx.runtime, strArg(args, 0));
    try {
      return lines(readText(path));
    } catch (e) {
      fail(`read_lines: ${path}`, e);
    }
  });

  rt.defineBuiltin("stat", (args, ctx) => {
    const path = resolvePath(ctx.runtime, strArg(args, 0));
    let st: fs.Stats;
    try {
      st = fs.statSync(path);
    } catch (e) {
      fail(`Failed to stat ${path}`, e);
    }
    const entries: Record<string, Value> = {
      size: st.size,
      is_file: st.isFile(),
      is_dir: st.isDirectory(),
      readonly: (st.mode & 0o222) === 0,
    };
    if (Number.isFinite(st.mtimeMs)) entries.modified = float(st.mtimeMs / 1000);
    return HDict.of(entries);
  });

  rt.defineBuiltin("read_file_bytes", (args, ctx) => {
    const path = resolvePath(ctx.runtime, strArg(args, 0));
    try {
      return new HBytes(new Uint8Array(fs.readFileSync(path)));
    } catch (e) {
      throw HarnError.thrown(readFileError(path, e));
    }
  });

  rt.defineBuiltin("write_file_bytes", (args, ctx) => {
    const path = resolvePath(ctx.runtime, strArg(args, 0));
    const data = arg(args, 1);
    if (!(data instanceof HBytes)) throw HarnError.thrown(`write_file_bytes expects bytes content, got ${typeOf(data)}`);
    try {
      fs.writeFileSync(path, data.data);
    } catch (e) {
      fail(`Failed to write file ${path}`, e);
    }
    return null;
  });
}
