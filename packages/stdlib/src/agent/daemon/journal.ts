/**
 * The daemon queue's journal for `harn test --crash-points` (spec/
 * extensions.md §5): each durable queue change of every daemon of a
 * runtime, in order, so a test host can check across a crash and a
 * resume that no trigger event is lost and none is delivered after its
 * completion was recorded (agents.md §4.3, §4.5). Nothing is recorded
 * unless a host installs a recorder.
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";

export interface DaemonJournalEntry {
  /** `trigger`: the event is on disk (daemon_trigger may return);
   * `deliver`: handed to the loop; `completing`: handled, the metadata
   * that no longer holds it in flight is being committed; `complete`: that
   * metadata is on disk. */
  op: "trigger" | "deliver" | "completing" | "complete";
  /** The daemon's root directory (its `persist_path`). */
  root: string;
  seq: number;
}

export interface DaemonJournal {
  record: ((entry: DaemonJournalEntry) => void) | null;
}

export const DAEMON_JOURNAL = new RuntimeSlot<DaemonJournal>("agent.daemon.journal", () => ({ record: null }));

/** Record daemon queue changes of `rt` with `record` (a host's hook). */
export function setDaemonJournal(rt: Runtime, record: (entry: DaemonJournalEntry) => void): void {
  rt.slot(DAEMON_JOURNAL).record = record;
}
