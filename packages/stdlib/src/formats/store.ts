/**
 * The persistent key/value store (spec/stdlib.md §21): `store.json` in the
 * project's `.harn` state directory (the project root holding `harn.toml`,
 * else the script's directory; `HARN_STATE_DIR` overrides), loaded on first
 * use, saved after every change with an atomic write (temp file + rename),
 * created lazily on the first write. Values are stored as JSON.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HarnError, HDict, RuntimeSlot, type CallContext, type Value } from "@harn/vm";
import { strArg } from "../core/args";
import { parseJson, stringifyJson } from "../core/json";
import { osErrorText } from "../core/oserror";
import { findProjectRoot, sourceDir } from "../core/paths";
import { builtinModule } from "../registry/define";
import { makeDirsSync } from "../core/make-dirs";

interface Store {
  file: string | null;
  data: Map<string, Value> | null;
}

const storeSlot = new RuntimeSlot<Store>("store", () => ({ file: null, data: null }));

function stateDir(ctx: CallContext): string {
  const env = ctx.runtime.env.HARN_STATE_DIR;
  if (env) return env;
  // Functions of a bundled std module (std/collections' store_refresh) run
  // with the module's name as their source file, which is no directory:
  // the store is the script's, so they fall back to the execution root
  // as a script without a file does (not to `<cwd>/std/collections/..`).
  const file = ctx.sourceFile;
  const scriptDir = file && ctx.runtime.stdModules.has(file) ? ctx.runtime.cwd : sourceDir(ctx);
  return join(findProjectRoot(ctx.runtime.cwd) ?? scriptDir, ".harn");
}

function load(ctx: CallContext): Store & { data: Map<string, Value>; file: string } {
  const s = ctx.runtime.slot(storeSlot);
  if (s.data === null || s.file === null) {
    // Nothing is kept until the file has been read: a store that failed to
    // load must fail again on the next call, not look empty and then be
    // overwritten by the next write.
    const file = join(stateDir(ctx), "store.json");
    const data = new Map<string, Value>();
    let text: string | null = null;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw HarnError.runtime(`store: failed to read ${file}: ${osErrorText(e)}`);
    }
    if (text !== null && text.trim() !== "") {
      let doc: Value;
      try {
        doc = parseJson(text);
      } catch {
        throw HarnError.runtime(`store: ${file} is not valid JSON`);
      }
      if (doc instanceof HDict) for (const k of doc.keys()) data.set(k, doc.get(k));
    }
    s.file = file;
    s.data = data;
  }
  return s as Store & { data: Map<string, Value>; file: string };
}

function save(s: { data: Map<string, Value>; file: string }): void {
  const dir = s.file.slice(0, s.file.lastIndexOf("/"));
  const tmp = `${s.file}.${process.pid}.tmp`;
  try {
    makeDirsSync(dir);
    writeFileSync(tmp, stringifyJson(new HDict(s.data)));
    renameSync(tmp, s.file);
  } catch (e) {
    throw HarnError.runtime(`store: failed to write ${s.file}: ${osErrorText(e)}`);
  }
}

/** Stored values are what JSON keeps of them. */
function roundTrip(v: Value): Value {
  return parseJson(stringifyJson(v));
}

export const STORE_BUILTINS = builtinModule("formats/store", (def) => {
  def("store_get", (args, ctx) => load(ctx).data.get(strArg(args, 0)) ?? null);
  def("store_set", (args, ctx) => {
    const s = load(ctx);
    s.data.set(strArg(args, 0), roundTrip(args[1] ?? null));
    save(s);
    return null;
  });
  def("store_delete", (args, ctx) => {
    const s = load(ctx);
    if (s.data.delete(strArg(args, 0))) save(s);
    return null;
  });
  def("store_list", (_args, ctx) => new HDict(load(ctx).data).keys().slice());
  def("store_save", (_args, ctx) => {
    save(load(ctx));
    return null;
  });
  def("store_clear", (_args, ctx) => {
    const s = load(ctx);
    s.data.clear();
    save(s);
    return null;
  });
});
