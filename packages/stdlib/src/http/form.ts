/**
 * URL helpers shared by the HTTP client and its mocks: form encoding
 * (`application/x-www-form-urlencoded`, as Rust's `form_urlencoded`: space
 * becomes `+`, only ASCII alphanumerics and `*-._` stay literal), query
 * appending, and the redaction of sensitive query parameters in recorded
 * mock calls (spec/stdlib.md §19.2).
 */

const UNRESERVED = /[A-Za-z0-9*\-._]/;

export function formEncode(s: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    if (byte < 0x80 && UNRESERVED.test(c)) out += c;
    else if (byte === 0x20) out += "+";
    else out += "%" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

export function formDecode(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "+") bytes.push(0x20);
    else if (c === "%" && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      for (const b of new TextEncoder().encode(c)) bytes.push(b);
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

export function formSerialize(pairs: [string, string][]): string {
  return pairs.map(([k, v]) => formEncode(k) + "=" + formEncode(v)).join("&");
}

/** `a=1&b=2` → pairs (form decoding; a leading `?` is ignored). */
export function formParse(qs: string): [string, string][] {
  if (qs.startsWith("?")) qs = qs.slice(1);
  const out: [string, string][] = [];
  for (const part of qs.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    out.push(eq < 0 ? [formDecode(part), ""] : [formDecode(part.slice(0, eq)), formDecode(part.slice(eq + 1))]);
  }
  return out;
}

/** Append pairs to the query of a parsed URL (after any existing query). */
export function appendQuery(url: URL, pairs: [string, string][]): string {
  if (pairs.length === 0) return url.href;
  const extra = formSerialize(pairs);
  const existing = url.search.length > 1 ? url.search.slice(1) + "&" : "";
  const hash = url.hash;
  const base = url.href.slice(0, url.href.length - url.search.length - hash.length);
  return base + "?" + existing + extra + hash;
}

const SENSITIVE_PARAMS = new Set(["api_key", "apikey", "access_token", "refresh_token", "id_token", "client_secret", "password", "secret", "token"]);

export function isSensitiveParam(name: string): boolean {
  const n = name.toLowerCase();
  return SENSITIVE_PARAMS.has(n) || n.endsWith("_token") || n.endsWith("_secret");
}

export const SENSITIVE_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "api-key",
  "x-auth-token",
  "x-csrf-token",
  "x-xsrf-token",
]);

/** The URL with sensitive query values replaced by `[redacted]` and the
 * query re-serialised; URLs without such parameters come back untouched. */
export function redactUrl(raw: string): string {
  const q = raw.indexOf("?");
  if (q < 0) return raw;
  const hashAt = raw.indexOf("#", q);
  const query = raw.slice(q + 1, hashAt < 0 ? raw.length : hashAt);
  const pairs = formParse(query);
  if (!pairs.some(([k]) => isSensitiveParam(k))) return raw;
  const redacted = pairs.map(([k, v]): [string, string] => [k, isSensitiveParam(k) ? "[redacted]" : v]);
  return raw.slice(0, q) + "?" + formSerialize(redacted) + (hashAt < 0 ? "" : raw.slice(hashAt));
}

/**
 * Glob match of mock URL patterns: `*` alone matches everything; without
 * `*` the URL must be equal; otherwise the text before the first `*` is a
 * prefix, the text after the last `*` a suffix of the remainder, and the
 * middle pieces occur in order.
 */
export function urlMatches(pattern: string, url: string): boolean {
  if (pattern === "*") return true;
  if (!pattern.includes("*")) return pattern === url;
  const pieces = pattern.split("*");
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (!url.startsWith(first)) return false;
  let rest = url.slice(first.length);
  if (!rest.endsWith(last)) return false;
  rest = rest.slice(0, rest.length - last.length);
  for (const mid of pieces.slice(1, -1)) {
    if (mid === "") continue;
    const at = rest.indexOf(mid);
    if (at < 0) return false;
    rest = rest.slice(at + mid.length);
  }
  return true;
}
