/**
 * Process groups whose leader exited while other members live on: what a
 * command left behind (`sh -c 'server >log 2>&1 &'`). The command is done
 * when its own process is, and the script may rely on the leftover for a
 * while (a server it then talks to), so nothing is killed then; but no
 * process a script started may outlive `harn` (docs/design.md, "Nothing may
 * keep Node alive"; spec bar: no orphans after exit), so runtime shutdown,
 * and as a last resort Node's `exit` event, SIGKILL these groups.
 *
 * A group id stays reserved while any member lives, so the kill cannot hit
 * an unrelated group unless every leftover died and the pid was reused
 * within the same run. A process that moved to a session of its own
 * (`setsid`) is out of the group's reach; its process-tree cookie finds it
 * (run_scope.ts). The group kill stays for what the cookie cannot reach:
 * systems without /proc (macOS) and processes that cleared their
 * environment.
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";

class Leftovers {
  private readonly groups = new Set<number>();
  private readonly onExit = () => this.killAll();

  /** Remember `pgid` if its group still has members (its leader exited). */
  noteIfAlive(pgid: number): void {
    if (this.groups.has(pgid) || !groupAlive(pgid)) return;
    if (this.groups.size === 0) process.on("exit", this.onExit);
    this.groups.add(pgid);
  }

  killAll(): void {
    for (const pgid of this.groups) {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // every member already gone
      }
    }
    if (this.groups.size > 0) process.off("exit", this.onExit);
    this.groups.clear();
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const LEFTOVERS = new RuntimeSlot<Leftovers>("process.leftovers", (rt) => {
  const l = new Leftovers();
  rt.onShutdown(() => l.killAll());
  return l;
});

/** Call once a command's own process ended: if anything of its process
 * group `pgid` still runs, it is killed when the runtime shuts down. */
export function noteLeftovers(rt: Runtime, pgid: number): void {
  rt.slot(LEFTOVERS).noteIfAlive(pgid);
}
