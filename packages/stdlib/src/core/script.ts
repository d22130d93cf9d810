/**
 * The script a runtime runs (its entry file), set by the host that starts
 * it. Per-script state (checkpoints, agents-surface.md §7) is named after
 * it; code running in imported modules or std modules still belongs to it.
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";

const SCRIPT = new RuntimeSlot<{ file: string | null }>("stdlib.script", () => ({ file: null }));

export function setScriptFile(rt: Runtime, file: string): void {
  rt.slot(SCRIPT).file = file;
}

export function scriptFile(rt: Runtime): string | null {
  return rt.slot(SCRIPT).file;
}
