/**
 * gzip / brotli / zstd (spec/stdlib.md §23) on Node's zlib. zstd needs a
 * zlib with Zstandard support (Node ≥ 22.15); on older runtimes the zstd
 * builtins fail with a clear message rather than pretending.
 */
import type * as Zlib from "node:zlib";
import { HarnError, isHarnError, type Value } from "@harn/vm";
import { nodeZlib } from "../core/node-builtins";
import { bytes, bytesOrText, requireBytes } from "./bytes";
import { builtinModule } from "../registry/define";

function level(v: Value | undefined, min: number, max: number): number | undefined {
  return typeof v === "number" ? Math.max(min, Math.min(max, v)) : undefined;
}

function guard<T>(fn: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (isHarnError(e)) throw e;
    throw HarnError.thrown(`${fn}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

type ZstdZlib = typeof Zlib & {
  zstdCompressSync?: (b: Uint8Array, o?: object) => Buffer;
  zstdDecompressSync?: (b: Uint8Array) => Buffer;
  constants: typeof Zlib.constants & { ZSTD_c_compressionLevel?: number };
};

export const COMPRESSION_BUILTINS = builtinModule("formats/compress", (def) => {
  def("gzip_encode", (args) => guard("gzip_encode", () => bytes(nodeZlib().gzipSync(bytesOrText(args[0]), { level: level(args[1], 0, 9) }))));
  def("gzip_decode", (args) => guard("gzip_decode", () => bytes(nodeZlib().gunzipSync(requireBytes("gzip_decode", args[0])))));
  def("brotli_encode", (args) =>
    guard("brotli_encode", () => {
      const q = level(args[1], 0, 11);
      const params = q === undefined ? {} : { [nodeZlib().constants.BROTLI_PARAM_QUALITY]: q };
      return bytes(nodeZlib().brotliCompressSync(bytesOrText(args[0]), { params }));
    }),
  );
  def("brotli_decode", (args) => guard("brotli_decode", () => bytes(nodeZlib().brotliDecompressSync(requireBytes("brotli_decode", args[0])))));
  const zstd = () => nodeZlib() as ZstdZlib;
  def("zstd_encode", (args) => {
    const z = zstd();
    if (!z.zstdCompressSync) throw HarnError.thrown("zstd_encode: zstd is not supported by this Node.js runtime (needs Node 22.15 or newer)");
    const l = level(args[1], 1, 22);
    const key = z.constants.ZSTD_c_compressionLevel;
    const opts = l === undefined || key === undefined ? {} : { params: { [key]: l } };
    return guard("zstd_encode", () => bytes(z.zstdCompressSync!(bytesOrText(args[0]), opts)));
  });
  def("zstd_decode", (args) => {
    const data = requireBytes("zstd_decode", args[0]);
    const z = zstd();
    if (!z.zstdDecompressSync) throw HarnError.thrown("zstd_decode: zstd is not supported by this Node.js runtime (needs Node 22.15 or newer)");
    return guard("zstd_decode", () => bytes(z.zstdDecompressSync!(data)));
  });
});
