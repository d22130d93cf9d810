/**
 * Signed URLs (spec/core-gaps.md §7.7): HMAC-SHA256 over
 * "harn-signed-url-v1\n" + resource + "\n" + the canonical query, where the
 * canonical query is every pair percent-encoded (only A–Z a–z 0–9 - _ . ~
 * kept) and sorted by key, then value. The signed URL carries exactly that
 * canonical query plus the signature, so a verifier re-derives it from the
 * URL alone.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { display, HarnError, HDict, isNumeric, typeOf, type Value } from "@harn/vm";
import { formParse } from "./form";

interface Options {
  sig: string;
  exp: string;
  kid: string;
  kidValue: string | null;
  skew: number;
}

function options(fn: string, v: Value | undefined): Options {
  const o = v instanceof HDict ? v : null;
  if (v !== undefined && v !== null && !o) throw HarnError.runtime(`${fn}: options must be a dict, got ${typeOf(v)}`);
  const name = (key: string, dflt: string): string => {
    const x = o?.get(key) ?? null;
    if (x === null) return dflt;
    if (typeof x !== "string" || x === "") throw HarnError.runtime(`${fn}: ${key} must be a non-empty string`);
    return x;
  };
  const sig = name("signature_param", "sig");
  const exp = name("expires_param", "exp");
  const kid = name("kid_param", "kid");
  if (sig === exp || sig === kid || exp === kid) throw HarnError.runtime(`${fn}: signature_param, expires_param and kid_param must be distinct`);
  const kidValue = o?.get("kid") ?? null;
  if (kidValue !== null && typeof kidValue !== "string") throw HarnError.runtime(`${fn}: kid must be a string, got ${typeOf(kidValue)}`);
  const skewV = o?.get("skew_seconds") ?? 0;
  if (!isNumeric(skewV) || !Number.isInteger(Number(skewV))) throw HarnError.runtime(`${fn}: skew_seconds must be an int, got ${typeOf(skewV)}`);
  if (Number(skewV) < 0) throw HarnError.runtime(`${fn}: skew_seconds must be non-negative, got ${String(skewV)}`);
  return { sig, exp, kid, kidValue, skew: Number(skewV) };
}

const hex2 = (b: number) => "%" + b.toString(16).toUpperCase().padStart(2, "0");

/** Percent-encode, keeping unreserved characters (and `/` when `slash`). */
function encode(s: string, slash: boolean): string {
  let out = "";
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_.~]/.test(c) || (slash && c === "/") ? c : hex2(b);
  }
  return out;
}

/** A path's resource form: existing %XX escapes kept (uppercased), the rest
 * encoded as `encode` does with `/` kept. */
function encodePath(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})|([^%]+|%)/g, (_m, esc: string | undefined, rest: string | undefined) =>
    esc !== undefined ? "%" + esc.toUpperCase() : encode(rest!, true),
  );
}

interface Parsed {
  /** What the output starts with (no query, no fragment). */
  prefix: string;
  resource: string;
  pairs: [string, string][];
}

function parse(fn: string, text: string): Parsed {
  const noFragment = text.split("#")[0]!;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(text)) {
    let url: URL | null = null;
    try {
      url = new URL(noFragment);
    } catch {
      url = null;
    }
    if (!url || url.host === "") throw HarnError.runtime(`${fn}: expected an absolute URL with a host or an absolute path starting with \`/\``);
    const pairs = formParse(url.search);
    url.search = "";
    return { prefix: url.href, resource: `${url.protocol}//${url.host}${url.pathname}`, pairs };
  }
  if (!noFragment.startsWith("/")) throw HarnError.runtime(`${fn}: expected an absolute URL or an absolute path starting with \`/\``);
  const q = noFragment.indexOf("?");
  const path = encodePath(q < 0 ? noFragment : noFragment.slice(0, q));
  return { prefix: path, resource: path, pairs: q < 0 ? [] : formParse(noFragment.slice(q + 1)) };
}

function canonical(pairs: [string, string][]): string {
  const enc = pairs.map(([k, v]): [string, string] => [encode(k, false), encode(v, false)]);
  enc.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return enc.map(([k, v]) => `${k}=${v}`).join("&");
}

function signature(secret: string, resource: string, pairs: [string, string][]): string {
  return createHmac("sha256", secret).update(`harn-signed-url-v1\n${resource}\n${canonical(pairs)}`).digest("base64url");
}

