/**
 * gzip / brotli (spec/stdlib.md §23) on Node's zlib; zstd in zstd.ts
 * (zlib's where Node has it, else raw-block frames and a pure-JS decoder).
 */
import { HarnError, isHarnError, type Value } from "@harn/vm";
import { nodeZlib } from "../core/node-builtins";
import { bytes, bytesOrText, requireBytes } from "./bytes";
import { builtinModule } from "../registry/define";
import { zstdDecode, zstdEncode } from "./zstd";

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
  def("zstd_encode", zstdEncode);
  def("zstd_decode", zstdDecode);
});
