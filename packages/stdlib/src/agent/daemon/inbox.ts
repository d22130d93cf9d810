/**
 * The daemon inbox (spec/agents.md §8): the in-process stand-in for the
 * reference's host bridge between the daemon builtins and the loop they
 * run. Delivery pushes an event's text and raises the resume signal; the
 * loop takes the messages at its next preflight or idle wake. `idle` is
 * true only while the loop waits at an idle boundary, the one moment an
 * event may be handed over (§4.5).
 */
export class DaemonInbox {
  messages: string[] = [];
  idle = false;
  resumeRequested = false;
  private readonly listeners = new Set<() => void>();

  /** Queue an immediate user message and raise the resume signal. */
  deliver(text: string): void {
    this.messages.push(text);
    this.resumeRequested = true;
    for (const l of [...this.listeners]) l();
  }

  /** Remove and return the queued messages. */
  take(): string[] {
    return this.messages.splice(0);
  }

  /** Call `listener` on every delivery; returns the unsubscribe. */
  onDelivery(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
