/**
 * Signatures and docs of the regex builtins for the builtin table
 * (registry/docs.ts): the spec's words where it documents the builtin, a
 * short summary where it only mentions it. Read by the build only.
 */
import type { BuiltinDocs } from "../registry/docs";

export const REGEX_DOCS: BuiltinDocs = {
  regex_captures: ["regex_captures(pattern, text)", "List with one dict per match: `match` (full match text), `groups` (list of positional groups 1..n; a group that did not participate is `nil`), plus one key per *named* group that participated (named groups that did not participate are simply absent). No match → `[]`; fewer than 2 args → `[]`."],
  regex_match: ["regex_match(pattern, text, flags?)", "List of all non-overlapping match strings (leftmost-first, scanning left to right; empty matches are allowed and advance by one code point, e.g. pattern `\"\"` on `\"abc\"` gives 4 empty matches). Returns `nil` (not `[]`) when there is no match, and `nil` when fewer than 2 arguments are passed."],
  regex_replace: ["regex_replace(pattern, replacement, text)", "Replaces every match of `pattern` in `text`. Replacement syntax (Rust): `$0`/`${0}` whole match, `$1`, `${1}`, `$name`, `${name}`, `$$` for `$`."],
  regex_replace_all: ["regex_replace_all(pattern, replacement, text)", "Alias of `regex_replace`: replaces every match."],
  regex_split: ["regex_split(text, pattern, flags?)", "Text first! Splits on every match; keeps leading/trailing/adjacent empty pieces; capture groups are not included in the output (unlike JS `String.split`). Fewer than 2 args → `nil`."],
};
