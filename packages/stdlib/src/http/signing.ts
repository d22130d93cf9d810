/**
 * JWTs, Ed25519/X25519 keys and signed URLs (signed-url.ts) (spec/stdlib.md §23) on Node's
 * crypto. Raw 32-byte keys travel as lowercase hex and are wrapped in the
 * fixed PKCS#8/SPKI prefixes Node needs to import them.
 */
import { createHmac, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, sign, timingSafeEqual, verify, type KeyObject } from "node:crypto";
import { display, HarnError, HBytes, HDict, type Value } from "@harn/vm";
import { parseJson, stringifyJson } from "../core/json";
import { signedUrl, verifySignedUrl } from "./signed-url";
import { builtinModule } from "../registry/define";

function str(v: Value | undefined): string {
  if (v === undefined || v === null) return "";
  return typeof v === "string" ? v : display(v);
}

function msgBytes(v: Value | undefined): Buffer {
  if (v instanceof HBytes) return Buffer.from(v.data);
  return Buffer.from(str(v), "utf8");
}

const b64url = (b: Buffer | Uint8Array) => Buffer.from(b).toString("base64url");

// ---------------------------------------------------------------------------
// JWT

function jwtSign(alg: string, claims: Value, pem: string): string {
  const fail = (m: string): never => {
    throw HarnError.runtime(`jwt_sign: ${m}`);
  };
  if (alg !== "ES256" && alg !== "RS256") fail(`unsupported algorithm '${alg}'`);
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (e) {
    return fail(`invalid private key: ${(e as Error).message}`);
  }
  const header = b64url(Buffer.from(JSON.stringify({ typ: "JWT", alg })));
  const payload = b64url(Buffer.from(stringifyJson(claims)));
  const input = Buffer.from(`${header}.${payload}`);
  let sig: Buffer;
  try {
    sig = alg === "ES256" ? sign("sha256", input, { key, dsaEncoding: "ieee-p1363" }) : sign("sha256", input, key);
  } catch (e) {
    return fail((e as Error).message);
  }
  return `${header}.${payload}.${b64url(sig)}`;
}

function jwtVerify(alg: string, token: string, keyText: string): HDict {
  const fail = (m: string): never => {
    throw HarnError.thrown(`jwt_verify: ${m}`);
  };
  if (alg !== "HS256" && alg !== "ES256" && alg !== "RS256") fail(`unsupported algorithm '${alg}'`);
  const parts = token.split(".");
  if (parts.length !== 3) fail("malformed token");
  const [h, p, s] = parts as [string, string, string];
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(h, "base64url").toString("utf8"));
  } catch {
    fail("malformed token header");
  }
  if ((header as { alg?: unknown }).alg !== alg) fail(`algorithm mismatch: token uses '${String((header as { alg?: unknown }).alg)}'`);
  const input = Buffer.from(`${h}.${p}`);
  const sig = Buffer.from(s, "base64url");
  let ok = false;
  try {
    if (alg === "HS256") {
      const expect = createHmac("sha256", keyText).update(input).digest();
      ok = expect.length === sig.length && timingSafeEqual(expect, sig);
    } else {
      const key = createPublicKey(keyText);
      ok = alg === "ES256" ? verify("sha256", input, { key, dsaEncoding: "ieee-p1363" }, sig) : verify("sha256", input, key, sig);
    }
  } catch (e) {
    fail(`invalid key: ${(e as Error).message}`);
  }
  if (!ok) fail("invalid signature");
  let claims: Value;
  try {
    claims = parseJson(Buffer.from(p, "base64url").toString("utf8"));
  } catch {
    return fail("malformed token claims");
  }
  return HDict.of({ valid: true, claims });
}

// ---------------------------------------------------------------------------
// Ed25519 / X25519 with raw hex keys

const PKCS8 = { ed25519: "302e020100300506032b657004220420", x25519: "302e020100300506032b656e04220420" };
const SPKI = { ed25519: "302a300506032b6570032100", x25519: "302a300506032b656e032100" };

function rawKey(hex: string, what: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`${what} must be 32 bytes of hex`);
  return Buffer.from(hex, "hex");
}

function privateKey(kind: "ed25519" | "x25519", hex: string): KeyObject {
  return createPrivateKey({ key: Buffer.concat([Buffer.from(PKCS8[kind], "hex"), rawKey(hex, "private key")]), format: "der", type: "pkcs8" });
}

function publicKey(kind: "ed25519" | "x25519", hex: string): KeyObject {
  return createPublicKey({ key: Buffer.concat([Buffer.from(SPKI[kind], "hex"), rawKey(hex, "public key")]), format: "der", type: "spki" });
}

function keypair(kind: "ed25519" | "x25519"): HDict {
  const { privateKey: priv, publicKey: pub } = generateKeyPairSync(kind as "ed25519");
  const d = priv.export({ format: "der", type: "pkcs8" }).subarray(-32);
  const x = pub.export({ format: "der", type: "spki" }).subarray(-32);
  return HDict.of({ private: Buffer.from(d).toString("hex"), public: Buffer.from(x).toString("hex") });
}

export const SIGNING_BUILTINS = builtinModule("http/signing", (def) => {
  def("jwt_sign", (args) => jwtSign(str(args[0]), args[1] ?? HDict.empty(), str(args[2])));
  def("jwt_verify", (args) => {
    if (args.length < 3) throw HarnError.thrown("jwt_verify: expected (alg, token, key)");
    return jwtVerify(str(args[0]), str(args[1]), str(args[2]));
  });

  def("ed25519_keypair", () => keypair("ed25519"));
  def("x25519_keypair", () => keypair("x25519"));
  def("ed25519_sign", (args) => {
    try {
      return sign(null, msgBytes(args[1]), privateKey("ed25519", str(args[0]))).toString("hex");
    } catch (e) {
      throw HarnError.thrown(`ed25519_sign: ${(e as Error).message}`);
    }
  });
  def("ed25519_verify", (args) => {
    try {
      const sig = str(args[2]);
      if (!/^[0-9a-fA-F]{128}$/.test(sig)) return false;
      return verify(null, msgBytes(args[1]), publicKey("ed25519", str(args[0])), Buffer.from(sig, "hex"));
    } catch {
      return false;
    }
  });
  def("x25519_agree", (args) => {
    try {
      return diffieHellman({ privateKey: privateKey("x25519", str(args[0])), publicKey: publicKey("x25519", str(args[1])) }).toString("hex");
    } catch (e) {
      throw HarnError.thrown(`x25519_agree: ${(e as Error).message}`);
    }
  });

  def("signed_url", signedUrl);
  def("verify_signed_url", verifySignedUrl);
});
