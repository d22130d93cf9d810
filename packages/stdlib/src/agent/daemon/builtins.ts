/**
 * `daemon_spawn`, `daemon_trigger`, `daemon_snapshot`, `daemon_stop` and
 * `daemon_resume` (spec/agents.md §4.3; error texts §6.4).
 *
 * [extension] `daemon_resume(path, options?)`: the metadata stores the
 * loop options as data, so closures (tool handlers, callbacks) cannot be
 * resumed from disk; the optional dict supplies them (and may override any
 * other loop option).
 */
import { DAEMON_JOURNAL } from "./journal";
import { mkdir, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { display, HarnError, HDict, type CallContext, type Value } from "@harn/vm";
import { osErrorText } from "../../core/oserror";
import { fromJson, toJson } from "../json";
import { uuidV7 } from "../../core/encoding";
import { num } from "../llm/options";
import { Daemon, SETTLE_MS, type DaemonIdentity } from "./daemon";
import { DIR_MODE, fileError, ioDetail, readStateFile } from "./durable";
import { DEFAULT_QUEUE_CAPACITY, META_FILE, parseMeta, parseSnapshot, SNAPSHOT_FILE, type Snapshot } from "./files";
import { RootLock, type LockOwner } from "./lock";
import { daemonRegistry } from "./registry";
import { builtinModule } from "../../registry/define";

/** Config keys that are not agent-loop options (§4.3). */
const NOT_LOOP_OPTIONS = ["name", "prompt", "task", "system", "options", "event_queue_capacity", "queue_capacity", "state_dir", "resume_path"];

function text(v: Value): string | null {
  if (v === null) return null;
  const s = typeof v === "string" ? v : display(v);
  return s.trim() === "" ? null : s;
}

function lockedBy(owner: LockOwner | null): string {
  return owner && owner.pid > 0 ? ` (locked by process ${owner.pid})` : " (locked by another process)";
}

/** The loop options: the config (or its `options` dict) minus the daemon's
 * own keys, with daemon mode forced on. */
function loopOptions(source: HDict, extra: HDict | null, sessionId: string, root: string): HDict {
  const m = new Map(source.map);
  for (const k of NOT_LOOP_OPTIONS) m.delete(k);
  if (extra) for (const k of extra.keys()) m.set(k, extra.get(k));
  m.set("daemon", true);
  m.set("persistent", false);
  m.set("session_id", sessionId);
  m.set("persist_path", join(root, SNAPSHOT_FILE));
  m.delete("resume_path");
  return new HDict(m);
}

async function daemonSpawn(args: Value[], ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  const config = args[0] ?? null;
  if (!(config instanceof HDict)) throw HarnError.runtime("daemon_spawn: expected a config dict");
  const prompt = text(config.get("task")) ?? text(config.get("prompt"));
  if (prompt === null) throw HarnError.runtime("daemon_spawn: config must include `task` or `prompt`");
  const given = text(config.get("persist_path")) ?? text(config.get("state_dir"));
  if (given === null) throw HarnError.runtime("daemon_spawn: config must include `persist_path` or `state_dir`");
  const root = resolve(rt.cwd, given);
  const registry = daemonRegistry(rt);
  const busy = `daemon_spawn: a daemon is already running for '${root}'`;
  if (registry.runningFor(root)) throw HarnError.runtime(busy);
  await registry.released(root);
  try {
    await mkdir(root, { recursive: true, mode: DIR_MODE });
  } catch (e) {
    throw fileError("meta", "mkdir", ioDetail(root, e));
  }
  const locked = RootLock.acquire(root);
  if (!locked.ok) throw HarnError.runtime(busy + lockedBy(locked.owner));
  let daemon: Daemon;
  try {
    const id = `daemon_${uuidV7(rt)}`;
    const session = text(config.get("session_id")) ?? `daemon_session_${uuidV7(rt)}`;
    const cap = num(config.get("event_queue_capacity") ?? config.get("queue_capacity"));
    const identity: DaemonIdentity = {
      id,
      name: text(config.get("name")) ?? id,
      prompt,
      system: text(config.get("system")),
      sessionId: session,
      capacity: cap !== undefined && Number.isInteger(cap) && cap > 0 ? cap : DEFAULT_QUEUE_CAPACITY,
      root,
    };
    const nested = config.get("options");
    const options = loopOptions(nested instanceof HDict ? nested : config, null, session, root);
    // A snapshot of an earlier daemon in this root must not be resumed
    // with this daemon's metadata: remove it before the metadata exists.
    try {
      await unlink(join(root, SNAPSHOT_FILE));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw fileError("snapshot", "write", ioDetail(join(root, SNAPSHOT_FILE), e));
    }
    daemon = new Daemon(identity, options, { pending: [], nextSeq: 1, snapshot: null }, locked.lock, rt.clock, rt.slot(DAEMON_JOURNAL));
    await daemon.persistMeta();
  } catch (e) {
    locked.lock.release();
    throw e;
  }
  registry.daemons.set(daemon.id, daemon);
  daemon.start(ctx, false);
  await daemon.waitForSnapshot(SETTLE_MS);
  return daemon.summary();
}

async function daemonTrigger(args: Value[], ctx: CallContext): Promise<Value> {
  if (args[0] === undefined || args[0] === null) throw HarnError.runtime("daemon_trigger: missing daemon handle");
  if (args[1] === undefined || args[1] === null) throw HarnError.runtime("daemon_trigger: missing event payload");
  const daemon = daemonRegistry(ctx.runtime).resolve("daemon_trigger", args[0]);
  await daemon.trigger(toJson(args[1]));
  return daemon.summary();
}

async function daemonStop(args: Value[], ctx: CallContext): Promise<Value> {
  const daemon = daemonRegistry(ctx.runtime).resolve("daemon_stop", args[0]);
  await daemon.stop();
  return daemon.summary();
}

async function daemonResume(args: Value[], ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  const given = args[0] ?? null;
  if (typeof given !== "string" || given === "") throw HarnError.runtime("daemon_resume: `path` must be a non-empty string");
  const overrides = args[1] instanceof HDict ? args[1] : null;
  const root = resolve(rt.cwd, given);
  const snapshotPath = join(root, SNAPSHOT_FILE);
  const metaPath = join(root, META_FILE);
  const registry = daemonRegistry(rt);
  const busy = `daemon_resume: daemon '${given}' is already running`;
  if (registry.runningFor(root)) throw HarnError.runtime(busy);
  await registry.released(root);
  // Lock before reading: the state read must be the state this process
  // then owns, not one another process is still changing.
  let locked;
  try {
    locked = RootLock.acquire(root);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw fileError("snapshot", "read", ioDetail(snapshotPath, e));
    throw HarnError.runtime(`daemon_resume: cannot lock '${given}': ${osErrorText(e)}`);
  }
  if (!locked.ok) throw HarnError.runtime(busy + lockedBy(locked.owner));
  let daemon: Daemon;
  let snapshot: Snapshot | null;
  try {
    const snapText = await readStateFile(snapshotPath, "snapshot");
    const metaText = await readStateFile(metaPath, "meta");
    // A daemon whose spawn was cut short before its first snapshot resumes
    // from its task; a root without metadata is not a daemon at all.
    if (snapText === null && metaText === null) throw fileError("snapshot", "read", ioDetail(snapshotPath, { code: "ENOENT" }));
    snapshot = snapText === null ? null : parseSnapshot(snapText, snapshotPath);
    if (metaText === null) throw fileError("meta", "read", ioDetail(metaPath, { code: "ENOENT" }));
    const meta = parseMeta(metaText, metaPath);
    if (meta === null) throw HarnError.runtime(`daemon_resume: metadata at '${metaPath}' is not a dict`);
    const id = meta.id || `daemon_${uuidV7(rt)}`;
    const other = registry.daemons.get(id);
    if (other?.running) throw HarnError.runtime(`daemon_resume: daemon '${id}' is already running from '${other.identity.root}'`);
    const session = meta.session_id || `daemon_session_${uuidV7(rt)}`;
    const identity: DaemonIdentity = {
      id,
      name: meta.name || id,
      prompt: meta.prompt,
      system: meta.system,
      sessionId: session,
      capacity: meta.event_queue_capacity,
      root,
    };
    const stored = fromJson(meta.options);
    const options = loopOptions(stored instanceof HDict ? stored : HDict.empty(), overrides, session, root);
    // The in-flight event of the stopped or crashed run goes first (§4.5).
    const pending = meta.inflight_event ? [meta.inflight_event, ...meta.pending_events] : meta.pending_events;
    const saved = snapshot === null ? null : { text: snapText!, savedAt: snapshot.saved_at, state: snapshot.daemon_state, totalIterations: snapshot.total_iterations };
    daemon = new Daemon(identity, options, { pending, nextSeq: meta.next_event_seq, snapshot: saved }, locked.lock, rt.clock, rt.slot(DAEMON_JOURNAL));
    // Marked idle so the first event is handed over before the loop starts
    // and its first preflight sees it.
    daemon.inbox.idle = true;
    daemon.deliver();
    await daemon.persistMeta();
  } catch (e) {
    locked.lock.release();
    throw e;
  }
  registry.daemons.set(daemon.id, daemon);
  daemon.start(ctx, snapshot !== null);
  await daemon.waitForSnapshot(SETTLE_MS);
  return daemon.summary();
}

export const DAEMONS_BUILTINS = builtinModule("agent/daemon/builtins", (def) => {
  def("daemon_spawn", daemonSpawn);
  def("daemon_trigger", daemonTrigger);
  def("daemon_snapshot", (args, ctx) => daemonRegistry(ctx.runtime).resolve("daemon_snapshot", args[0]).snapshotDict());
  def("daemon_stop", daemonStop);
  def("daemon_resume", daemonResume);
});
