/**
 * HTTP cookies and stateless signed sessions (spec/stdlib.md §23). Signing
 * is HMAC-SHA256 (base64url); verification answers `{ok, value|payload,
 * error}` instead of throwing. Invalid names/values and `SameSite=None`
 * without `Secure` are runtime errors prefixed `cookie: `.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { display, HarnError, HDict, type Value } from "@harn/vm";
import { parseJson, stringifyJson } from "../core/json";
import { builtinModule } from "../registry/define";

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const COOKIE_VALUE = /^[\u0021\u0023-\u002b\u002d-\u003a\u003c-\u005b\u005d-\u007e]*$/;

function str(v: Value | undefined): string {
  if (v === undefined || v === null) return "";
  return typeof v === "string" ? v : display(v);
}

function cookieError(msg: string): never {
  throw HarnError.runtime(`cookie: ${msg}`);
}

interface CookieOptions {
  path?: string;
  domain?: string;
  maxAge?: string;
  expires?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: string;
}

function readOptions(v: Value | undefined, defaults: CookieOptions): CookieOptions {
  const o = { ...defaults };
  if (!(v instanceof HDict)) return o;
  const has = (k: string) => v.has(k) && v.get(k) !== null;
  if (has("path")) o.path = str(v.get("path"));
  if (has("domain")) o.domain = str(v.get("domain"));
  if (has("max_age")) o.maxAge = str(v.get("max_age"));
  if (has("expires")) o.expires = str(v.get("expires"));
  if (v.has("http_only")) o.httpOnly = v.get("http_only") === true;
  if (v.has("secure")) o.secure = v.get("secure") === true;
  if (has("same_site")) {
    const s = str(v.get("same_site")).toLowerCase();
    if (!["lax", "strict", "none"].includes(s)) cookieError(`invalid SameSite value '${str(v.get("same_site"))}'`);
    o.sameSite = s[0]!.toUpperCase() + s.slice(1);
  }
  return o;
}

export function serializeCookie(name: string, value: string, o: CookieOptions): string {
  if (!TOKEN.test(name)) cookieError(`invalid cookie name '${name}'`);
  if (!COOKIE_VALUE.test(value)) cookieError(`invalid cookie value for '${name}'`);
  if (o.sameSite === "None" && !o.secure) cookieError("SameSite=None requires Secure");
  let out = `${name}=${value}`;
  if (o.path !== undefined) out += `; Path=${o.path}`;
  if (o.domain !== undefined) out += `; Domain=${o.domain}`;
  if (o.maxAge !== undefined) out += `; Max-Age=${o.maxAge}`;
  if (o.expires !== undefined) out += `; Expires=${o.expires}`;
  if (o.httpOnly) out += "; HttpOnly";
  if (o.secure) out += "; Secure";
  if (o.sameSite !== undefined) out += `; SameSite=${o.sameSite}`;
  return out;
}

interface Parsed {
  pairs: [string, string][];
  invalid: string[];
}

function parseHeader(header: string): Parsed {
  const pairs: [string, string][] = [];
  const invalid: string[] = [];
  for (const raw of header.split(";")) {
    const seg = raw.trim();
    if (seg === "") continue;
    const eq = seg.indexOf("=");
    if (eq < 0) {
      invalid.push(seg);
      continue;
    }
    let value = seg.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    pairs.push([seg.slice(0, eq).trim(), value]);
  }
  return { pairs, invalid };
}

export function cookieParse(header: string): HDict {
  const { pairs, invalid } = parseHeader(header);
  const cookies = new Map<string, Value>();
  const all = new Map<string, string[]>();
  for (const [k, v] of pairs) {
    if (!cookies.has(k)) cookies.set(k, v);
    all.set(k, [...(all.get(k) ?? []), v]);
  }
  const duplicates = new Map<string, Value>();
  for (const [k, vs] of all) if (vs.length > 1) duplicates.set(k, vs);
  return HDict.of({
    cookies: new HDict(cookies),
    pairs: pairs.map(([name, value]) => HDict.of({ name, value })),
    duplicates: new HDict(duplicates),
    invalid,
  });
}

function mac(secret: string, text: string): string {
  return createHmac("sha256", secret).update(text).digest("base64url");
}

function sameMac(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

export function sessionSign(payload: Value, secret: string): string {
  const body = "v1." + Buffer.from(stringifyJson(payload)).toString("base64url");
  return `${body}.${mac(secret, body)}`;
}

export function sessionVerify(token: string, secret: string): HDict {
  const bad = (error: string) => HDict.of({ ok: false, payload: null, error });
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== "v1") return bad("malformed");
  const body = `${parts[0]}.${parts[1]}`;
  if (!sameMac(mac(secret, body), parts[2]!)) return bad("invalid_signature");
  try {
    return HDict.of({ ok: true, payload: parseJson(Buffer.from(parts[1]!, "base64url").toString("utf8")), error: null });
  } catch {
    return bad("malformed");
  }
}

const SESSION_DEFAULTS: CookieOptions = { path: "/", httpOnly: true, secure: true, sameSite: "Lax" };

/** Apply Set-Cookie lines to a Cookie header. */
function roundTrip(header: string, setCookies: Value): HDict {
  const jar = new Map<string, string>(parseHeader(header).pairs.map(([k, v]) => [k, v]));
  const lines = Array.isArray(setCookies) ? setCookies.map(str) : typeof setCookies === "string" ? [setCookies] : [];
  for (const line of lines) {
    const [first, ...attrs] = line.split(";");
    const eq = (first ?? "").indexOf("=");
    if (eq < 0) continue;
    const name = first!.slice(0, eq).trim();
    const value = first!.slice(eq + 1).trim();
    let remove = false;
    for (const a of attrs) {
      const [k, v = ""] = a.split("=").map((s) => s.trim()) as [string, string?];
      if (k.toLowerCase() === "max-age" && Number(v) <= 0) remove = true;
      if (k.toLowerCase() === "expires") {
        const t = Date.parse(v);
        if (!Number.isNaN(t) && t <= Date.now()) remove = true;
      }
    }
    if (remove) jar.delete(name);
    else jar.set(name, value);
  }
  const cookies = new Map<string, Value>(jar);
  return HDict.of({ cookies: new HDict(cookies), cookie_header: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") });
}

export const COOKIES_BUILTINS = builtinModule("http/cookies", (def) => {
  def("cookie_parse", (args) => cookieParse(str(args[0])));
  def("cookie_serialize", (args) => serializeCookie(str(args[0]), str(args[1]), readOptions(args[2], {})));
  def("cookie_delete", (args) =>
    serializeCookie(str(args[0]), "", readOptions(args[1], { path: "/", maxAge: "0", expires: "Thu, 01 Jan 1970 00:00:00 GMT", httpOnly: true, secure: true, sameSite: "Lax" })),
  );
  def("cookie_sign", (args) => {
    const value = str(args[0]);
    return `${value}.${mac(str(args[1]), value)}`;
  });
  def("cookie_verify", (args) => {
    const signed = str(args[0]);
    const dot = signed.lastIndexOf(".");
    if (dot < 0) return HDict.of({ ok: false, value: null, error: "malformed" });
    const value = signed.slice(0, dot);
    if (!sameMac(mac(str(args[1]), value), signed.slice(dot + 1))) return HDict.of({ ok: false, value: null, error: "invalid_signature" });
    return HDict.of({ ok: true, value, error: null });
  });
  def("session_sign", (args) => sessionSign(args[0] ?? null, str(args[1])));
  def("session_verify", (args) => sessionVerify(str(args[0]), str(args[1])));
  def("session_cookie", (args) => serializeCookie(str(args[0]), sessionSign(args[1] ?? null, str(args[2])), readOptions(args[3], SESSION_DEFAULTS)));
  def("session_from_cookies", (args) => {
    const cookies = cookieParse(str(args[0])).get("cookies") as HDict;
    const token = cookies.get(str(args[1]));
    if (token === null) return HDict.of({ ok: false, payload: null, error: "missing" });
    return sessionVerify(str(token), str(args[2]));
  });
  def("cookie_round_trip", (args) => roundTrip(str(args[0]), args[1] ?? null));
});
