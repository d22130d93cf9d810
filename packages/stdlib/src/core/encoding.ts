/**
 * Encodings, hashes and UUIDs (spec/stdlib.md §16). String inputs are
 * display-coerced and UTF-8 encoded; bytes inputs are used raw. Decoders
 * return strings decoded lossily. Error details follow the Rust crates the
 * reference uses (base64, data-encoding, hex); only the prefixes are
 * contractual.
 */
import { blake3 } from "@noble/hashes/blake3";
import { HarnError, HBytes, RuntimeSlot, type Runtime, type Value } from "@harn/vm";
import { arg, strArg } from "./args";
import { nodeCrypto } from "./node-builtins";
import { builtinModule, type Define } from "../registry/define";

/** The bytes of a string-or-bytes parameter. */
export function bytesOf(args: Value[], i: number): Buffer {
  const v = arg(args, i);
  if (v instanceof HBytes) return Buffer.from(v.data.buffer, v.data.byteOffset, v.data.byteLength);
  return Buffer.from(strArg(args, i), "utf8");
}

const LOSSY = new TextDecoder("utf-8", { ignoreBOM: true });

export function lossy(data: Uint8Array): string {
  return LOSSY.decode(data);
}

// ---------------------------------------------------------------------------
// base64 / base64url / base32 / hex (strict decoders)

const B64 = /^[A-Za-z0-9+/]*$/;
const B64URL = /^[A-Za-z0-9_-]*$/;

function firstInvalid(s: string, valid: RegExp): number {
  for (let i = 0; i < s.length; i++) if (!valid.test(s[i]!)) return i;
  return -1;
}

/** Strict standard base64 with required padding. */
export function decodeBase64(s: string, prefix: string): Buffer {
  const body = s.replace(/={1,2}$/, "");
  const bad = firstInvalid(body, /[A-Za-z0-9+/]/);
  if (bad >= 0) throw HarnError.runtime(`${prefix}: Invalid symbol ${s.charCodeAt(bad)}, offset ${bad}.`);
  if (s.length % 4 !== 0 || body.length % 4 === 1) throw HarnError.runtime(`${prefix}: Invalid padding`);
  if (!B64.test(body)) throw HarnError.runtime(`${prefix}: Invalid input length.`);
  const out = Buffer.from(body, "base64");
  if (out.toString("base64").replace(/=+$/, "") !== body) {
    throw HarnError.runtime(`${prefix}: Invalid last symbol ${body.charCodeAt(body.length - 1)}, offset ${body.length - 1}.`);
  }
  return out;
}

function decodeBase64Url(s: string): Buffer {
  const prefix = "base64url decode error";
  const bad = firstInvalidUrl(s);
  if (bad >= 0) throw HarnError.runtime(`${prefix}: Invalid symbol ${s.charCodeAt(bad)}, offset ${bad}.`);
  // The base64 crate's no-pad engine accepts `=` where padding could sit (the
  // 3rd/4th symbol of the final quad) and only then rejects it as padding.
  if (s.includes("=")) throw HarnError.runtime(`${prefix}: Invalid padding`);
  if (s.length % 4 === 1 || !B64URL.test(s)) throw HarnError.runtime(`${prefix}: Invalid input length.`);
  const out = Buffer.from(s, "base64url");
  if (out.toString("base64url") !== s) {
    throw HarnError.runtime(`${prefix}: Invalid last symbol ${s.charCodeAt(s.length - 1)}, offset ${s.length - 1}.`);
  }
  return out;
}

/**
 * First offset the base64 crate reports as an invalid symbol for URL-safe
 * input: a non-alphabet byte, an `=` outside the final quad or among its first
 * two symbols, or a symbol after padding (reported at the first `=`).
 */
function firstInvalidUrl(s: string): number {
  const finalQuad = s.length === 0 ? 0 : s.length - (s.length % 4 === 0 ? 4 : s.length % 4);
  let firstPad = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "=") {
      if (i < finalQuad || i - finalQuad < 2) return i;
      if (firstPad < 0) firstPad = i;
      continue;
    }
    if (!/[A-Za-z0-9_-]/.test(c)) return i;
    if (firstPad >= 0) return firstPad;
  }
  return -1;
}

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function encodeBase32(data: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of data) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += "=";
  return out;
}

