/**
 * Compiling Rust-dialect patterns (cached per runtime) and the search
 * primitives every regex builtin shares: Rust's match iteration and Rust's
 * replacement expansion.
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";
import { defaultFlags, parseRegex, RegexSyntaxError, type Flags } from "./syntax";
import { emitRegex } from "./emit";
import { BoundedBacktracker, expandedSize, MAX_PROGRAM, needsLinearEngine, nextIndex, SIZE_LIMIT_MESSAGE } from "./backtrack";

export interface CompiledRegex {
  /** Global (`g`) JS regexp; callers set `lastIndex` before each `exec`. */
  readonly re: RegExp;
  /** Capture names by group index (0 = whole match, always null). */
  readonly names: readonly (string | null)[];
  /** For patterns `re` could take exponential time on (nested repetition),
   * the linear-time engine that searches instead; see backtrack.ts. */
  readonly linear: BoundedBacktracker | null;
}

/** A pattern that does not compile; `detail` is what follows `Invalid regex: `. */
export class RegexError {
  constructor(readonly detail: string) {}
}

const CACHE_LIMIT = 512;

const cacheSlot = new RuntimeSlot<Map<string, CompiledRegex | RegexError>>("regex.cache", () => new Map());

/**
 * Compile `pattern` with optional builtin-level `flags` (a string of
 * `i`/`m`/`s`/`x`). Throws `RegexError` for patterns Rust would reject.
 */
export function compileRegex(rt: Runtime, pattern: string, flags = ""): CompiledRegex {
  const cache = rt.slot(cacheSlot);
  const key = flags + "\u0000" + pattern;
  let hit = cache.get(key);
  if (hit === undefined) {
    hit = compileUncached(pattern, flags);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, hit);
  }
  if (hit instanceof RegexError) throw hit;
  return hit;
}

function compileUncached(pattern: string, flagText: string): CompiledRegex | RegexError {
  const flags: Flags = defaultFlags();
  for (const c of flagText) {
    if (c === "i" || c === "m" || c === "s" || c === "x") flags[c] = true;
    else return new RegexError(`unsupported regex flag '${c}', expected one of i/m/s/x`);
  }
  try {
    const parsed = parseRegex(pattern, flags);
    const emitted = emitRegex(parsed.node);
    let linear: BoundedBacktracker | null = null;
    if (needsLinearEngine(parsed.node)) {
      if (expandedSize(parsed.node) > MAX_PROGRAM) return new RegexError(SIZE_LIMIT_MESSAGE);
      linear = new BoundedBacktracker(parsed.node, parsed.names.length);
    }
    return { re: new RegExp(emitted.source, "g" + emitted.flags), names: parsed.names, linear };
  } catch (e) {
    if (e instanceof RegexSyntaxError) return new RegexError(formatSyntaxError(pattern, e));
    if (e instanceof SyntaxError) return new RegexError(`regex parse error:\n    ${pattern}\nerror: ${e.message}`);
    throw e;
  }
}

/** regex-syntax's message layout: the pattern, a caret line, the error. */
function formatSyntaxError(pattern: string, e: RegexSyntaxError): string {
  if (pattern.includes("\n") || e.end <= e.start) return `regex parse error:\n    ${pattern}\nerror: ${e.message}`;
  const width = Math.max(1, Math.min(e.end, Array.from(pattern).length) - e.start);
  return `regex parse error:\n    ${pattern}\n    ${" ".repeat(e.start)}${"^".repeat(width)}\nerror: ${e.message}`;
}

/**
 * Every match, left to right, with Rust's iteration rule: after a match,
 * searching resumes at its end, and an *empty* match ending where the
 * previous match ended is skipped (so `a*` on `"baaa"` gives `""`, `"aaa"`,
 * and `""` on `"abc"` gives four empty matches).
 */
export function findAll(c: CompiledRegex, text: string, limit = Infinity): RegExpExecArray[] {
  try {
    return findAllUnreleased(c, text, limit);
  } finally {
    c.linear?.release();
  }
}

function findAllUnreleased(c: CompiledRegex, text: string, limit: number): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  let pos = 0;
  let lastEnd = -1;
  while (pos <= text.length && out.length < limit) {
    const m = execFrom(c, text, pos);
    if (m === null) break;
    const start = m.index;
    const end = start + m[0].length;
    if (start === end) {
      if (end !== lastEnd) {
        out.push(m);
        lastEnd = end;
      }
      if (end >= text.length) break;
      pos = nextIndex(text, end);
      continue;
    }
    out.push(m);
    lastEnd = end;
    pos = end;
  }
  return out;
}

/** The first match (Rust's `find`/`captures`), or null. */
export function findFirst(c: CompiledRegex, text: string): RegExpExecArray | null {
  try {
    return execFrom(c, text, 0);
  } finally {
    c.linear?.release();
  }
}

/**
 * The first match at or after UTF-16 index `pos`. V8's search can report a
 * match that starts between the two halves of a surrogate pair (`(?m)$`,
 * `\B` and other empty look-arounds on astral text); Rust only ever matches
 * at character boundaries, so such a match is skipped.
 */
function execFrom(c: CompiledRegex, text: string, pos: number): RegExpExecArray | null {
  if (c.linear !== null && c.linear.fits(text)) return c.linear.exec(text, pos);
  c.re.lastIndex = pos;
  for (;;) {
    const m = c.re.exec(text);
    if (m === null || !insideSurrogatePair(text, m.index)) return m;
    c.re.lastIndex = m.index + 1;
  }
}

function insideSurrogatePair(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return false;
  const hi = text.charCodeAt(i - 1);
  const lo = text.charCodeAt(i);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff;
}

/**
 * Expand a Rust replacement string for one match: `$0`, `$1`, `${1}`,
 * `$name`, `${name}`, `$$`. An unbraced reference takes the longest run of
 * `[A-Za-z0-9_]` (so `$1a` names the group `1a`); unknown or
 * non-participating groups expand to nothing; a `$` that starts no valid
 * reference is literal.
 */
export function expandReplacement(rep: string, m: RegExpExecArray, names: readonly (string | null)[]): string {
  let i = rep.indexOf("$");
  if (i < 0) return rep;
  let out = rep.slice(0, i);
  while (i < rep.length) {
    const dollar = rep.indexOf("$", i);
    if (dollar < 0) {
      out += rep.slice(i);
      break;
    }
    out += rep.slice(i, dollar);
    i = dollar;
    if (rep[i + 1] === "$") {
      out += "$";
      i += 2;
      continue;
    }
    let ref: string | null = null;
    let end = i + 1;
    if (rep[i + 1] === "{") {
      const close = rep.indexOf("}", i + 2);
      if (close >= 0) {
        ref = rep.slice(i + 2, close);
        end = close + 1;
      }
    } else {
      while (end < rep.length && /[A-Za-z0-9_]/.test(rep[end]!)) end++;
      if (end > i + 1) ref = rep.slice(i + 1, end);
    }
    if (ref === null) {
      out += "$";
      i += 1;
      continue;
    }
    out += groupText(m, names, ref);
    i = end;
  }
  return out;
}

function groupText(m: RegExpExecArray, names: readonly (string | null)[], ref: string): string {
  let index: number;
  if (/^\+?[0-9]+$/.test(ref)) index = Number(ref);
  else index = names.indexOf(ref);
  if (index < 0 || index >= m.length) return "";
  return m[index] ?? "";
}
