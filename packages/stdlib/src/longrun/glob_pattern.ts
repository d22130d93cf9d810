/**
 * Glob patterns in the reference's dialect (agents.md §1.5: a Rust glob-set
 * matcher with default settings), compiled with picomatch.
 *
 * picomatch's `bash` mode already gives the central rule — `*` is not
 * separator-aware — and its globstar gives `**` (including `**\/x` matching a
 * top-level `x`). This module only adapts the *dialect* before handing the
 * pattern over, so the matching itself stays picomatch's:
 *
 * - `(`, `)` and `|` are literals in the reference, so they are escaped
 *   (picomatch would read them as regex groups); extglobs and leading-`!`
 *   negation are switched off for the same reason.
 * - `[!a]` is the reference's negated class; picomatch's bash mode only
 *   understands `[^a]`, so the class is rewritten.
 * - A trailing `/**` in the reference means "below": `src/**` matches
 *   `src/a` but not `src` itself. picomatch also matches `src`; since a
 *   single `*` already crosses `/` here, `src/*` is the exact equivalent.
 * - `?` and negated classes match any one character, `/` included, in the
 *   reference (its separator is not literal); picomatch's never match `/`.
 *   A `?` becomes a regex group matching one code point (picomatch passes
 *   groups through), and a negated class that does not itself exclude `/`
 *   becomes a group of `/` or the class.
 * - Malformed patterns are rejected with the reference's error kinds
 *   (unclosed class, unclosed or unopened alternation, dangling escape,
 *   reversed range), because picomatch quietly treats them as literals.
 */
import picomatch from "picomatch";

/** A pattern the reference would reject; `message` is the matcher's text. */
export class GlobPatternError {
  constructor(readonly message: string) {}
}

export type GlobMatcher = (relativePath: string) => boolean;

const PICOMATCH_OPTIONS = {
  bash: true, // `*` crosses `/`
  dot: true, // hidden entries are ordinary entries
  noextglob: true,
  nonegate: true,
  strictSlashes: true,
} as const;

/** Compile `pattern` or throw `GlobPatternError`. */
export function compileGlob(pattern: string): GlobMatcher {
  const re = picomatch.makeRe(adaptDialect(pattern), PICOMATCH_OPTIONS);
  return (path) => re.test(path);
}

/**
 * A literal tail every path matching `pattern` ends with ("" when there is
 * none): the pattern's trailing run of plain name characters, e.g. ".md"
 * of "**\/*.md". It never holds a `/`, so it is also a tail of the path's
 * last segment: a crawl can test the entry's name before building and
 * matching its relative path.
 */
export function requiredSuffix(pattern: string): string {
  let i = pattern.length;
  while (i > 0 && /[A-Za-z0-9._-]/.test(pattern[i - 1]!)) i--;
  return pattern.slice(i);
}

/**
 * The directory every path matching `pattern` lies below, relative to the
 * base and ending in `/` ("" when there is none): the whole segments of the
 * pattern's leading literal text, e.g. "docs/api/" of "docs/api/*.md" and
 * "src/" of "src/ma*" (whose `*` may cross `/`, but every match still
 * starts with "src/ma"). A crawl can start there instead of at the base.
 * Segments that a walk never produces ("", ".", "..") give "": the full
 * walk then finds what the reference finds (nothing below them).
 */
export function literalDirectoryPrefix(pattern: string): string {
  const literal = /^[^*?[\]{}\\]*/.exec(pattern)![0];
  const prefix = literal.slice(0, literal.lastIndexOf("/") + 1);
  const segments = prefix.split("/").slice(0, -1);
  return segments.every((s) => s !== "" && s !== "." && s !== "..") ? prefix : "";
}

/** One code point, `/` included: a surrogate pair or a code unit outside
 * the surrogate range (paths decoded from the file system have no lone
 * surrogates). */
const ANY_CHAR = "([\\ud800-\\udbff][\\udc00-\\udfff]|[\\x00-\\ud7ff\\ue000-\\uffff])";

