/**
 * The filesystem backend of std/agent_state (spec/workflows.md §5.4): the
 * reference's `__agent_state_*` builtins, which the Harn module wraps.
 * Values live in `<root>/<session_id>/<key>`, written atomically (a temp
 * file renamed into place); who wrote each key last is kept beside them in
 * `.agent_state_meta/<key>.json`, which is what makes a second writer of
 * a key visible to the `conflict_policy`, across processes too.
 */
import { closeSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { display, HDict, HarnError, type CallContext, type Runtime, type Value } from "@harn/vm";
import { fromJson, parseJson, stringifyJson, toJson } from "../core/json";
import { osErrorText } from "../core/oserror";
import { resolvePath } from "../core/paths";
import { rfc3339 } from "../core/wait";
import { builtinModule } from "../registry/define";
import { newId } from "./artifacts/record";
import { normalizeHandoff } from "./artifacts/handoff";
import { makeDirsSync } from "../core/make-dirs";

const HANDOFF_KEY = "__handoff.json";
const META_DIR = ".agent_state_meta";
const POLICIES = new Set(["ignore", "warn", "error"]);

const err = (msg: string): HarnError => HarnError.runtime(msg);
const str = (v: Value | undefined): string | null => (typeof v === "string" && v !== "" ? v : null);
const opt = (o: Value | undefined, k: string): Value => (o instanceof HDict ? o.get(k) : null);

/** A session id or key component: no separators to climb out with. */
function checkSession(builtin: string, id: string): string {
  if (id === "." || id === ".." || id.includes("/") || id.includes("\\") || id.includes("\0")) throw err(`${builtin}: invalid session_id '${id}'`);
  return id;
}

function checkKey(builtin: string, key: Value | undefined): string {
  if (typeof key !== "string" || key === "") throw err(`${builtin}: key must be a non-empty string`);
  const parts = key.split("/");
  if (isAbsolute(key) || key.includes("\\") || key.includes("\0") || parts.some((p) => p === ".." || p === "." || p === "") || parts[0] === META_DIR) {
    throw err(`${builtin}: invalid key '${key}' (keys are relative paths without '..')`);
  }
  return key;
}

function makeHandle(rt: Runtime, builtin: string, root: string, sessionId: string, options: Value | undefined): HDict {
  const policy = opt(options, "conflict_policy") ?? opt(options, "two_writer") ?? "ignore";
  if (typeof policy !== "string" || !POLICIES.has(policy)) {
    throw err(`${builtin}: conflict_policy must be 'ignore', 'warn' or 'error', got '${typeof policy === "string" ? policy : display(policy)}'`);
  }
  return HDict.of({
    _type: "state_handle",
    backend: "filesystem",
    root,
    session_id: sessionId,
    handoff_key: HANDOFF_KEY,
    conflict_policy: policy,
    writer: HDict.of({
      writer_id: str(opt(options, "writer_id")) ?? "default",
      stage_id: str(opt(options, "stage_id")),
      session_id: sessionId,
      worker_id: str(opt(options, "worker_id")),
    }),
  });
}

interface Handle {
  dir: string;
  policy: string;
  writer: HDict;
  handle: HDict;
}

function handleArg(ctx: CallContext, builtin: string, v: Value | undefined): Handle {
  if (!(v instanceof HDict) || v.get("_type") !== "state_handle") throw err(`${builtin}: expected a state handle from agent_state_init or agent_state_resume`);
  const root = str(v.get("root"));
  const session = str(v.get("session_id"));
  if (root === null || session === null) throw err(`${builtin}: expected a state handle from agent_state_init or agent_state_resume`);
  const writer = v.get("writer");
  return {
    dir: join(resolvePath(ctx.runtime, root), checkSession(builtin, session)),
    policy: typeof v.get("conflict_policy") === "string" ? (v.get("conflict_policy") as string) : "ignore",
    writer: writer instanceof HDict ? writer : HDict.of({ writer_id: "default" }),
    handle: v,
  };
}

function atomicWrite(builtin: string, file: string, text: string): void {
  try {
    makeDirsSync(dirname(file));
    const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (e) {
    throw err(`${builtin}: failed to write ${file}: ${osErrorText(e)}`);
  }
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

const metaFile = (h: Handle, key: string): string => join(h.dir, META_DIR, `${key}.json`);
const writerId = (w: Value): string | null => (w instanceof HDict ? str(w.get("writer_id")) : null);

/** Applies the conflict policy when `key` was last written by another writer. */
function checkWriter(ctx: CallContext, h: Handle, key: string): void {
  const text = readOrNull(metaFile(h, key));
  if (text === null || h.policy === "ignore") return;
  let prev: string | null = null;
  try {
    const meta = parseJson(text);
    prev = meta instanceof HDict ? writerId(meta.get("writer")) : null;
  } catch {
    prev = null;
  }
  const current = writerId(h.writer) ?? "default";
  if (prev === null || prev === current) return;
  const msg = `agent_state.write: key '${key}' was previously written by '${prev}' and is now being written by '${current}'`;
  if (h.policy === "error") throw err(msg);
  ctx.runtime.stderr.write(`warning: ${msg}\n`);
}

/** A lock older than this was left by a process that died holding it. */
const STALE_LOCK_MS = 30_000;

/**
 * Runs `body` holding the key's lock file (created exclusively), so that
 * the writer check, the value and its meta file change together: two
 * writers racing on one key are serialised, and the second sees the
 * first as the key's last writer.
 */
function withKeyLock<T>(builtin: string, h: Handle, key: string, body: () => T): T {
  const lock = `${metaFile(h, key)}.lock`;
  makeDirsSync(dirname(lock));
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; ; attempt++) {
    try {
      closeSync(openSync(lock, "wx"));
      break;
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST") throw err(`${builtin}: failed to lock ${key}: ${osErrorText(e)}`);
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { force: true });
      } catch {
        // released meanwhile
      }
      Atomics.wait(pause, 0, 0, Math.min(50, 1 + attempt));
    }
  }
  try {
    return body();
  } finally {
    rmSync(lock, { force: true });
  }
}

