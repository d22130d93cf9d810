import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { HBytes } from "@harn/vm";
import { rig, settle } from "../core/harness";

/** The zstd tool (installed by .ci/run) on stdin. */
function zstdTool(args: string[], input: Uint8Array): Uint8Array {
  return new Uint8Array(execFileSync("zstd", args, { input }));
}

describe("zstd without zlib's Zstandard (Node 20)", () => {
  const big = new Uint8Array(300_000).map((_, i) => (i * 31) % 251);
  const r = rig();
  const encode = async (data: Uint8Array | string, level?: number) =>
    ((await settle(level === undefined ? r.callP("zstd_encode", typeof data === "string" ? data : new HBytes(data)) : r.callP("zstd_encode", typeof data === "string" ? data : new HBytes(data), level))) as HBytes).data;
  const decode = (b: Uint8Array) => (r.call("zstd_decode", new HBytes(b)) as HBytes).data;

  it("compresses, and the zstd tool decodes what it writes at any level", async () => {
    const small = new TextEncoder().encode("hello ".repeat(20));
    const frames = [await encode(new Uint8Array(0)), await encode(big)];
    for (const level of [-5, 1, 19, 22]) frames.push(await encode(small, level));
    // one run of the tool over all the frames: it decodes them in turn
    const all = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
    frames.reduce((at, f) => (all.set(f, at), at + f.length), 0);
    expect(Buffer.from(zstdTool(["-d", "-c"], all))).toEqual(Buffer.concat([big, small, small, small, small]));
    // really compressed, not stored: 300 KB of a 251-byte cycle is a few hundred bytes
    expect((await encode(big)).length).toBeLessThan(1000);
    expect((await encode("ab".repeat(50_000), 3)).length).toBeLessThan(100);
  });

  it("decodes the tool's compressed frames, streamed ones and concatenations too", async () => {
    const packed = zstdTool(["-19", "-c"], big);
    expect(packed.length).toBeLessThan(big.length);
    expect(Buffer.from(decode(packed))).toEqual(Buffer.from(big));
    // from stdin the tool writes no content size; zeros expand far more than 20×
    const zeros = new Uint8Array(1_500_000);
    expect(decode(zstdTool(["-c"], zeros)).length).toBe(zeros.length);
    const two = new Uint8Array([...zstdTool(["-c"], new TextEncoder().encode("ab")), ...(await encode("cd"))]);
    expect(new TextDecoder().decode(decode(two))).toBe("abcd");
  });

  it("round-trips its own frames and reports malformed input", async () => {
    expect(Buffer.from(decode(await encode(big, 7)))).toEqual(Buffer.from(big));
    expect(decode(await encode("")).length).toBe(0);
    expect(() => decode(new TextEncoder().encode("not zstd"))).toThrow(/^zstd_decode: /);
  });
});
