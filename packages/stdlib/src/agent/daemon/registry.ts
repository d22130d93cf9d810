/**
 * The daemons of one runtime (spec/agents.md §4.3: "a per-VM registry keyed
 * by id"). At script end every running daemon is stopped as by
 * `daemon_stop` — its in-flight event re-queued, its metadata durable, its
 * lock released — so nothing keeps Node alive and a later `daemon_resume`
 * continues where it left off.
 */
import { HarnError, HDict, RuntimeSlot, type Runtime, type Value } from "@harn/vm";
import type { Daemon } from "./daemon";

export class DaemonRegistry {
  readonly daemons = new Map<string, Daemon>();

  /** The running daemon of a root directory, if any. */
  runningFor(root: string): Daemon | undefined {
    for (const d of this.daemons.values()) if (d.running && d.identity.root === root) return d;
    return undefined;
  }

  /** Wait until no daemon of this process still holds `root` (one that
   * just stopped may be finishing its last write). */
  async released(root: string): Promise<void> {
    await Promise.all([...this.daemons.values()].filter((d) => d.identity.root === root && !d.running).map((d) => d.released));
  }

  /** A daemon builtin's handle argument: the handle dict (its `id`) or an
   * id string. */
  resolve(builtin: string, arg: Value | undefined): Daemon {
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
