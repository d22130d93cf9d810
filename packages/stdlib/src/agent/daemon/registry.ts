/**
 * The daemons of one runtime (spec/agents.md §4.3: "a per-VM registry keyed
 * by id"). At script end every running daemon is stopped as by
 * `daemon_stop` — its in-flight event re-queued, its metadata durable, its
 * lock released — so nothing keeps Node alive and a later `daemon_resume`
 * continues where it left off.
 */
import { HarnError, HDict, RuntimeSlot, type Runtime, type Value } from "@harn/vm";
import type { Json } from "../../core/json";
import type { WaitUntil } from "./daemon";

/** What the daemon builtins use of a daemon: one this process runs from
 * a root directory (`Daemon`), or one in a shared store that it runs,
 * stands by for, or only feeds and observes (pg/shared.ts). */
export interface DaemonHandle {
  readonly id: string;
  /** Where its state lives: a root directory, or a store URL and name. */
  readonly place: string;
  /** This process runs it or stands by for it. */
  readonly running: boolean;
  /** Resolves once this process no longer touches its state. */
  readonly released: Promise<void>;
  trigger(payload: Json): Promise<void>;
  stop(): Promise<void>;
  /** Script end: stop, never throw. */
  shutdown(): Promise<void>;
  summary(): HDict | Promise<HDict>;
  snapshotDict(): HDict | Promise<HDict>;
  waitUntil(until: WaitUntil, ms: number | null, signal: AbortSignal): Promise<boolean>;
}

/** Something closed once every daemon of the runtime has stopped (a
 * store's connections). */
export interface DaemonResource {
  close(): Promise<void>;
}

export class DaemonRegistry {
  readonly daemons = new Map<string, DaemonHandle>();
  /** Per-runtime resources by key, closed after the daemons at shutdown. */
  readonly resources = new Map<string, DaemonResource>();

  /** The running daemon of a place, if any. */
  runningFor(place: string): DaemonHandle | undefined {
    for (const d of this.daemons.values()) if (d.running && d.place === place) return d;
    return undefined;
  }

  /** Wait until no daemon of this process still holds `place` (one that
   * just stopped may be finishing its last write). */
  async released(place: string): Promise<void> {
    await Promise.all([...this.daemons.values()].filter((d) => d.place === place && !d.running).map((d) => d.released));
  }

  /** A daemon builtin's handle argument: the handle dict (its `id`) or an
   * id string. */
  resolve(builtin: string, arg: Value | undefined): DaemonHandle {
    if (arg === undefined || arg === null) throw HarnError.runtime(`${builtin}: missing daemon handle`);
    let id: string;
    if (arg instanceof HDict) {
      const v = arg.get("id");
      if (typeof v !== "string") throw HarnError.runtime("daemon handle dict is missing an id field");
      id = v;
    } else if (typeof arg === "string") id = arg;
    else throw HarnError.runtime("expected daemon handle or daemon id");
    const d = this.daemons.get(id);
    if (!d) throw HarnError.runtime(`unknown daemon '${id}'`);
    return d;
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.daemons.values()].map((d) => d.shutdown()));
    const resources = [...this.resources.values()];
    this.resources.clear();
    await Promise.all(resources.map((r) => r.close().catch(() => undefined)));
  }
}

const REGISTRY = new RuntimeSlot<DaemonRegistry>("agent.daemons", (rt) => {
  const registry = new DaemonRegistry();
  rt.onShutdown(() => registry.shutdown());
  return registry;
});

export function daemonRegistry(rt: Runtime): DaemonRegistry {
  return rt.slot(REGISTRY);
}
