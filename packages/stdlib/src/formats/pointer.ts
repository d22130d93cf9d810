/**
 * JSON pointers over Harn values (RFC 6901, spec/stdlib.md §11.4): lookup,
 * copy-with-set and copy-with-delete. Values are never mutated.
 */
import { HarnError, HDict, type Value } from "@harn/vm";

/** The decoded reference tokens of `ptr`; throws the builtin's errors. */
export function pointerTokens(fn: string, ptr: string): string[] {
  if (ptr === "") return [];
  if (!ptr.startsWith("/")) throw HarnError.thrown(`${fn}: pointer must be empty or start with '/'`);
  return ptr
    .slice(1)
    .split("/")
    .map((raw) => {
      let out = "";
      for (let i = 0; i < raw.length; i++) {
        const c = raw[i]!;
        if (c !== "~") {
          out += c;
          continue;
        }
        const n = raw[i + 1];
        if (n === undefined) throw HarnError.thrown(`${fn}: dangling '~' in pointer`);
        if (n === "0") out += "~";
        else if (n === "1") out += "/";
        else throw HarnError.thrown(`${fn}: invalid escape '~${n}' in pointer`);
        i++;
      }
      return out;
    });
}

function listIndex(token: string): number | null {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : null;
}

export function pointerGet(v: Value, tokens: string[]): Value {
  let cur = v;
  for (const t of tokens) {
    if (cur instanceof HDict) {
      if (!cur.has(t)) return null;
      cur = cur.get(t);
    } else if (Array.isArray(cur)) {
      const i = listIndex(t);
      if (i === null || i >= cur.length) return null;
      cur = cur[i]!;
    } else {
      return null;
    }
  }
  return cur;
}

/** A copy of `v` with the target set; unreachable targets leave it as is. */
export function pointerSet(v: Value, tokens: string[], value: Value): Value {
  if (tokens.length === 0) return value;
  const [t, ...rest] = tokens as [string, ...string[]];
  if (v instanceof HDict) {
    if (rest.length === 0) return v.with(t, value);
    if (!v.has(t)) return v;
    const child = pointerSet(v.get(t), rest, value);
    return child === v.get(t) ? v : v.with(t, child);
  }
  if (Array.isArray(v)) {
    if (rest.length === 0) {
      if (t === "-") return [...v, value];
      const i = listIndex(t);
      if (i === null || i > v.length) return v;
      if (i === v.length) return [...v, value];
      const out = v.slice();
      out[i] = value;
      return out;
    }
    const i = listIndex(t);
    if (i === null || i >= v.length) return v;
    const child = pointerSet(v[i]!, rest, value);
    if (child === v[i]) return v;
    const out = v.slice();
    out[i] = child;
    return out;
  }
  return v;
}

export function pointerDelete(v: Value, tokens: string[]): Value {
  if (tokens.length === 0) return null;
  const [t, ...rest] = tokens as [string, ...string[]];
  if (v instanceof HDict) {
    if (!v.has(t)) return v;
    if (rest.length === 0) return v.without(t);
    const child = pointerDelete(v.get(t), rest);
    return child === v.get(t) ? v : v.with(t, child);
  }
  if (Array.isArray(v)) {
    const i = listIndex(t);
    if (i === null || i >= v.length) return v;
    if (rest.length === 0) return [...v.slice(0, i), ...v.slice(i + 1)];
    const child = pointerDelete(v[i]!, rest);
    if (child === v[i]) return v;
    const out = v.slice();
    out[i] = child;
    return out;
  }
  return v;
}
