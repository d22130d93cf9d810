/**
 * Bytes builtins (spec/stdlib.md §16 "Bytes"). Unlike most builtins these
 * validate their argument types strictly; every error is a runtime error
 * naming the 1-based argument position.
 */
import { HarnError, HBytes, typeOf, type Value } from "@harn/vm";
import { decodeBase64, decodeHex, lossy } from "./encoding";
import { nodeCrypto } from "./node-builtins";
import { builtinModule } from "../registry/define";

function need(fn: string, args: Value[], i: number): Value {
  if (i >= args.length) throw HarnError.runtime(`${fn}: missing argument ${i + 1}`);
  return args[i]!;
}

function bytesAt(fn: string, args: Value[], i: number): Uint8Array {
  const v = need(fn, args, i);
  if (!(v instanceof HBytes)) throw HarnError.runtime(`${fn}: expected bytes at argument ${i + 1}, got ${typeOf(v)}`);
  return v.data;
}

function stringAt(fn: string, args: Value[], i: number): string {
  const v = need(fn, args, i);
  if (typeof v !== "string") throw HarnError.runtime(`${fn}: expected string at argument ${i + 1}, got ${typeOf(v)}`);
  return v;
}

function intAt(fn: string, args: Value[], i: number): number {
  const v = need(fn, args, i);
  if (typeof v === "bigint") return v > 0n ? Number.MAX_SAFE_INTEGER : 0;
  if (typeof v !== "number") throw HarnError.runtime(`${fn}: expected int at argument ${i + 1}, got ${typeOf(v)}`);
  return v;
}

/** Rust `Utf8Error` for the first invalid sequence, or null when valid. */
export function utf8Error(b: Uint8Array): string | null {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    let need = 0;
    if (c < 0x80) {
      i++;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) need = 2;
    else if (c >= 0xf0 && c <= 0xf4) need = 3;
    else return `invalid utf-8 sequence of 1 bytes from index ${i}`;
    // valid ranges of the second byte (Unicode Table 3-7)
    let lo = 0x80;
    let hi = 0xbf;
    if (c === 0xe0) lo = 0xa0;
    else if (c === 0xed) hi = 0x9f;
    else if (c === 0xf0) lo = 0x90;
    else if (c === 0xf4) hi = 0x8f;
    for (let k = 1; k <= need; k++) {
      if (i + k >= b.length) return `incomplete utf-8 byte sequence from index ${i}`;
      const x = b[i + k]!;
      const ok = k === 1 ? x >= lo && x <= hi : x >= 0x80 && x <= 0xbf;
      if (!ok) return `invalid utf-8 sequence of ${k} bytes from index ${i}`;
    }
    i += need + 1;
  }
  return null;
}

export const BYTES_BUILTINS = builtinModule("core/bytes", (def) => {
  def("bytes_from_string", (args) => new HBytes(new Uint8Array(Buffer.from(stringAt("bytes_from_string", args, 0), "utf8"))));
  def("bytes_to_string", (args) => {
    const b = bytesAt("bytes_to_string", args, 0);
    const e = utf8Error(b);
    if (e !== null) throw HarnError.runtime(`bytes_to_string: ${e}`);
    return lossy(b);
  });
  def("bytes_to_string_lossy", (args) => lossy(bytesAt("bytes_to_string_lossy", args, 0)));
  def("bytes_from_hex", (args) => new HBytes(new Uint8Array(decodeHex(stringAt("bytes_from_hex", args, 0), "bytes_from_hex"))));
  def("bytes_to_hex", (args) => Buffer.from(bytesAt("bytes_to_hex", args, 0)).toString("hex"));
  def(
    "bytes_from_base64",
    (args) => new HBytes(new Uint8Array(decodeBase64(stringAt("bytes_from_base64", args, 0), "bytes_from_base64"))),
  );
  def("bytes_to_base64", (args) => Buffer.from(bytesAt("bytes_to_base64", args, 0)).toString("base64"));
  def("bytes_len", (args) => bytesAt("bytes_len", args, 0).length);
  def("bytes_concat", (args) => {
    const a = bytesAt("bytes_concat", args, 0);
    const b = bytesAt("bytes_concat", args, 1);
    const out = new Uint8Array(a.length + b.length);
    out.set(a, 0);
    out.set(b, a.length);
    return new HBytes(out);
  });
  def("bytes_slice", (args) => {
    const b = bytesAt("bytes_slice", args, 0);
    const start = Math.min(Math.max(intAt("bytes_slice", args, 1), 0), b.length);
    const end = Math.min(Math.max(intAt("bytes_slice", args, 2), 0), b.length);
    return new HBytes(start >= end ? new Uint8Array(0) : b.slice(start, end));
  });
  def("bytes_eq", (args) => {
    const a = bytesAt("bytes_eq", args, 0);
    const b = bytesAt("bytes_eq", args, 1);
    return a.length === b.length && nodeCrypto().timingSafeEqual(a, b);
  });
});
