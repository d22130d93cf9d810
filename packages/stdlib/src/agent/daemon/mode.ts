/**
 * Daemon mode of `agent_loop` (spec/agents.md §4.1): what replaces "stop"
 * on a text-only turn of a non-persistent `daemon: true` loop. The loop
 * calls three hooks — `preflight` (take inbox messages), `idle` (snapshot,
 * then wait for a wake reason) and `finalize` (final status and snapshot);
 * everything else lives here.
 *
 * Idle cycle: persist an idle snapshot; with no wake source stop `idle`;
 * otherwise tick: sleep `wake_interval_ms` (else the backoff 100 → 500 →
 * 1000 → 2000 ms) and collect the first wake reason of message, resume,
 * feedback [extension], watch, timer. A wake resets the nudge counter and
 * the backoff and continues the loop; `idle_watchdog_attempts` consecutive
 * ticks without a reason stop it with `watchdog`.
 *
 * The sleep ends early when a wake source fires (an inbox delivery, a
 * feedback item for the session, an fs.watch event on a watched path), so
 * trigger-to-handling latency does not depend on the backoff. An early
 * wake that finds no reason (e.g. a spurious fs event) keeps sleeping
 * until the tick's deadline and does not count as a tick.
 */
import { watch as fsWatch, promises as fsp, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { display, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { longRunState } from "../../longrun/index";
import { num } from "../llm/options";
import { durationMs } from "../loop/options";
import { newProgress, type LoopProgress, type LoopStatus } from "../loop/result";
import { feedbackMessage, messagesFromJson, userMessage, type Msg } from "../loop/transcript";
import { DirectoryWriter, fileError, ioDetail, readStateFile } from "./durable";
import { encodeState, nowRfc3339, parseSnapshot, type Snapshot } from "./files";
import type { DaemonInbox } from "./inbox";
import { type JsonObject } from "../../core/json";

/** The daemon builtins' side of a loop they run (see `Daemon`). */
export interface DaemonHost {
  readonly inbox: DaemonInbox;
  /** The snapshot a resumed daemon continues from (its store's state, not
   * a file), or null to start from the task. */
  readonly resumeSnapshot: Snapshot | null;
  /** Commit the loop's snapshot (idle boundary or final); resolves once
   * it is durable. The snapshot shares the loop's lists: the host copies
   * what it keeps before it waits. `textAppended`: the texts appended to
   * `total_text` since the last commit, in order. */
  commitSnapshot(snapshot: Snapshot, textAppended: string[]): Promise<void>;
  /** The loop waits at an idle boundary: the moment to deliver an event. */
  becameIdle(): void;
}

/** What the idle cycle needs of the loop (the `AgentLoop`). */
export interface DaemonLoopView {
  readonly rt: Runtime;
  readonly ctx: CallContext;
  readonly sessionId: string;
  readonly messages: Msg[];
  readonly progress: LoopProgress;
  readonly settings: { readonly maxIterations: number };
  /** `consolidate_on_idle` (§2.14): compact before the idle snapshot. */
  compactOnIdle?(): Promise<void>;
}

export interface DaemonSettings {
  /** Absolute snapshot path (`persist_path`, else `resume_path`), or null. */
  snapshotPath: string | null;
  resumePath: string | null;
  wakeIntervalMs: number | null;
  /** Watched paths as given (display, snapshot keys) and resolved. */
  watch: { given: string; path: string }[];
  watchdogAttempts: number | null;
}

export const INITIAL_BACKOFF_MS = 100;

/** 100 → 500 → 1000 → 2000 (§4.1). */
export function nextBackoff(ms: number): number {
  if (ms <= 100) return 500;
  if (ms <= 500) return 1000;
  return 2000;
}

export const TIMER_TEXT =
  "Daemon timer wake fired. Re-check for background work and only act when there is new information or a pending follow-up.";

export function watchText(paths: string[]): string {
  return `Daemon wake: watched paths changed: ${paths.join(", ")}. Re-check the task state and act only if something actually changed.`;
}

function pathOption(rt: Runtime, v: Value): string | null {
  if (v === null) return null;
  const s = typeof v === "string" ? v : display(v);
  return s === "" ? null : resolve(rt.cwd, s);
}

/** The daemon keys of the loop options; null unless daemon mode applies
 * (`daemon: true` and not `persistent`, §4.1). */
export function readDaemonSettings(rt: Runtime, options: HDict): DaemonSettings | null {
  if (options.get("daemon") !== true || options.get("persistent") === true) return null;
  const persist = pathOption(rt, options.get("persist_path"));
  const resumePath = pathOption(rt, options.get("resume_path"));
  const interval = durationMs(options.get("wake_interval_ms"));
  const rawWatch = options.get("watch_paths");
  const given = typeof rawWatch === "string" ? [rawWatch] : Array.isArray(rawWatch) ? rawWatch.filter((p): p is string => typeof p === "string") : [];
  const watchdog = num(options.get("idle_watchdog_attempts"));
  return {
    snapshotPath: persist ?? resumePath,
    resumePath,
    wakeIntervalMs: interval !== undefined && interval > 0 ? interval : null,
    watch: given.filter((g) => g !== "").map((g) => ({ given: g, path: resolve(rt.cwd, g) })),
    watchdogAttempts: watchdog !== undefined && watchdog >= 0 ? Math.floor(watchdog) : null,
  };
}

/** A watched path's stamp, 0 when it does not exist. A file's is its
 * mtime in nanoseconds (as a double, §4.1). [extension] A folder's covers
 * the whole tree below it: a hash of every entry's relative path, mtime
 * and size (and the folder's own mtime), so a change to any file inside
 * it, however deep, is a change of the folder (the reference compares the
 * folder's own mtime, which only moves when entries are added, removed or
 * renamed). */
async function stamp(path: string): Promise<number> {
  let st;
  try {
    st = await fsp.stat(path, { bigint: true });
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return Number(st.mtimeNs);
  let h = fnv(0, `${st.mtimeNs}`);
  const walk = async (dir: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return; // vanished or unreadable meanwhile: the next tick sees it
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const full = `${dir}/${e.name}`;
      const name = rel === "" ? e.name : `${rel}/${e.name}`;
      try {
        const s = await fsp.lstat(full, { bigint: true });
        h = fnv(h, `${name}\0${s.mtimeNs}\0${s.size}\0`);
        if (s.isDirectory()) await walk(full, name);
      } catch {
        // removed between the listing and the stat
      }
    }
  };
  await walk(path, "");
  // never 0 (that means "missing"), and exact as a double
  return h + 1;
}

/** FNV-1a in two 32-bit lanes over `text`'s UTF-16 units, continuing
 * from `seed`; a number below 2^52. */
function fnv(seed: number, text: string): number {
  let a = seed % 2 ** 26 | 0;
  let b = Math.floor(seed / 2 ** 26) | 0;
  a ^= 0x811c9dc5;
  b ^= 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (a >>> 15);
  }
  return (a >>> 6) + (b >>> 6) * 2 ** 26;
}

type WakeReason = "message" | "resume" | "feedback" | "watch" | "timer";

export class DaemonMode {
  /** `active`, `idle` or the final status. */
  state = "active";
  backoffMs = INITIAL_BACKOFF_MS;
  private stamps = new Map<string, number>();
  /** The paths the last watch check found changed. */
  private changed: string[] = [];
  private readonly writer: DirectoryWriter | null;
  /** Texts the loop appended to its total text since the last commit. */
  private appended: string[] = [];

  constructor(
    readonly settings: DaemonSettings,
    readonly host: DaemonHost | null,
  ) {
    const path = settings.snapshotPath;
    this.writer = path === null || host !== null ? null : new DirectoryWriter(dirname(path));
  }

  static from(ctx: CallContext, options: HDict, host: DaemonHost | null): DaemonMode | null {
    const settings = readDaemonSettings(ctx.runtime, options);
    return settings ? new DaemonMode(settings, host) : null;
  }

  /**
   * Before the first turn: restore a `resume_path` snapshot (messages,
   * texts, tool lists, iteration count, backoff, watch stamps, state) and
   * take the first watch stamps. Returns what the loop starts from, or
   * null for a fresh start.
   */
  async prepare(): Promise<{ messages: Msg[]; progress: LoopProgress } | null> {
    let restored: { messages: Msg[]; progress: LoopProgress } | null = null;
    let saved: { [path: string]: number } = {};
    const path = this.settings.resumePath;
    let snap: Snapshot | null = this.host?.resumeSnapshot ?? null;
    if (snap === null && path !== null && this.host === null) {
      const text = await readStateFile(path, "snapshot");
      if (text === null) throw fileError("snapshot", "read", ioDetail(path, { code: "ENOENT" }));
      snap = parseSnapshot(text, path);
    }
    if (snap !== null) {
      this.state = snap.daemon_state;
      this.backoffMs = snap.idle_backoff_ms || INITIAL_BACKOFF_MS;
      saved = snap.watch_state;
      restored = {
        messages: messagesFromJson(snap.visible_messages),
        progress: {
          ...newProgress(),
          iteration: snap.total_iterations,
          text: snap.total_text,
          lastText: snap.last_iteration_text,
          calls: snap.all_tools_used.slice(),
          rejected: snap.rejected_tools.slice(),
          summary: snap.transcript_summary,
        },
      };
    }
    for (const w of this.settings.watch) this.stamps.set(w.given, saved[w.given] ?? (await stamp(w.path)));
    return restored;
  }

  /** Turn preflight: inbox messages become plain user messages. */
  preflight(loop: DaemonLoopView): void {
    const inbox = this.host?.inbox;
    if (!inbox) return;
    inbox.idle = false;
    inbox.resumeRequested = false;
    for (const text of inbox.take()) loop.messages.push(userMessage(text));
  }

  /** The text-only branch: a status to stop with, or null to continue. */
  async idle(loop: DaemonLoopView): Promise<LoopStatus | null> {
    this.state = "idle";
    await loop.compactOnIdle?.();
    await this.persist(loop);
    const s = this.settings;
    if (this.host === null && s.wakeIntervalMs === null && s.watch.length === 0) return "idle";
    const inbox = this.host?.inbox;
    let nullTicks = 0;
    try {
      if (inbox) {
        inbox.idle = true;
        this.host!.becameIdle();
      }
      for (;;) {
        const deadline = loop.rt.clock.monotonic() + (s.wakeIntervalMs ?? this.backoffMs);
        let reason: WakeReason | null;
        for (;;) {
          const early = await this.sleepUntil(loop, deadline);
          reason = await this.wakeReason(loop, !early);
          if (reason !== null || !early) break;
        }
        if (reason !== null) {
          if (inbox) inbox.idle = false;
          // No turn left to serve the wake: stop before taking anything in,
          // so the final snapshot is from before the event (which stays in
          // flight and is replayed on resume), never half-way into it.
          if (loop.progress.iteration >= loop.settings.maxIterations) return "budget_exhausted";
          this.wake(loop, reason);
          return null;
        }
        nullTicks++;
        if (s.watchdogAttempts !== null && nullTicks >= s.watchdogAttempts) return "watchdog";
        this.backoffMs = nextBackoff(this.backoffMs);
      }
    } finally {
      if (inbox) inbox.idle = false;
    }
  }

  /** The first wake reason now, in priority order (§4.1); watch stamps are
   * only advanced when the watch source is consulted. */
  private async wakeReason(loop: DaemonLoopView, tick: boolean): Promise<WakeReason | null> {
    const inbox = this.host?.inbox;
    if (inbox && inbox.messages.length > 0) return "message";
    if (inbox && inbox.resumeRequested) return "resume";
    if (this.feedbackWaiting(loop)) return "feedback";
    if (this.settings.watch.length > 0) {
      this.changed = await this.changedPaths();
      if (this.changed.length > 0) return "watch";
    }
    if (tick && this.settings.wakeIntervalMs !== null) return "timer";
    return null;
  }

  private async changedPaths(): Promise<string[]> {
    const changed: string[] = [];
    for (const w of this.settings.watch) {
      const now = await stamp(w.path);
      const before = this.stamps.get(w.given) ?? 0;
      // Creation and deletion are not changes (§4.1).
      if (before !== 0 && now !== 0 && before !== now) changed.push(w.given);
      this.stamps.set(w.given, now);
    }
    return changed;
  }

  private feedbackWaiting(loop: DaemonLoopView): boolean {
    return longRunState(loop.rt)
      .pending()
      .some((it) => it.sessionId === loop.sessionId);
  }

  private wake(loop: DaemonLoopView, reason: WakeReason): void {
    const inbox = this.host?.inbox;
    if (inbox) {
      inbox.resumeRequested = false;
      for (const text of inbox.take()) loop.messages.push(userMessage(text));
    }
    if (reason === "watch") loop.messages.push(feedbackMessage("watch", watchText(this.changed)));
    else if (reason === "timer") loop.messages.push(feedbackMessage("timer", TIMER_TEXT));
    this.state = "active";
    this.backoffMs = INITIAL_BACKOFF_MS;
    loop.progress.consecutiveTextOnly = 0;
  }

  /**
   * Wait until `deadline` (resolves false) or until a wake source fires
   * (resolves true); rejects when the loop is cancelled. Everything it
   * arms — timer, listeners, fs watchers — is released when it settles, so
   * a stopped daemon leaves nothing that keeps Node alive.
   */
  private sleepUntil(loop: DaemonLoopView, deadline: number): Promise<boolean> {
    const signal = loop.ctx.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    const inbox = this.host?.inbox;
    if ((inbox && (inbox.messages.length > 0 || inbox.resumeRequested)) || this.feedbackWaiting(loop)) return Promise.resolve(true);
    return new Promise<boolean>((resolvePromise, reject) => {
      const releases: (() => void)[] = [];
      let settled = false;
      const settle = (early: boolean, error?: unknown) => {
        if (settled) return;
        settled = true;
        for (const r of releases) r();
        if (error !== undefined) reject(error);
        else resolvePromise(early);
      };
      releases.push(loop.rt.clock.timer(deadline - loop.rt.clock.monotonic(), () => settle(false)));
      const onAbort = () => settle(false, signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      releases.push(() => signal.removeEventListener("abort", onAbort));
      if (inbox) releases.push(inbox.onDelivery(() => settle(true)));
      const off = longRunState(loop.rt).onFeedback((item) => {
        if (item.sessionId === loop.sessionId) settle(true);
      });
      releases.push(() => void off());
      for (const w of this.settings.watch) {
        try {
          // A folder's whole tree (its stamp decides what counts).
          const recursive = statSync(w.path).isDirectory();
          const watcher = fsWatch(w.path, { persistent: false, recursive }, () => settle(true));
          watcher.on("error", () => undefined);
          releases.push(() => watcher.close());
        } catch {
          // a missing path has no watcher; its stamp is still polled per tick
        }
      }
    });
  }

  /** Final status (`done` reads `idle` for a daemon, §4.1 step 4) and the
   * final snapshot. */
  async finalize(loop: DaemonLoopView, status: LoopStatus): Promise<LoopStatus> {
    const final: LoopStatus = status === "done" ? "idle" : status;
    this.state = final;
    // A turn cut short by the host's Ctrl-C is not a boundary: the last
    // snapshot (from before the turn) stays the one on disk.
    if (final !== "interrupted") await this.persist(loop);
    return final;
  }

  /** `daemon_state` / `daemon_snapshot_path` of the result dict. */
  resultInfo(): { state: string; snapshotPath: string | null } {
    return { state: this.state, snapshotPath: this.settings.snapshotPath };
  }

  /** The §4.2 snapshot of the loop now. It shares the loop's message
   * list: encode it before the loop goes on. */
  snapshotOf(loop: DaemonLoopView): Snapshot {
    const p = loop.progress;
    const messages = loop.messages as JsonObject[];
    return {
      _type: "daemon_snapshot",
      saved_at: nowRfc3339(),
      daemon_state: this.state,
      visible_messages: messages,
      recorded_messages: messages,
      transcript_summary: p.summary ?? null,
      transcript_events: [],
      total_text: p.text,
      last_iteration_text: p.lastText,
      all_tools_used: p.calls,
      rejected_tools: p.rejected,
      deferred_user_messages: [],
      total_iterations: p.iteration,
      idle_backoff_ms: this.backoffMs,
      last_run_exit_code: null,
      watch_state: Object.fromEntries(this.stamps),
    };
  }

  /** The loop appended `text` to its total text. */
  textAppended(text: string): void {
    if (this.host !== null) this.appended.push(text);
  }

  private async persist(loop: DaemonLoopView): Promise<void> {
    if (this.host !== null) return this.host.commitSnapshot(this.snapshotOf(loop), this.appended.splice(0));
    const path = this.settings.snapshotPath;
    if (path === null || this.writer === null) return;
    const text = encodeState(this.snapshotOf(loop));
    await this.writer.write(basename(path), "snapshot", () => text);
  }
}
