/** Byte-ish arguments shared by the encoding builtins (spec/stdlib.md §23). */
import { display, HarnError, HBytes, typeOf, type Value } from "@harn/vm";

/** Bytes as given, or a display-coerced string as UTF-8. */
export function bytesOrText(v: Value | undefined): Uint8Array {
  if (v instanceof HBytes) return v.data;
  if (v === undefined) return new Uint8Array(0);
  return new TextEncoder().encode(typeof v === "string" ? v : display(v));
}

/** Decoders take bytes only. */
export function requireBytes(fn: string, v: Value | undefined): Uint8Array {
  if (v instanceof HBytes) return v.data;
  throw HarnError.thrown(`${fn}: expected bytes, got ${typeOf(v ?? null)}`);
}

export function bytes(data: Uint8Array | Buffer): HBytes {
  return new HBytes(data instanceof Buffer ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data);
}