function write(ctx: CallContext, builtin: string, h: Handle, key: string, content: string): void {
  withKeyLock(builtin, h, key, () => {
    checkWriter(ctx, h, key);
    atomicWrite(builtin, join(h.dir, key), content);
    const meta = HDict.of({ key, writer: h.writer, written_at: rfc3339(ctx.runtime) });
    atomicWrite(builtin, metaFile(h, key), stringifyJson(meta));
  });
}

function listKeys(dir: string, rel: string, out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(rel === "" ? dir : join(dir, rel));
  } catch {
    return;
  }
  for (const n of names) {
    if (rel === "" && n === META_DIR) continue;
    if (n.includes(".tmp-")) continue;
    const r = rel === "" ? n : `${rel}/${n}`;
    let isDir = false;
    try {
      isDir = statSync(join(dir, r)).isDirectory();
    } catch {
      continue;
    }
    if (isDir) listKeys(dir, r, out);
    else out.push(r);
  }
}

/** Whether a handoff summary is a handoff (a handoff artifact or a dict with handoff fields) rather than free text. */
function looksLikeHandoff(v: Value): boolean {
  if (!(v instanceof HDict)) return false;
  if (v.get("_type") === "artifact") return v.get("kind") === "handoff";
  return ["target_persona_or_human", "target", "source_persona", "task"].some((k) => v.get(k) !== null);
}

export const AGENT_STATE_BUILTINS = builtinModule("workflow/agent_state", (def) => {
  def("__agent_state_init", (args, ctx) => {
    const root = args[0];
    if (typeof root !== "string" || root === "") throw err("__agent_state_init: root must be a non-empty string");
    const session = str(opt(args[1], "session_id")) ?? newId(ctx.runtime, "session");
    const h = makeHandle(ctx.runtime, "__agent_state_init", root, checkSession("__agent_state_init", session), args[1]);
    try {
      makeDirsSync(join(resolvePath(ctx.runtime, root), session));
    } catch (e) {
      throw err(`__agent_state_init: failed to create ${join(root, session)}: ${osErrorText(e)}`);
    }
    return h;
  });
  def("__agent_state_resume", (args, ctx) => {
    const root = args[0];
    const session = args[1];
    if (typeof root !== "string" || root === "") throw err("__agent_state_resume: root must be a non-empty string");
    if (typeof session !== "string" || session === "") throw err("__agent_state_resume: session_id must be a non-empty string");
    checkSession("__agent_state_resume", session);
    let exists = false;
    try {
      exists = statSync(join(resolvePath(ctx.runtime, root), session)).isDirectory();
    } catch {
      exists = false;
    }
    if (!exists) throw err(`__agent_state_resume: session '${session}' does not exist under ${root}`);
    return makeHandle(ctx.runtime, "__agent_state_resume", root, session, args[2]);
  });
  def("__agent_state_write", (args, ctx) => {
    const h = handleArg(ctx, "__agent_state_write", args[0]);
    const key = checkKey("__agent_state_write", args[1]);
    const content = args[2] ?? null;
    write(ctx, "__agent_state_write", h, key, typeof content === "string" ? content : display(content));
    return null;
  });
  def("__agent_state_read", (args, ctx) => {
    const h = handleArg(ctx, "__agent_state_read", args[0]);
    return readOrNull(join(h.dir, checkKey("__agent_state_read", args[1])));
  });
  def("__agent_state_delete", (args, ctx) => {
    const h = handleArg(ctx, "__agent_state_delete", args[0]);
    const key = checkKey("__agent_state_delete", args[1]);
    const existed = readOrNull(join(h.dir, key)) !== null;
    rmSync(join(h.dir, key), { force: true });
    rmSync(metaFile(h, key), { force: true });
    return existed;
  });
  def("__agent_state_list", (args, ctx) => {
    const h = handleArg(ctx, "__agent_state_list", args[0]);
    const out: string[] = [];
    listKeys(h.dir, "", out);
    return out.sort();
  });
  def("__agent_state_handoff", (args, ctx) => {
    const h = handleArg(ctx, "__agent_state_handoff", args[0]);
    const summary = args[1] ?? null;
    if (summary === null) throw err("__agent_state_handoff: `summary` is required");
    const record = HDict.of({
      _type: "agent_state_handoff",
      version: 1,
      session_id: h.handle.get("session_id"),
      root: h.handle.get("root"),
      key: HANDOFF_KEY,
      summary: fromJson(toJson(summary)),
      handoff: looksLikeHandoff(summary) ? normalizeHandoff(ctx.runtime, summary) : null,
      writer: h.writer,
      written_at: rfc3339(ctx.runtime),
    });
    write(ctx, "__agent_state_handoff", h, HANDOFF_KEY, stringifyJson(record) + "\n");
    return record;
  });
});
