/**
 * `zstd_encode` / `zstd_decode` (spec/core-gaps.md §7.11). Node ≥ 22.15
 * has Zstandard in zlib and it is used. On older Node (20, our floor):
 * - encoding is libzstd's, compiled to WebAssembly (@hpcc-js/wasm-zstd, no
 *   native build step), loaded on the first `zstd_encode` only: its ~240 KB
 *   module and the wasm compile cost nothing to scripts that never encode;
 * - decoding is fzstd's, a pure-JS streaming decoder. The wasm package's
 *   one-shot decompress sizes its output from the first frame's header, so
 *   it fails on concatenated frames and on frames without a content size
 *   that expand more than 20×, which fzstd reads.
 */
import type * as Zlib from "node:zlib";
import { decompress as fzstdDecompress } from "fzstd";
import { HarnError, HBytes, typeOf, type Value } from "@harn/vm";
import { nodeZlib } from "../core/node-builtins";
import { bytes } from "./bytes";

type ZstdZlib = typeof Zlib & {
  zstdCompressSync?: (b: Uint8Array, o?: object) => Buffer;
  zstdDecompressSync?: (b: Uint8Array) => Buffer;
  constants: typeof Zlib.constants & { ZSTD_c_compressionLevel?: number };
};

type Wasm = Awaited<ReturnType<(typeof import("@hpcc-js/wasm-zstd"))["Zstd"]["load"]>>;

const MIN_LEVEL = -131072;
const MAX_LEVEL = 22;

/** The WebAssembly libzstd (the package keeps the one instance). */
function wasmZstd(): Promise<Wasm> {
  return import("@hpcc-js/wasm-zstd").then((m) => m.Zstd.load());
}

/** libzstd's failure as the builtin's runtime error. */
function failed(fn: string, e: unknown): HarnError {
  return HarnError.runtime(`${fn}: ${e instanceof Error ? e.message : String(e)}`);
}

export function zstdEncode(args: Value[]): Value | Promise<Value> {
  const v = args.length > 0 ? args[0]! : null;
  let data: Uint8Array;
  if (v instanceof HBytes) data = v.data;
  else if (typeof v === "string") data = new TextEncoder().encode(v);
  else throw HarnError.runtime(`zstd_encode: expected bytes or string at argument 1, got ${typeOf(v)}`);
  const l = args.length > 1 && args[1] !== null ? args[1]! : 3;
  if (typeof l !== "number" && typeof l !== "bigint") throw HarnError.runtime(`zstd_encode: level must be an int, got ${typeOf(l)}`);
  if (l < MIN_LEVEL || l > MAX_LEVEL) throw HarnError.runtime(`zstd_encode: level must be between ${MIN_LEVEL} and ${MAX_LEVEL}, got ${l}`);
  const z = nodeZlib() as ZstdZlib;
  const key = z.constants.ZSTD_c_compressionLevel;
  if (z.zstdCompressSync && key !== undefined) return bytes(z.zstdCompressSync(data, { params: { [key]: Number(l) } }));
  return wasmZstd().then((w) => {
    try {
      return bytes(w.compress(data, Number(l)));
    } catch (e) {
      throw failed("zstd_encode", e);
    }
  });
}

export function zstdDecode(args: Value[]): Value {
  if (args.length === 0) throw HarnError.runtime("zstd_decode: missing argument 1");
  const v = args[0]!;
  if (!(v instanceof HBytes)) throw HarnError.runtime(`zstd_decode: expected bytes at argument 1, got ${typeOf(v)}`);
  const z = nodeZlib() as ZstdZlib;
  try {
    return bytes(z.zstdDecompressSync ? z.zstdDecompressSync(v.data) : fzstdDecompress(v.data));
  } catch (e) {
    throw failed("zstd_decode", e);
  }
}
