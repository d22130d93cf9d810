/**
 * Whether the runtime may ask the person at the terminal: `harn run` turns
 * it on when stdin is a terminal, so human-in-the-loop requests
 * (agents-surface.md §6) without a host or a mock prompt there instead of
 * waiting for their timeout. Tests and embedded runtimes leave it off.
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";

const INTERACTIVE = new RuntimeSlot<{ on: boolean }>("stdlib.interactive", () => ({ on: false }));

export function setInteractive(rt: Runtime, on: boolean): void {
  rt.slot(INTERACTIVE).on = on;
}

export function isInteractive(rt: Runtime): boolean {
  return rt.slot(INTERACTIVE).on;
}
