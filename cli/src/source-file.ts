/**
 * Reading `.harn` sources. Kept free of engine imports so commands can use
 * it without loading the evaluator (see engine.ts).
 */
import { readFileSync } from "node:fs";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Read a `.harn` file, which must be UTF-8: invalid bytes fail like the
 * reference's `read_to_string` (`Error reading f.harn: stream did not
 * contain valid UTF-8`) instead of silently becoming U+FFFD. */
export function readSourceText(path: string): string {
  const bytes = readFileSync(path);
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new Error("stream did not contain valid UTF-8");
  }
}
