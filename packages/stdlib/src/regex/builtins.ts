/**
 * The `regex_*` builtins (spec/stdlib.md §12). Mind the argument orders:
 * `regex_match(pattern, text, flags?)`, `regex_captures(pattern, text)`,
 * `regex_replace(pattern, replacement, text)`, `regex_split(text, pattern,
 * flags?)`.
 */
import { HarnError, HDict, type Runtime, type Value } from "@harn/vm";
import { strArg } from "../core/args";
import { compileRegex, expandReplacement, findAll, RegexError, type CompiledRegex } from "./compile";
import { builtinModule, type BuiltinModule } from "../registry/define";

export const REGEX_BUILTINS = builtinModule("regex/builtins", (def, rt) => {
  def("regex_match", (args, ctx) => {
    if (args.length < 2) return null;
    const re = compile(ctx.runtime, strArg(args, 0), flagsArg(args, 2));
    const found = findAll(re, strArg(args, 1));
    return found.length === 0 ? null : found.map((m) => m[0]);
  });

  def("regex_captures", (args, ctx) => {
    if (args.length < 2) return [];
    const re = compile(ctx.runtime, strArg(args, 0), "");
    return findAll(re, strArg(args, 1)).map((m) => captureDict(m, re));
  });

  const replace = (args: Value[], rt: Runtime): Value => {
    if (args.length < 3) return null;
    const re = compile(rt, strArg(args, 0), "");
    const rep = strArg(args, 1);
    const text = strArg(args, 2);
    const found = findAll(re, text);
    if (found.length === 0) return text;
    let out = "";
    let last = 0;
    for (const m of found) {
      out += text.slice(last, m.index) + expandReplacement(rep, m, re.names);
      last = m.index + m[0].length;
    }
    return out + text.slice(last);
  };
  def("regex_replace", (args, ctx) => replace(args, ctx.runtime));
  def("regex_replace_all", (args, ctx) => replace(args, ctx.runtime));

  def("regex_split", (args, ctx) => {
    if (args.length < 2) return null;
    const text = strArg(args, 0);
    const re = compile(ctx.runtime, strArg(args, 1), flagsArg(args, 2));
    const pieces: Value[] = [];
    let last = 0;
    for (const m of findAll(re, text)) {
      pieces.push(text.slice(last, m.index));
      last = m.index + m[0].length;
    }
    pieces.push(text.slice(last));
    return pieces;
  });
});

/** Compile or throw the `Invalid regex: …` string (thrown flavour). */
export function compile(rt: Runtime, pattern: string, flags: string): CompiledRegex {
  try {
    return compileRegex(rt, pattern, flags);
  } catch (e) {
    if (e instanceof RegexError) throw HarnError.thrown("Invalid regex: " + e.detail);
    throw e;
  }
}

/** An absent or nil flags argument means no flags. */
function flagsArg(args: Value[], i: number): string {
  const v = i < args.length ? args[i]! : null;
  return v === null ? "" : strArg(args, i);
}

/** `{match, groups, <name>…}`: positional groups with nil for groups that did
 * not participate; named groups only when they participated. */
function captureDict(m: RegExpExecArray, re: CompiledRegex): HDict {
  const entries = new Map<string, Value>();
  const groups: Value[] = [];
  for (let g = 1; g < m.length; g++) {
    const text = m[g];
    groups.push(text === undefined ? null : text);
    const name = re.names[g];
    if (name && text !== undefined) entries.set(name, text);
  }
  entries.set("match", m[0]);
  entries.set("groups", groups);
  return new HDict(entries);
}

/** The regex group's builtin modules (lazy/groups.ts). */
export const REGEX_MODULES: readonly BuiltinModule[] = [REGEX_BUILTINS];