function decodeBase32(s: string): Buffer {
  const prefix = "base32 decode error";
  if (s.length % 8 !== 0) throw HarnError.runtime(`${prefix}: invalid length at ${s.length - (s.length % 8)}`);
  const body = s.replace(/=+$/, "");
  const pad = s.length - body.length;
  if (![0, 1, 3, 4, 6].includes(pad)) throw HarnError.runtime(`${prefix}: invalid padding at ${body.length}`);
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (let i = 0; i < body.length; i++) {
    const v = B32.indexOf(body[i]!);
    if (v < 0) throw HarnError.runtime(`${prefix}: invalid symbol at ${i}`);
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** Strict hex (either case). */
export function decodeHex(s: string, prefix: string): Buffer {
  const bad = firstInvalid(s, /[0-9A-Fa-f]/);
  if (bad >= 0) throw HarnError.runtime(`${prefix}: Invalid character '${s[bad]}' at position ${bad}`);
  if (s.length % 2 !== 0) throw HarnError.runtime(`${prefix}: Odd number of digits`);
  return Buffer.from(s, "hex");
}

const URL_SAFE = /[A-Za-z0-9\-_.~]/;

function urlEncode(data: Uint8Array): string {
  let out = "";
  for (const b of data) {
    const c = String.fromCharCode(b);
    out += b < 128 && URL_SAFE.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

function urlDecode(s: string): string {
  const src = Buffer.from(s, "utf8");
  const out: number[] = [];
  for (let i = 0; i < src.length; i++) {
    const b = src[i]!;
    if (b === 0x25 && i + 2 < src.length + 0 && /^[0-9A-Fa-f]{2}$/.test(String.fromCharCode(src[i + 1]!, src[i + 2]!))) {
      out.push(parseInt(String.fromCharCode(src[i + 1]!, src[i + 2]!), 16));
      i += 2;
    } else out.push(b === 0x2b ? 0x20 : b);
  }
  return lossy(Uint8Array.from(out));
}

// ---------------------------------------------------------------------------
// UUIDs

function formatUuid(b: Uint8Array): string {
  const h = Buffer.from(b).toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Canonical lowercase form of a hyphenated, simple, braced or urn UUID, or
 * null. */
export function parseUuid(s: string): string | null {
  let t = s.trim();
  if (/^urn:uuid:/i.test(t)) t = t.slice(9);
  else if (t.startsWith("{") && t.endsWith("}")) t = t.slice(1, -1);
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(t)) return t.toLowerCase();
  if (/^[0-9a-f]{32}$/i.test(t)) return formatUuid(Buffer.from(t, "hex"));
  return null;
}

const NAMESPACES: Record<string, string> = {
  dns: "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
  url: "6ba7b811-9dad-11d1-80b4-00c04fd430c8",
  oid: "6ba7b812-9dad-11d1-80b4-00c04fd430c8",
  x500: "6ba7b814-9dad-11d1-80b4-00c04fd430c8",
};

function uuidV5(namespace: string, name: string): string {
  const h = nodeCrypto().createHash("sha1")
    .update(Buffer.from(namespace.replace(/-/g, ""), "hex"))
    .update(Buffer.from(name, "utf8"))
    .digest()
    .subarray(0, 16);
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  return formatUuid(h);
}

/** The last v7 timestamp and its 42-bit counter, per runtime. */
const UUID_V7 = new RuntimeSlot("stdlib.uuid_v7", () => ({ ms: -1, counter: 0 }));

const COUNTER_LIMIT = 2 ** 42;

/** A random counter start with headroom: the top bit is left clear. */
function counterSeed(): number {
  return nodeCrypto().randomBytes(6).readUIntBE(0, 6) % 2 ** 41;
}

/** RFC 9562 §6.2 method 1, as the Rust `uuid` crate's `Uuid::now_v7` does:
 * a 42-bit counter in `rand_a` and the top of `rand_b`, seeded randomly each
 * millisecond and incremented within one, keeps the values of one run
 * strictly increasing (a clock step back reuses the last timestamp). */
export function uuidV7(rt: Runtime): string {
  const st = rt.slot(UUID_V7);
  const now = Date.now();
  if (now > st.ms) {
    st.ms = now;
    st.counter = counterSeed();
  } else if (++st.counter >= COUNTER_LIMIT) {
    st.ms++;
    st.counter = counterSeed();
  }
  const b = nodeCrypto().randomBytes(16);
  let ms = st.ms;
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  const c = st.counter;
  const high = Math.floor(c / 2 ** 24); // counter bits 41..24
  b[6] = 0x70 | (high >>> 14);
  b[7] = (high >>> 6) & 0xff;
  b[8] = 0x80 | (high & 0x3f);
  b[9] = (c >>> 16) & 0xff;
  b[10] = (c >>> 8) & 0xff;
  b[11] = c & 0xff;
  return formatUuid(b);
}

// ---------------------------------------------------------------------------

function hashBuiltin(def: Define, name: string, algorithm: string): void {
  def(name, (args) => nodeCrypto().createHash(algorithm).update(bytesOf(args, 0)).digest("hex"));
}

export const ENCODING_BUILTINS = builtinModule("core/encoding", (def, rt) => {
  def("base64_encode", (args) => bytesOf(args, 0).toString("base64"));
  def("base64_decode", (args) => lossy(decodeBase64(strArg(args, 0), "base64 decode error")));
  def("base64url_encode", (args) => bytesOf(args, 0).toString("base64url"));
  def("base64url_decode", (args) => lossy(decodeBase64Url(strArg(args, 0))));
  def("base32_encode", (args) => encodeBase32(bytesOf(args, 0)));
  def("base32_decode", (args) => lossy(decodeBase32(strArg(args, 0))));
  def("hex_encode", (args) => bytesOf(args, 0).toString("hex"));
  def("hex_decode", (args) => lossy(decodeHex(strArg(args, 0), "hex decode error")));
  def("url_encode", (args) => urlEncode(bytesOf(args, 0)));
  def("url_decode", (args) => urlDecode(strArg(args, 0)));

  hashBuiltin(def, "sha256", "sha256");
  hashBuiltin(def, "sha224", "sha224");
  hashBuiltin(def, "sha384", "sha384");
  hashBuiltin(def, "sha512", "sha512");
  hashBuiltin(def, "sha512_256", "sha512-256");
  hashBuiltin(def, "md5", "md5");
  hashBuiltin(def, "sha3_256", "sha3-256");
  hashBuiltin(def, "sha3_512", "sha3-512");
  def("blake3", (args) => Buffer.from(blake3(bytesOf(args, 0))).toString("hex"));
  def("hmac_sha256", (args) => nodeCrypto().createHmac("sha256", bytesOf(args, 0)).update(bytesOf(args, 1)).digest("hex"));
  def("hmac_sha256_base64", (args) => nodeCrypto().createHmac("sha256", bytesOf(args, 0)).update(bytesOf(args, 1)).digest("base64"));
  def("constant_time_eq", (args) => {
    const a = bytesOf(args, 0);
    const b = bytesOf(args, 1);
    return a.length === b.length && nodeCrypto().timingSafeEqual(a, b);
  });

  def("uuid", () => nodeCrypto().randomUUID());
  def("uuid_v7", () => uuidV7(rt));
  def("uuid_nil", () => "00000000-0000-0000-0000-000000000000");
  def("uuid_parse", (args) => parseUuid(strArg(args, 0)));
  def("uuid_v5", (args) => {
    if (args.length < 2) throw HarnError.runtime("uuid_v5(namespace, name): requires namespace and name");
    const ns = strArg(args, 0);
    const key = ns.toLowerCase().replace(/^namespace_/, "");
    const namespace = NAMESPACES[key] ?? parseUuid(ns);
    if (namespace === null || namespace === undefined) {
      throw HarnError.runtime("uuid_v5: namespace must be a UUID or one of dns/url/oid/x500");
    }
    return uuidV5(namespace, strArg(args, 1));
  });
});
