/**
 * What `harn watch` and `harn test --watch` share: noticing that the
 * `.harn` files under a directory changed, and stopping on Ctrl+C.
 */
import { watch } from "node:fs";
import { onEndingSignals } from "./signal-exit";

/** Changes closer together than this count as one. */
const SETTLE_MS = 100;

/** Call `onChange` whenever a `.harn` file under `dir` (recursively) is
 * created, changed or deleted, once the changes have settled. Returns the
 * function that stops watching (and drops a pending call). */
export function watchHarnChanges(dir: string, onChange: () => void): () => void {
  let timer: NodeJS.Timeout | null = null;
  const watcher = watch(dir, { recursive: true }, (_event, name) => {
    if (name === null || !String(name).endsWith(".harn")) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      onChange();
    }, SETTLE_MS);
  });
  return () => {
    watcher.close();
    if (timer !== null) clearTimeout(timer);
  };
}

/** Call `stop` once, on the first signal that ends a run (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT: signal-exit.ts). */
export function onInterrupt(stop: () => void): void {
  const off = onEndingSignals(() => {
    off();
    stop();
  });
}
