import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { HBytes } from "@harn/vm";
import { rawFrame } from "../../src/formats/zstd";
import { rig } from "../core/harness";

/** The zstd tool (installed by .ci/run) on stdin. */
function zstdTool(args: string[], input: Uint8Array): Uint8Array {
  return new Uint8Array(execFileSync("zstd", args, { input }));
}

describe("zstd without zlib's Zstandard (Node 20)", () => {
  const big = new Uint8Array(300_000).map((_, i) => (i * 31) % 251);

  it("writes frames of raw blocks that the zstd tool decodes", () => {
    for (const data of [new Uint8Array(0), new TextEncoder().encode("hello"), big]) {
      expect(Buffer.from(zstdTool(["-d", "-c"], rawFrame(data)))).toEqual(Buffer.from(data));
    }
    expect([...rawFrame(new Uint8Array(0))]).toEqual([0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0]);
  });

  it("decodes the tool's compressed frames, streamed ones and concatenations too", () => {
    const r = rig();
    const decode = (b: Uint8Array) => (r.call("zstd_decode", new HBytes(b)) as HBytes).data;
    const packed = zstdTool(["-19", "-c"], big);
    expect(packed.length).toBeLessThan(big.length);
    expect(Buffer.from(decode(packed))).toEqual(Buffer.from(big));
    const two = new Uint8Array([...zstdTool(["-c"], new TextEncoder().encode("ab")), ...rawFrame(new TextEncoder().encode("cd"))]);
    expect(new TextDecoder().decode(decode(two))).toBe("abcd");
  });
});