function fail(pattern: string, kind: string): never {
  throw new GlobPatternError(`error parsing glob '${pattern}': ${kind}`);
}

/** The reference dialect rewritten for picomatch (see the module comment). */
export function adaptDialect(pattern: string): string {
  let out = "";
  // open `{` groups, innermost last: where the group's text starts in
  // `out` and whether it has a comma of its own
  const groups: { start: number; comma: boolean; branch: number }[] = [];
  let i = 0;
  const n = pattern.length;
  while (i < n) {
    const c = pattern[i]!;
    if (c === "\\") {
      if (i + 1 >= n) fail(pattern, "dangling '\\'");
      out += c + pattern[i + 1];
      i += 2;
    } else if (c === "[") {
      const { text, end } = characterClass(pattern, i);
      out += text;
      i = end;
    } else if (c === "?") {
      out += ANY_CHAR;
      i++;
    } else if (c === "(" || c === ")" || c === "|") {
      out += "\\" + c;
      i++;
    } else if (c === "{") {
      groups.push({ start: out.length + 1, comma: false, branch: out.length + 1 });
      out += c;
      i++;
    } else if (c === "}") {
      const group = groups.pop();
      if (!group) fail(pattern, "unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)");
      // The reference reads `{a}` as an alternation of one branch (and `{}`
      // of none, matching the empty string); picomatch, like bash, keeps a
      // group without a comma literal. Doubling the branch keeps the
      // meaning and gives picomatch its comma.
      if (!group.comma) {
        const branch = out.slice(group.start);
        out += "," + branch;
      }
      out += c;
      i++;
    } else if (c === "," && groups.length > 0) {
      const group = groups[groups.length - 1]!;
      group.comma = true;
      out += c;
      i++;
      group.branch = out.length;
    } else if (c === "*" && pattern.startsWith("**/", i) && groups.length > 0 && groups[groups.length - 1]!.branch === out.length) {
      // `**/` opening a branch is the reference's recursive prefix, which
      // also matches nothing (`{**/x,y}` matches a top-level `x`);
      // picomatch only knows that at the start of the whole pattern
      out += "{,**/}";
      i += 3;
    } else {
      out += c;
      i++;
    }
  }
  if (groups.length > 0) fail(pattern, "unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)");
  if (pattern.endsWith("/**") && !pattern.endsWith("\\/**")) out = out.slice(0, -1);
  return out;
}

/** `[...]` starting at `start`: returns its picomatch text and the index after it. */
function characterClass(pattern: string, start: number): { text: string; end: number } {
  let i = start + 1;
  let text = "[";
  let negated = false;
  if (pattern[i] === "!" || pattern[i] === "^") {
    text += "^";
    negated = true;
    i++;
  }
  // a `]` right after the opening (or the negation) is a literal member
  const members: string[] = [];
  let coversSlash = false;
  if (pattern[i] === "]") {
    members.push("\\]");
    i++;
  }
  while (i < pattern.length && pattern[i] !== "]") {
    const c = pattern[i]!;
    if (pattern[i + 1] === "-" && i + 2 < pattern.length && pattern[i + 2] !== "]") {
      const hi = pattern[i + 2]!;
      if (c > hi) fail(pattern, `invalid range; '${c}' > '${hi}'`);
      if (c <= "/" && "/" <= hi) coversSlash = true;
      members.push(escapeClassChar(c) + "-" + escapeClassChar(hi));
      i += 3;
    } else {
      if (c === "/") coversSlash = true;
      members.push(escapeClassChar(c));
      i++;
    }
  }
  if (i >= pattern.length) fail(pattern, "unclosed character class; missing ']'");
  const cls = text + members.join("") + "]";
  // picomatch adds `/` to every negated class; the reference does not
  const matchesSlash = negated && !coversSlash;
  return { text: matchesSlash ? `(/|${cls})` : cls, end: i + 1 };
}

function escapeClassChar(c: string): string {
  return c === "\\" || c === "]" || c === "[" || c === "^" ? "\\" + c : c;
}
