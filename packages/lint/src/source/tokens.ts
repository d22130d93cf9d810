/**
 * Tokens and comments for the source-aware rules. The significant tokens
 * come from the shared lexer (usually the very array the parser consumed,
 * so a file is lexed once). Comments are recovered from the gaps between
 * tokens: the lexer turns everything except blanks, line continuations,
 * a shebang and comments into tokens, so a gap holds nothing else and
 * scanning it needs no knowledge of strings.
 */
import { tokenize, type Token } from "@harn/lexer";

export type SourceToken = Token;

export interface Comment {
  /** The whole comment, markers included. */
  image: string;
  start: number;
  end: number;
  /** `//`/`///` (and a shebang line) as opposed to a block comment. */
  line: boolean;
  /** `///…` (not `////`), or `/**…` (not `/***`, not `/**\/`). */
  isDoc: boolean;
}

/** The significant tokens of a file that lexes (`[]` if it does not). */
export function scanTokens(text: string): SourceToken[] {
  const r = tokenize(text);
  return r.error ? [] : r.tokens;
}

/**
 * Every comment of `text`, found between the given tokens (which, as the
 * lexer makes them, are in source order and do not overlap). A comment
 * starts with `/` (or is the shebang), so only the gaps holding a `/` are
 * scanned: found with indexOf and a binary search of the tokens, instead
 * of visiting every gap of the file (most are a single blank).
 */
export function commentsBetween(text: string, tokens: readonly SourceToken[]): Comment[] {
  const out: Comment[] = [];
  const n = tokens.length;
  let k = 0;
  let pos = 0;
  while (pos < text.length) {
    const slash = pos === 0 && text.startsWith("#!") ? 0 : text.indexOf("/", pos);
    if (slash < 0) break;
    // k: the first token starting after the slash
    let lo = k;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tokens[mid]!.start <= slash) lo = mid + 1;
      else hi = mid;
    }
    k = lo;
    const prevEnd = k > 0 ? tokens[k - 1]!.end : 0;
    if (prevEnd > slash) {
      pos = prevEnd; // inside a token (a division, a string)
      continue;
    }
    const gapEnd = k < n ? tokens[k]!.start : text.length;
    scanGap(text, prevEnd, gapEnd, out);
    pos = Math.max(gapEnd, slash + 1);
  }
  return out;
}

function scanGap(text: string, from: number, to: number, out: Comment[]): void {
  let i = from;
  if (i === 0 && text.startsWith("#!")) {
    const nl = text.indexOf("\n");
    i = nl < 0 || nl > to ? to : nl;
    out.push({ image: text.slice(0, i), start: 0, end: i, line: true, isDoc: false });
  }
  while (i < to) {
    const c = text.charCodeAt(i);
    if (c !== 47 /* / */) {
      i++;
      continue;
    }
    const next = text.charCodeAt(i + 1);
    if (next === 47) {
      let end = text.indexOf("\n", i);
      if (end < 0 || end > to) end = to;
      if (text.charCodeAt(end - 1) === 13 && end > i + 2) end--;
      const image = text.slice(i, end);
      out.push({ image, start: i, end, line: true, isDoc: image.startsWith("///") && !image.startsWith("////") });
      i = end;
    } else if (next === 42) {
      let depth = 0;
      let j = i;
      while (j < to) {
        if (text.startsWith("/*", j)) {
          depth++;
          j += 2;
        } else if (text.startsWith("*/", j)) {
          depth--;
          j += 2;
          if (depth === 0) break;
        } else j++;
      }
      const image = text.slice(i, j);
      const isDoc = image.startsWith("/**") && !image.startsWith("/***") && !image.startsWith("/**/");
      out.push({ image, start: i, end: j, line: false, isDoc });
      i = j;
    } else {
      i++;
    }
  }
}
