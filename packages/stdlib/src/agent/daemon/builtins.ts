/**
 * `daemon_spawn`, `daemon_trigger`, `daemon_snapshot`, `daemon_stop`,
 * `daemon_resume` (spec/agents.md §4.3; error texts §6.4) and
 * [extension] `daemon_wait`.
 *
 * Extensions (docs/daemons.md):
 * - `daemon_resume(path, options?)`: the optional dict overrides loop
 *   options; tools whose handlers could not be stored are found again by
 *   name among the resuming script's `tool` declarations.
 * - `daemon_spawn` refuses a root whose daemon still has queued events
 *   unless `on_existing` says `"resume"` or `"replace"`.
 * - `daemon_snapshot(path)` reads a daemon's state from its root.
 * - `daemon_wait(handle, {until, timeout_ms})`.
 * - A PostgreSQL store (`store`, `HARN_DAEMON_STORE`, `daemon_connect`):
 *   pg/spawn.ts.
 */
import { DAEMON_JOURNAL } from "./journal";
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { declaredTools, display, HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { osErrorText } from "../../core/oserror";
import { uuidV7 } from "../../core/encoding";
import { num } from "../llm/options";
import { durationMs } from "../loop/options";
import { loopOptions, maxIterationsOf, payloadJson, restoreTools, storedOptions } from "./config";
import { Daemon, queueFields, SETTLE_MS, type DaemonIdentity } from "./daemon";
import { DIR_MODE, fileError, ioDetail } from "./durable";
import { DEFAULT_QUEUE_CAPACITY, defaultSnapshot, META_FILE, SNAPSHOT_FILE } from "./files";
import { FileStore, JOURNAL_FILE, readRoot, type RootState } from "./file-store";
import { RootLock, type LockOwner } from "./lock";
import { daemonRegistry } from "./registry";
import { daemonConnect, spawnShared, storeOf } from "./pg/spawn";
import { builtinModule } from "../../registry/define";
import { snapshotValue } from "./values";
import { fromJson } from "../../core/json";
import { makeDirs } from "../../core/make-dirs";

function text(v: Value): string | null {
  if (v === null) return null;
  const s = typeof v === "string" ? v : display(v);
  return s.trim() === "" ? null : s;
}

function lockedBy(owner: LockOwner | null): string {
  return owner && owner.pid > 0 ? ` (locked by process ${owner.pid})` : " (locked by another process)";
}

/** A root holds a daemon's state (at rest or running). */
function holdsDaemon(root: string): boolean {
  return [JOURNAL_FILE, META_FILE, SNAPSHOT_FILE].some((f) => existsSync(join(root, f)));
}

async function daemonSpawn(args: Value[], ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  const config = args[0] ?? null;
  if (!(config instanceof HDict)) throw HarnError.runtime("daemon_spawn: expected a config dict");
  const prompt = text(config.get("task")) ?? text(config.get("prompt"));
  if (prompt === null) throw HarnError.runtime("daemon_spawn: config must include `task` or `prompt`");
  const given = text(config.get("persist_path")) ?? text(config.get("state_dir"));
  const onExisting = config.get("on_existing");
  if (onExisting !== null && onExisting !== "resume" && onExisting !== "replace") {
    throw HarnError.runtime('daemon_spawn: `on_existing` must be "resume" or "replace"');
  }
  const nested = config.get("options");
  const source = nested instanceof HDict ? nested : config;
  const cap = num(config.get("event_queue_capacity") ?? config.get("queue_capacity"));
  const capacity = cap !== undefined && Number.isInteger(cap) && cap > 0 ? cap : DEFAULT_QUEUE_CAPACITY;
  const url = storeOf(config, rt.env, given !== null);
  if (url !== null) {
    return spawnShared(ctx, {
      url,
      name: text(config.get("name")),
      prompt,
      system: text(config.get("system")),
      sessionId: text(config.get("session_id")),
      capacity,
      onExisting,
      source,
      leaseMs: config.get("lease_ms"),
    });
  }
  if (given === null) throw HarnError.runtime("daemon_spawn: config must include `persist_path` or `state_dir`");
  const root = resolve(rt.cwd, given);
  const registry = daemonRegistry(rt);
  const busy = `daemon_spawn: a daemon is already running for '${root}'`;
  if (registry.runningFor(root)) throw HarnError.runtime(busy);
  await registry.released(root);
  try {
    await makeDirs(root, DIR_MODE);
  } catch (e) {
    throw fileError("meta", "mkdir", ioDetail(root, e));
  }
  const locked = RootLock.acquire(root);
  if (!locked.ok) throw HarnError.runtime(busy + lockedBy(locked.owner));
  let daemon: Daemon;
  try {
    // An earlier daemon's queue is never dropped without being asked to.
    const existing = onExisting !== "replace" && holdsDaemon(root) ? await readRoot(root, "daemon_spawn") : null;
    if (existing !== null && onExisting === "resume") {
      return await resumeFrom(ctx, root, locked.lock, existing, source);
    }
    const queued = existing === null ? 0 : existing.meta.pending_events.length + (existing.meta.inflight_event ? 1 : 0);
    if (queued > 0) {
      const events = queued === 1 ? "1 pending event" : `${queued} pending events`;
      throw HarnError.runtime(
        `daemon_spawn: '${root}' holds daemon '${existing!.meta.name || existing!.meta.id}' with ${events}; resume it with daemon_resume(${JSON.stringify(root)}), or pass on_existing: "resume" (keep them) or "replace" (discard them)`,
      );
    }
    const id = `daemon_${uuidV7(rt)}`;
    const session = text(config.get("session_id")) ?? `daemon_session_${uuidV7(rt)}`;
    const options = loopOptions(source, null, session, root);
    const identity: DaemonIdentity = {
      id,
      name: text(config.get("name")) ?? id,
      prompt,
      system: text(config.get("system")),
      sessionId: session,
      capacity,
      root,
      storedOptions: storedOptions(options),
      maxIterations: maxIterationsOf(options),
    };
    const record = Daemon.initialRecord(identity);
    const store = await FileStore.open(root, record, true);
    daemon = new Daemon(identity, options, { pending: [], nextSeq: 1, snapshot: null }, store, locked.lock, rt, rt.slot(DAEMON_JOURNAL));
  } catch (e) {
    locked.lock.release();
    throw e;
  }
  registry.daemons.set(daemon.id, daemon);
  daemon.start(ctx);
  await daemon.waitForSnapshot(SETTLE_MS);
  return daemon.summary();
}

async function daemonResume(args: Value[], ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  const given = args[0] ?? null;
  if (typeof given !== "string" || given === "") throw HarnError.runtime("daemon_resume: `path` must be a non-empty string");
  const overrides = args[1] instanceof HDict ? args[1] : null;
  const root = resolve(rt.cwd, given);
  if (isFile(root)) {
    throw HarnError.runtime(`daemon_resume: \`path\` is the daemon's folder (the persist_path given to daemon_spawn), not a file in it: pass '${dirname(given) || "."}', not '${basename(given)}'`);
  }
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
    if (code === "ENOENT" || code === "ENOTDIR") throw fileError("snapshot", "read", ioDetail(join(root, SNAPSHOT_FILE), e));
    throw HarnError.runtime(`daemon_resume: cannot lock '${given}': ${osErrorText(e)}`);
  }
  if (!locked.ok) throw HarnError.runtime(busy + lockedBy(locked.owner));
  try {
    return await resumeFrom(ctx, root, locked.lock, await readRoot(root, "daemon_resume"), overrides);
  } catch (e) {
    locked.lock.release();
    throw e;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Run the daemon whose state was read from `root` (locked by `lock`,
 * which the caller releases if this throws). */
async function resumeFrom(ctx: CallContext, root: string, lock: RootLock, state: RootState, overrides: HDict | null): Promise<Value> {
  const rt = ctx.runtime;
  const registry = daemonRegistry(rt);
  const meta = state.meta;
  const id = meta.id || `daemon_${uuidV7(rt)}`;
  const other = registry.daemons.get(id);
  if (other?.running) throw HarnError.runtime(`daemon_resume: daemon '${id}' is already running from '${other.place}'`);
  const session = meta.session_id || `daemon_session_${uuidV7(rt)}`;
  const stored = fromJson(meta.options);
  let options = loopOptions(stored instanceof HDict ? stored : HDict.empty(), overrides, session, root);
  const name = meta.name || id;
  if (!overrides?.has("tools") && options.get("tools") !== null) {
    const { tools, missing } = restoreTools(options.get("tools"), declaredTools(rt));
    if (missing.length > 0) {
      const t = missing[0]!;
      throw HarnError.runtime(
        `daemon_resume: daemon '${name}' uses tool '${t}', which this script does not declare; declare it (tool ${t}(…) { … }) or pass it: daemon_resume(path, {tools: …})`,
      );
    }
    options = options.with("tools", tools);
  }
  const identity: DaemonIdentity = {
    id,
    name,
    prompt: meta.prompt,
    system: meta.system,
    sessionId: session,
    capacity: meta.event_queue_capacity,
    root,
    storedOptions: storedOptions(options),
    maxIterations: maxIterationsOf(options),
  };
  // The in-flight event of the stopped or crashed run goes first (§4.5).
  const pending = meta.inflight_event ? [meta.inflight_event, ...meta.pending_events] : meta.pending_events;
  const store = await FileStore.open(root, { meta: { ...meta, id, pending_events: pending, inflight_event: null }, snapshot: state.snapshot }, false);
  const daemon = new Daemon(identity, options, { pending, nextSeq: meta.next_event_seq, snapshot: state.snapshot }, store, lock, rt, rt.slot(DAEMON_JOURNAL));
  // Marked idle so the first event is handed over before the loop starts
  // and its first preflight sees it.
  daemon.inbox.idle = true;
  daemon.deliver();
  registry.daemons.set(daemon.id, daemon);
  daemon.start(ctx);
  await daemon.waitForSnapshot(SETTLE_MS);
  return daemon.summary();
}

async function daemonTrigger(args: Value[], ctx: CallContext): Promise<Value> {
  if (args[0] === undefined || args[0] === null) throw HarnError.runtime("daemon_trigger: missing daemon handle");
  if (args[1] === undefined || args[1] === null) throw HarnError.runtime("daemon_trigger: missing event payload");
  const daemon = daemonRegistry(ctx.runtime).resolve("daemon_trigger", args[0]);
  await daemon.trigger(payloadJson(args[1]));
  return await daemon.summary();
}

async function daemonStop(args: Value[], ctx: CallContext): Promise<Value> {
  const daemon = daemonRegistry(ctx.runtime).resolve("daemon_stop", args[0]);
  await daemon.stop();
  return await daemon.summary();
}

/** A string that names a folder rather than a daemon id. */
function isPathArg(rt: Runtime, arg: Value | undefined): arg is string {
  if (typeof arg !== "string" || daemonRegistry(rt).daemons.has(arg)) return false;
  return /[/\\]/.test(arg) || arg.startsWith(".") || existsSync(resolve(rt.cwd, arg));
}

async function daemonSnapshot(args: Value[], ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  const registry = daemonRegistry(rt);
  const arg = args[0];
  if (!isPathArg(rt, arg)) return await registry.resolve("daemon_snapshot", arg).snapshotDict();
  // Read from the root even when this process runs the daemon: what a
  // crash would leave is what the path form shows.
  const root = resolve(rt.cwd, arg);
  const state = await readRoot(root, "daemon_snapshot");
  const options = fromJson(state.meta.options);
  const base = snapshotValue(state.snapshot ?? defaultSnapshot(), new WeakMap());
  return queueFields(base, {
    pending: state.meta.inflight_event ? [state.meta.inflight_event, ...state.meta.pending_events] : state.meta.pending_events,
    inflight: null,
    capacity: state.meta.event_queue_capacity,
    maxIterations: maxIterationsOf(options instanceof HDict ? options : HDict.empty()),
    stopReason: state.snapshot?.stop_reason ?? null,
  });
}

async function daemonWait(args: Value[], ctx: CallContext): Promise<Value> {
  const daemon = daemonRegistry(ctx.runtime).resolve("daemon_wait", args[0]);
  const opts = args[1] ?? null;
  if (opts !== null && !(opts instanceof HDict)) throw HarnError.runtime("daemon_wait: options must be a dict");
  const until = opts?.get("until") ?? "drained";
  if (until !== "idle" && until !== "drained" && until !== "stopped") throw HarnError.runtime('daemon_wait: `until` must be "idle", "drained" or "stopped"');
  const timeout = opts?.get("timeout_ms") ?? null;
  const ms = timeout === null ? null : durationMs(timeout);
  if (timeout !== null && ms === undefined) throw HarnError.runtime("daemon_wait: `timeout_ms` must be a duration or an int");
  const reached = await daemon.waitUntil(until, ms ?? null, ctx.signal);
  return (await daemon.summary()).with("timed_out", !reached);
}

export const DAEMONS_BUILTINS = builtinModule("agent/daemon/builtins", (def) => {
  def("daemon_spawn", daemonSpawn);
  def("daemon_trigger", daemonTrigger);
  def("daemon_snapshot", daemonSnapshot);
  def("daemon_stop", daemonStop);
  def("daemon_resume", daemonResume);
  def("daemon_wait", daemonWait);
  def("daemon_connect", daemonConnect);
});
