/**
 * Checkpoints (spec/agents-surface.md §7): key/value persistence for
 * resumable pipelines, one JSON file per script at
 * `<state root>/checkpoints/<script stem>.json`, read on first use and
 * replaced atomically on every change (core/atomic-file.ts). Values are
 * stored as JSON data: closures and other non-data values become nil.
 */
import { readFileSync, rmSync } from "node:fs";
import { basename, dirname, extname, isAbsolute, join, resolve } from "node:path";
import { display, HarnError, HDict, HFloat, RuntimeSlot, type Runtime, type Value } from "@harn/vm";
import { AtomicWriteError, writeFileAtomicSync } from "../../core/atomic-file";
import { JsonError, parseJson } from "../../core/json";
import { osErrorText } from "../../core/oserror";
import { findProjectRoot } from "../../core/paths";
import { scriptFile } from "../../core/script";
import { toJson as prettyJson } from "../../template/json";
import { builtinModule } from "../../registry/define";

interface Checkpoints {
  readonly file: string;
  data: Map<string, Value>;
}

const SLOT = new RuntimeSlot<{ loaded: Checkpoints | null }>("agent.checkpoints", () => ({ loaded: null }));

/** The script's stem (`default` when there is none; the REPL is `repl`). */
function pipelineName(rt: Runtime): string {
  const file = scriptFile(rt);
  if (file === null) return "default";
  const stem = basename(file, extname(file));
  if (stem === "<repl>") return "repl";
  return stem === "" || stem === "." || stem === ".." ? "default" : stem;
}

/** `HARN_STATE_DIR` (relative: against the project base), else
 * `<base>/.harn`; the base is the project root, else the script's
 * directory, as for the persistent store (stdlib.md §21). */
function stateRoot(rt: Runtime): string {
  const file = scriptFile(rt);
  const scriptDir = file !== null ? dirname(resolve(rt.cwd, file)) : rt.cwd;
  const base = findProjectRoot(rt.cwd) ?? scriptDir;
  const env = rt.env.HARN_STATE_DIR;
  if (env !== undefined && env !== "") return isAbsolute(env) ? env : join(base, env);
  return join(base, ".harn");
}

function load(rt: Runtime): Checkpoints {
  const slot = rt.slot(SLOT);
  if (slot.loaded) return slot.loaded;
  const file = join(stateRoot(rt), "checkpoints", `${pipelineName(rt)}.json`);
  const data = new Map<string, Value>();
  let text: string | null = null;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    // No file yet (ENOTDIR: a path component is a file; writing will say so).
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw HarnError.runtime(`checkpoint read error: ${file}: ${osErrorText(e)}`);
  }
  if (text !== null && text.trim() !== "") {
    let doc: Value;
    try {
      doc = parseJson(text);
    } catch (e) {
      if (e instanceof JsonError) throw HarnError.runtime(`checkpoint read error: ${file}: ${e.message}`);
      throw e;
    }
    if (doc instanceof HDict) for (const k of doc.keys()) data.set(k, doc.get(k));
  }
  slot.loaded = { file, data };
  return slot.loaded;
}

/** A value as JSON data: what JSON cannot hold becomes nil. */
function jsonData(v: Value): Value {
  if (v === null || typeof v === "string" || typeof v === "boolean" || typeof v === "number") return v;
  if (typeof v === "bigint" || v instanceof HFloat) return v;
  if (Array.isArray(v)) return v.map(jsonData);
  if (v instanceof HDict) {
    const m = new Map<string, Value>();
    for (const k of v.keys()) m.set(k, jsonData(v.get(k)));
    return new HDict(m);
  }
  return null;
}

/** Write `data` and only then make it the store's: a failed write
 * changes nothing. */
function save(c: Checkpoints, data: Map<string, Value>): void {
  const keys = [...data.keys()].sort();
  const doc = new HDict(new Map(keys.map((k) => [k, data.get(k)!])));
  try {
    writeFileAtomicSync(c.file, `${prettyJson(doc, true)}\n`);
  } catch (e) {
    if (e instanceof AtomicWriteError) throw HarnError.runtime(`checkpoint ${e.stage} error: ${e.path}: ${osErrorText(e.cause)}`);
    throw e;
  }
  c.data = data;
}

function key(args: Value[]): string {
  return display(args[0] ?? null);
}

export const CHECKPOINT_BUILTINS = builtinModule("agent/checkpoint", (def) => {
  def("checkpoint", (args, ctx) => {
    const c = load(ctx.runtime);
    save(c, new Map(c.data).set(key(args), jsonData(args[1] ?? null)));
    return null;
  });
  def("checkpoint_get", (args, ctx) => load(ctx.runtime).data.get(key(args)) ?? null);
  def("checkpoint_exists", (args, ctx) => load(ctx.runtime).data.has(key(args)));
  def("checkpoint_list", (_args, ctx) => [...load(ctx.runtime).data.keys()].sort());
  def("checkpoint_delete", (args, ctx) => {
    const c = load(ctx.runtime);
    const data = new Map(c.data);
    data.delete(key(args));
    save(c, data);
    return null;
  });
  def("checkpoint_clear", (_args, ctx) => {
    const c = load(ctx.runtime);
    try {
      rmSync(c.file, { force: true });
    } catch (e) {
      throw HarnError.runtime(`checkpoint clear error: ${c.file}: ${osErrorText(e)}`);
    }
    c.data = new Map();
    return null;
  });
});