const text = (v: Value): string => (typeof v === "string" ? v : display(v));

export function signedUrl(args: Value[]): string {
  const fn = "signed_url";
  if (args.length < 4 || args.length > 5) throw HarnError.runtime(`${fn}: requires 4 or 5 arguments: base, claims, secret, expires_at, options?`);
  const [base, claims, secret, expiresAt] = args as [Value, Value, Value, Value];
  if (typeof base !== "string") throw HarnError.runtime(`${fn}: base must be a string, got ${typeOf(base)}`);
  if (!(claims instanceof HDict)) throw HarnError.runtime(`${fn}: claims must be a dict, got ${typeOf(claims)}`);
  if (typeof secret !== "string") throw HarnError.runtime(`${fn}: secret must be a string, got ${typeOf(secret)}`);
  if (!isNumeric(expiresAt) || !Number.isInteger(Number(expiresAt))) throw HarnError.runtime(`${fn}: expires_at must be an int, got ${typeOf(expiresAt)}`);
  const o = options(fn, args[4]);
  const reserved = [o.sig, o.exp, o.kid];
  for (const k of claims.keys()) if (reserved.includes(k)) throw HarnError.runtime(`${fn}: claims cannot contain reserved parameter \`${k}\``);
  const { prefix, resource, pairs: existing } = parse(fn, base);
  const pairs = existing.filter(([k]) => !reserved.includes(k));
  for (const k of [...claims.keys()].sort()) pairs.push([k, text(claims.get(k))]);
  pairs.push([o.exp, String(expiresAt)]);
  if (o.kidValue !== null) pairs.push([o.kid, o.kidValue]);
  const sig = signature(secret, resource, pairs);
  return `${prefix}?${canonical([...pairs, [o.sig, sig]])}`;
}

export function verifySignedUrl(args: Value[]): HDict {
  const fn = "verify_signed_url";
  if (args.length < 3 || args.length > 4) throw HarnError.runtime(`${fn}: requires 3 or 4 arguments: url, secret_or_keys, now, options?`);
  const [url, keys, now] = args as [Value, Value, Value];
  if (typeof url !== "string") throw HarnError.runtime(`${fn}: url must be a string, got ${typeOf(url)}`);
  if (!isNumeric(now) || !Number.isInteger(Number(now))) throw HarnError.runtime(`${fn}: now must be an int, got ${typeOf(now)}`);
  if (typeof keys !== "string" && !(keys instanceof HDict)) throw HarnError.runtime(`${fn}: secret_or_keys must be a string or dict, got ${typeOf(keys)}`);
  const o = options(fn, args[3]);
  const { resource, pairs } = parse(fn, url);
  const all = (k: string) => pairs.filter(([n]) => n === k).map(([, v]) => v);
  const sigs = all(o.sig);
  const exps = all(o.exp);
  const kids = all(o.kid);
  const claims = new Map<string, Value>();
  for (const [k, v] of pairs) if (k !== o.sig && k !== o.exp && k !== o.kid) claims.set(k, v);
  const kid = kids.length === 1 ? kids[0]! : null;
  const expiresAt = exps.length === 1 && /^-?\d+$/.test(exps[0]!) ? Number(exps[0]) : null;
  const result = (reason: string, signatureValid = false, expired = false) =>
    HDict.of({ claims: new HDict(claims), expired, expires_at: expiresAt, kid, reason, signature_valid: signatureValid, valid: reason === "ok" });
  if (sigs.length !== 1) return result("missing_signature");
  if (exps.length !== 1) return result("missing_expiry");
  if (expiresAt === null) return result("invalid_expiry");
  if (kids.length > 1) return result("duplicate_kid");
  let secret: string;
  if (typeof keys === "string") secret = keys;
  else {
    const k = kid === null ? null : (keys.get(kid) ?? null);
    if (k === null) return result("unknown_key");
    secret = text(k);
  }
  const expect = Buffer.from(signature(secret, resource, pairs.filter(([k]) => k !== o.sig)));
  const got = Buffer.from(sigs[0]!);
  const signatureValid = expect.length === got.length && timingSafeEqual(expect, got);
  const expired = Number(now) > expiresAt + o.skew;
  return result(!signatureValid ? "bad_signature" : expired ? "expired" : "ok", signatureValid, expired);
}
