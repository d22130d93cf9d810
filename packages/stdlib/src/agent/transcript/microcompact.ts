/**
 * `microcompact(text, max_chars?)` (spec/agents-surface.md §1.9): shorten a
 * long tool output to its head and tail, keeping lines that look like
 * compiler or test diagnostics when there are any. Also behind
 * `register_tool_hook({max_output})` (agents.md §2.6 step 1). Lengths are
 * UTF-8 bytes; cut points move to character boundaries.
 */

export const DEFAULT_MICROCOMPACT_CHARS = 20_000;
const MAX_DIAGNOSTICS = 32;

const CASED = ["error", "undefined", "expected", "got"];
const LOWER = ["cannot find", "not found", "no such", "unresolved", "missing", "declared but not used", "unused", "mismatch"];

function looksLikeDiagnostic(line: string): boolean {
  if (line.includes("FAIL") || line.includes("panic") || line.includes("Panic")) return true;
  const lower = line.toLowerCase();
  if (/:\d/.test(line) && (CASED.some((w) => line.includes(w)) || LOWER.some((w) => lower.includes(w)))) return true;
  return lower.includes(" error ") || lower.includes("panic:") || ["error:", "warning:", "note:"].some((p) => lower.startsWith(p));
}

function isContinuation(b: Buffer, i: number): boolean {
  return i < b.length && (b[i]! & 0xc0) === 0x80;
}

/** The head: up to and including the last newline within the first `keep`
 * bytes, else exactly those bytes. */
function head(b: Buffer, keep: number): Buffer {
  let end = Math.min(keep, b.length);
  while (end > 0 && isContinuation(b, end)) end--;
  const nl = b.subarray(0, end).lastIndexOf(0x0a);
  return b.subarray(0, nl >= 0 ? nl + 1 : end);
}

/** The tail: from byte `len − keep`, or just after the next newline. */
function tail(b: Buffer, keep: number): Buffer {
  let start = Math.max(0, b.length - keep);
  while (isContinuation(b, start)) start++;
  const nl = b.indexOf(0x0a, start);
  if (nl >= 0 && nl + 1 < b.length) start = nl + 1;
  return b.subarray(start);
}

export function microcompact(text: string, maxChars = DEFAULT_MICROCOMPACT_CHARS): string {
  const b = Buffer.from(text, "utf8");
  if (b.length <= maxChars || maxChars < 200) return text;
  const diags: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (looksLikeDiagnostic(line)) diags.push(line);
    if (diags.length === MAX_DIAGNOSTICS) break;
  }
  if (diags.length > 0) {
    const joined = diags.join("\n");
    const keep = Math.trunc((maxChars - (Buffer.byteLength(joined, "utf8") + 64)) / 2);
    if (keep >= 80 && b.length > 2 * keep) {
      return `${head(b, keep).toString("utf8")}\n\n[diagnostic lines preserved]\n${joined}\n\n[... output compacted ...]\n\n${tail(b, keep).toString("utf8")}`;
    }
  }
  const keep = Math.trunc(maxChars / 2);
  const h = head(b, keep);
  const t = tail(b, keep);
  return `${h.toString("utf8")}\n\n[... ${b.length - h.length - t.length} characters snipped ...]\n\n${t.toString("utf8")}`;
}
