/**
 * `zstd_encode` / `zstd_decode` (spec/core-gaps.md §7.11). Node ≥ 22.15
 * has Zstandard in zlib and it is used. On older Node (20, our floor) the
 * encoder writes a standard frame of raw (stored) blocks, which every zstd
 * decoder reads and which round-trips (the level is validated, then has
 * nothing to tune), and frames are decoded by fzstd, a pure-JS decoder of
 * raw, RLE and compressed blocks, so frames from real zstd tools decode too.
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

const MIN_LEVEL = -131072;
const MAX_LEVEL = 22;
const MAX_BLOCK = 131072;

/** Magic, a single-segment descriptor with an 8-byte content size, then
 * raw blocks of at most 128 KiB, the last one flagged. */
export function rawFrame(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / MAX_BLOCK));
  const out = new Uint8Array(4 + 1 + 8 + blocks * 3 + data.length);
  out.set([0x28, 0xb5, 0x2f, 0xfd, 0xe0], 0);
  let size = data.length;
  for (let i = 0; i < 8; i++) {
    out[5 + i] = size % 256;
    size = Math.floor(size / 256);
  }
  let at = 13;
  for (let b = 0; b < blocks; b++) {
    const chunk = data.subarray(b * MAX_BLOCK, Math.min(data.length, (b + 1) * MAX_BLOCK));
    const header = chunk.length * 8 + (b === blocks - 1 ? 1 : 0);
    out[at] = header & 0xff;
    out[at + 1] = (header >>> 8) & 0xff;
    out[at + 2] = (header >>> 16) & 0xff;
    out.set(chunk, at + 3);
    at += 3 + chunk.length;
  }
  return out;
}

export function zstdEncode(args: Value[]): Value {
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
  if (!z.zstdCompressSync || key === undefined) return bytes(rawFrame(data));
  return bytes(z.zstdCompressSync(data, { params: { [key]: Number(l) } }));
}

export function zstdDecode(args: Value[]): Value {
  if (args.length === 0) throw HarnError.runtime("zstd_decode: missing argument 1");
  const v = args[0]!;
  if (!(v instanceof HBytes)) throw HarnError.runtime(`zstd_decode: expected bytes at argument 1, got ${typeOf(v)}`);
  const z = nodeZlib() as ZstdZlib;
  try {
    return bytes(z.zstdDecompressSync ? z.zstdDecompressSync(v.data) : fzstdDecompress(v.data));
  } catch (e) {
    throw HarnError.runtime(`zstd_decode: ${e instanceof Error ? e.message : String(e)}`);
  }
}
