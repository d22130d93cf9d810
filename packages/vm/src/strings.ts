/**
 * Strings: code-point aware helpers (spec/semantics.md §2.4). Lengths and
 * indexes count code points; the memos keep repeated measuring linear
 * (docs/design.md, Evaluation).
 */
const SURROGATE = /[\uD800-\uDFFF]/;

export function hasSurrogates(s: string): boolean {
  return SURROGATE.test(s);
}

/** Length in code points: UTF-16 length minus one per surrogate pair.
 * Strings built by concatenation are measured often (`len(text)` after
 * `text = "${text}${c}"`): a charCodeAt loop over such a string pays an
 * indirection per character, so an ASCII string (UTF-8 length equal to its
 * UTF-16 length, which native code computes in one flat pass) returns its
 * length without the loop. */
export function cpLength(s: string): number {
  const len = s.length;
  // Short strings (every piece appended to a built string) are cheaper to
  // scan here than to hand to native code.
  if (len > SHORT_STRING && Buffer.byteLength(s, "utf8") === len) return len;
  let n = len;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < len) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

const SHORT_STRING = 16;

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/**
 * The code-point length of the string most recently measured or extended.
 * A JS string cannot carry its code-point count (CPython's str does), so
 * the string-builder pattern, `text = "${text}${piece}"` then `len(text)`,
 * would measure the whole text every round; with the memo, extending the
 * remembered string measures only the piece, and measuring it again is a
 * pointer comparison. Sound for any string: one equal (`===`) to the
 * remembered one has the same code points. One per Runtime
 * (`Runtime.cpMemo`); the evaluator extends it at interpolations, `len`
 * reads it.
 */
export class CpLengthMemo {
  private s = "";
  private n = 0;
  /** `s` ends with a high surrogate: a piece starting with a low one
   * completes a pair (one code point, not two). */
  private highEnd = false;

  /** `cpLength(s)`, remembering `s`. */
  length(s: string): number {
    if (s === this.s) return this.n;
    const n = cpLength(s);
    this.s = s;
    this.n = n;
    this.highEnd = s.length > 0 && isHighSurrogate(s.charCodeAt(s.length - 1));
    return n;
  }

  /** `a + b`; when `a` is the remembered string, the result is remembered
   * with its length worked out from `b` alone. */
  concat(a: string, b: string): string {
    const r = a + b;
    if (b.length > 0 && a === this.s) {
      let n = this.n + cpLength(b);
      if (this.highEnd && isLowSurrogate(b.charCodeAt(0))) n--;
      this.s = r;
      this.n = n;
      this.highEnd = isHighSurrogate(b.charCodeAt(b.length - 1));
    }
    return r;
  }
}

/** The string as an array of code points (one string each). */
export function cpArray(s: string): string[] {
  return Array.from(s);
}

/** Slice by code-point indices (already clamped, start <= end). */
export function cpSlice(s: string, start: number, end: number): string {
  if (!SURROGATE.test(s)) return s.slice(start, end);
  const from = cpOffset(s, start, 0);
  return s.slice(from, cpOffset(s, end - start, from));
}

/** The UTF-16 offset of the code point `n` code points after UTF-16 offset
 * `from` (clamped to the end of `s`). A scan, without splitting `s` into an
 * array: indexing a long string must not allocate a string per code point. */
