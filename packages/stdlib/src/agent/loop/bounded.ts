/**
 * Bounded feedback: what a tool or the pending feedback queue hands the
 * model is capped, as command output already is (`max_inline_bytes`):
 * a `walk_dir` of a 60,000-file tree was one 5.2-million-character
 * message. Past the cap (agent_loop option `feedback_max_bytes`, default
 * 50,000 bytes of UTF-8; 0 turns it off) the full text goes to a file in
 * the run's scratch directory, and the model gets
 *
 * - for a completion payload with a list result (`walk_dir`, `glob`,
 *   `find_text`'s matches): the same payload, valid JSON, with as many
 *   leading items as fit and `result_truncated: true`, `result_shown`,
 *   `result_total` and `full_result_path`;
 * - for any other text: its head, cut on a character boundary, and a
 *   marker line naming the file.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Runtime } from "@harn/vm";
import { runScope } from "../../core/run_scope";
import { isJsonObject, type Json, type JsonObject } from "../../core/json";
import { makeDirsSync } from "../../core/make-dirs";

export const DEFAULT_FEEDBACK_MAX_BYTES = 50_000;

/** The marker after a cut text; `path` null when the file could not be
 * written (`why`). */
export function truncationMarker(shown: number, total: number, path: string | null, why = ""): string {
  const where = path !== null ? `the full text is in ${path}` : `the full text could not be saved: ${why}`;
  return `[truncated by harn: the first ${shown} of ${total} bytes are shown; ${where}]`;
}

export class FeedbackBound {
  private files = 0;

  /** `maxBytes` 0: no cap. */
  constructor(
    private readonly rt: Runtime,
    readonly maxBytes: number,
  ) {}

  /** `text` as the model may see it; `name` names the full-text file. */
  text(text: string, name: string): string {
    if (!this.over(text)) return text;
    let path: string | null = null;
    let why = "";
    try {
      path = this.save(text, name, "txt");
    } catch (e) {
      why = (e as Error).message;
    }
    const head = cutUtf8(text, this.maxBytes);
    return `${head}\n${truncationMarker(Buffer.byteLength(head), Buffer.byteLength(text), path, why)}`;
  }

  /** A completion item's content (`text`, the compact JSON of `payload`). */
  payload(text: string, payload: JsonObject | null, name: string): string {
    if (!this.over(text)) return text;
    const result = payload?.result;
    const list = Array.isArray(result) ? result : isJsonObject(result) && Array.isArray(result.matches) ? result.matches : null;
    if (payload === null || list === null) return this.text(text, name);
    let path: string;
    try {
      path = this.save(text, name, "json");
    } catch {
      return this.text(text, name);
    }
    const build = (k: number): string => {
      const shown = list.slice(0, k);
      const r: Json = Array.isArray(result) ? shown : { ...(result as JsonObject), matches: shown };
      return JSON.stringify({ ...payload, result: r, result_truncated: true, result_shown: k, result_total: list.length, full_result_path: path });
    };
    // the most leading items that fit
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (this.over(build(mid))) hi = mid - 1;
      else lo = mid;
    }
    return build(lo);
  }

  private over(text: string): boolean {
    // a UTF-8 byte is at most one UTF-16 unit, and a unit at most 3 bytes
    if (this.maxBytes <= 0 || text.length * 3 <= this.maxBytes) return false;
    return text.length > this.maxBytes || Buffer.byteLength(text) > this.maxBytes;
  }

  private save(text: string, name: string, ext: string): string {
    const dir = join(runScope(this.rt).scratchDir(), "results");
    makeDirsSync(dir, 0o700);
    const path = join(dir, `${safeName(name)}-${++this.files}.${ext}`);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  }
}

/** The longest prefix of `text` of at most `max` UTF-8 bytes that ends on
 * a character boundary. */
function cutUtf8(text: string, max: number): string {
  const buf = Buffer.from(text);
  let cut = Math.min(max, buf.length);
  while (cut > 0 && (buf[cut]! & 0xc0) === 0x80) cut--;
  return buf.toString("utf8", 0, cut);
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 80) || "feedback";
}