export function cpOffset(s: string, n: number, from: number): number {
  const len = s.length;
  let i = from;
  for (let k = 0; k < n && i < len; k++) {
    const c = s.charCodeAt(i++);
    if (c >= 0xd800 && c <= 0xdbff && i < len) {
      const d = s.charCodeAt(i);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return i;
}

/** Code point `i` of `s` (negative: from the end), or null out of range,
 * by a scan: `CodePoints.at` without the index. */
export function cpAt(s: string, i: number): string | null {
  const cps = hasSurrogates(s) ? cpArray(s) : s;
  if (i < 0) i += cps.length;
  return i >= 0 && i < cps.length ? cps[i]! : null;
}

/** Code points `[start, end)` with both clamped to `[0, len]`. */
export function cpSubstring(s: string, start: number, end: number): string {
  const n = cpLength(s);
  start = Math.min(Math.max(start, 0), n);
  end = Math.min(Math.max(end, start), n);
  return cpSlice(s, start, end);
}

/** Strings shorter than this are indexed by a plain scan. */
const SHORT = 256;
/** One breadcrumb per STEP code points. */
const STEP = 64;

/**
 * Code-point indexing of the long string most recently indexed. A JS string
 * is indexed by UTF-16 units, so finding code point `i` of a string with
 * astral characters is a scan from the start, and a script walking a text
 * with `s[i]`, `s.char_at(i)` or `substring(s, i, 1)` would be quadratic
 * (so would one without astral characters but outside Latin-1: telling
 * that it has no surrogates is a scan too). This keeps
 * the UTF-16 offset of every STEP-th code point of one string: building it
 * is one scan, each lookup after that a short one. Sound for any string:
 * one equal (`===`) to the remembered string has the same code points.
 */
export class CodePoints {
  private s = "";
  private n = 0;
  /** marks[k] = UTF-16 offset of code point k * STEP; null: no surrogates. */
  private marks: number[] | null = null;

  private use(s: string): void {
    if (s === this.s) return;
    this.s = s;
    if (!hasSurrogates(s)) {
      this.n = s.length;
      this.marks = null;
      return;
    }
    const marks: number[] = [];
    const len = s.length;
    let n = 0;
    for (let i = 0; i < len; n++) {
      if (n % STEP === 0) marks.push(i);
      const c = s.charCodeAt(i++);
      if (c >= 0xd800 && c <= 0xdbff && i < len) {
        const d = s.charCodeAt(i);
        if (d >= 0xdc00 && d <= 0xdfff) i++;
      }
    }
    this.n = n;
    this.marks = marks;
  }

  length(s: string): number {
    if (s.length < SHORT) return cpLength(s);
    this.use(s);
    return this.n;
  }

  /** UTF-16 offset of code point `i` (0 <= i <= length). */
  private offset(i: number): number {
    const marks = this.marks;
    if (marks === null) return i;
    if (i >= this.n) return this.s.length;
    const k = Math.floor(i / STEP);
    return cpOffset(this.s, i - k * STEP, marks[k]!);
  }

  /** Code point `i` of `s` (negative: from the end), or null out of range:
   * `s[i]` (semantics.md §4.9). */
  at(s: string, i: number): string | null {
    if (s.length < SHORT) return cpAt(s, i);
    this.use(s);
    if (i < 0) i += this.n;
    if (i < 0 || i >= this.n) return null;
    if (this.marks === null) return s[i]!;
    const from = this.offset(i);
    return s.slice(from, cpOffset(s, 1, from));
  }

  /** Code points `[start, end)` with both clamped to `[0, len]`. */
  slice(s: string, start: number, end: number): string {
    if (s.length < SHORT) return cpSubstring(s, start, end);
    this.use(s);
    start = Math.min(Math.max(start, 0), this.n);
    end = Math.min(Math.max(end, start), this.n);
    const from = this.offset(start);
    return s.slice(from, end - start <= STEP ? cpOffset(s, end - start, from) : this.offset(end));
  }

  /** The code-point index of UTF-16 offset `unit` (a code-point boundary). */
  indexAt(s: string, unit: number): number {
    if (unit <= 0) return unit;
    if (s.length < SHORT) return hasSurrogates(s) ? cpLength(s.slice(0, unit)) : unit;
    this.use(s);
    const marks = this.marks;
    if (marks === null) return unit;
    let lo = 0;
    let hi = marks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (marks[mid]! <= unit) lo = mid;
      else hi = mid - 1;
    }
    return lo * STEP + cpLength(s.slice(marks[lo]!, unit));
  }
}

/** Code-point order (equivalent to UTF-8 byte order), not UTF-16 order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      // Surrogates (D800-DFFF) encode code points above FFFF, so they must
      // sort after E000-FFFF; remap both ranges before comparing.
      if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}
