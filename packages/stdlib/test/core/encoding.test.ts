import { describe, expect, it } from "vitest";
import { display, HBytes } from "@harn/vm";
import { raised, rig, settle } from "./harness";

describe("encodings and hashes", () => {
  const r = rig();
  it("base64 family", async () => {
    expect(r.call("base64_encode", "hi?")).toBe("aGk/");
    expect(r.call("base64_decode", "aGk/")).toBe("hi?");
    expect((await raised(() => r.call("base64_decode", "aGk"))).description()).toMatch(/^Runtime error: base64 decode error: /);
    expect((await raised(() => r.call("base64_decode", "a!==")).then((e) => e.description()))).toMatch(/^Runtime error: base64 decode error: Invalid symbol 33/);
    expect(r.call("base64url_encode", "hi?")).toBe("aGk_");
    expect(r.call("base64url_decode", "aGk_")).toBe("hi?");
    expect((await raised(() => r.call("base64url_decode", "aGk="))).description()).toMatch(/^Runtime error: base64url decode error: /);
    expect(r.call("base32_encode", "hello")).toBe("NBSWY3DP");
    expect(r.call("base32_encode", "a")).toBe("ME======");
    expect(r.call("base32_decode", "ME======")).toBe("a");
    expect((await raised(() => r.call("base32_decode", "M1======"))).description()).toMatch(/^Runtime error: base32 decode error: /);
  });
  it("hex and url", async () => {
    expect(r.call("hex_encode", "hi")).toBe("6869");
    expect(r.call("hex_decode", "6A6b")).toBe("jk");
    expect((await raised(() => r.call("hex_decode", "abc"))).description()).toMatch(/^Runtime error: hex decode error: /);
    expect(r.call("url_encode", "a b/é~")).toBe("a%20b%2F%C3%A9~");
    expect(r.call("url_decode", "a+b%2Fc%zz%C3%A9")).toBe("a b/c%zzé");
  });
  it("hashes of display-coerced strings and raw bytes", () => {
    expect(r.call("sha256", "abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(r.call("sha256", 5)).toBe(r.call("sha256", "5"));
    expect(r.call("md5", "")).toBe("d41d8cd98f00b204e9800998ecf8427e");
    expect(r.call("sha512_256", "abc")).toBe("53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23");
    expect(r.call("sha3_256", new HBytes(new Uint8Array(0)))).toBe("a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
    expect(r.call("hmac_sha256", "key", "The quick brown fox jumps over the lazy dog")).toBe(
      "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
    );
    expect(r.call("blake3", "abc")).toBe("6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85");
    expect(r.call("constant_time_eq", "abc", "abc")).toBe(true);
    expect(r.call("constant_time_eq", "abc", "abd")).toBe(false);
  });
  it("uuids", async () => {
    const u = r.call("uuid") as string;
    expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.call("uuid")).not.toBe(u);
    expect(r.call("uuid_v7") as string).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(r.call("uuid_v5", "dns", "example.com")).toBe("cfbff0d1-9375-5685-968c-48ce8b15ae17");
    expect(r.call("uuid_v5", "NAMESPACE_URL", "x")).toBe(r.call("uuid_v5", "6ba7b811-9dad-11d1-80b4-00c04fd430c8", "x"));
    expect((await raised(() => r.call("uuid_v5", "dns"))).description()).toBe("Runtime error: uuid_v5(namespace, name): requires namespace and name");
    expect(r.call("uuid_parse", "{6BA7B810-9DAD-11D1-80B4-00C04FD430C8}")).toBe("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    expect(r.call("uuid_parse", "6ba7b8109dad11d180b400c04fd430c8")).toBe("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    expect(r.call("uuid_parse", "nope")).toBe(null);
    expect(r.call("uuid_nil")).toBe("00000000-0000-0000-0000-000000000000");
  });
});

describe("bytes", () => {
  const r = rig();
  it("round-trips and displays", () => {
    const b = r.call("bytes_from_string", "hé");
    expect(display(b)).toBe('b"68c3a9"');
    expect(r.call("bytes_to_string", b)).toBe("hé");
    expect(r.call("bytes_len", b)).toBe(3);
    expect(r.call("len", b)).toBe(3);
    expect(r.call("bytes_to_hex", r.call("bytes_from_hex", "00FF"))).toBe("00ff");
    expect(r.call("bytes_to_base64", r.call("bytes_from_base64", "aGk="))).toBe("aGk=");
    expect(display(r.call("bytes_concat", b, r.call("bytes_from_hex", "00")))).toBe('b"68c3a900"');
    expect(display(r.call("bytes_slice", b, 1, 99))).toBe('b"c3a9"');
    expect(display(r.call("bytes_slice", b, 2, 1))).toBe('b""');
    expect(r.call("bytes_eq", b, r.call("bytes_from_string", "hé"))).toBe(true);
    expect(display(new HBytes(new Uint8Array(40)))).toBe('b"' + "00".repeat(32) + '...+8"');
    expect(r.call("json_stringify", b)).toBe('{"$bytes_b64":"aMOp"}');
  });
  it("validates types strictly with runtime errors", async () => {
    const e = async (f: () => unknown) => (await raised(f as never)).description();
    expect(await e(() => r.call("bytes_len", "s"))).toBe("Runtime error: bytes_len: expected bytes at argument 1, got string");
    expect(await e(() => r.call("bytes_from_string", 1))).toBe("Runtime error: bytes_from_string: expected string at argument 1, got int");
    expect(await e(() => r.call("bytes_slice", r.call("bytes_from_hex", "00"), 0))).toBe("Runtime error: bytes_slice: missing argument 3");
    expect(await e(() => r.call("bytes_to_string", r.call("bytes_from_hex", "ff")))).toBe(
      "Runtime error: bytes_to_string: invalid utf-8 sequence of 1 bytes from index 0",
    );
    expect(await e(() => r.call("bytes_to_string", r.call("bytes_from_hex", "61e282")))).toBe(
      "Runtime error: bytes_to_string: incomplete utf-8 byte sequence from index 1",
    );
    expect(r.call("bytes_to_string_lossy", r.call("bytes_from_hex", "61ff"))).toBe("a\ufffd");
    expect(await e(() => r.call("bytes_from_hex", "0g"))).toMatch(/^Runtime error: bytes_from_hex: /);
  });
});

describe("sleep", () => {
  it("waits for durations and ints, not for anything else; 0 only yields", async () => {
    const r = rig();
    const zero = r.callP("sleep", 0);
    expect(zero).toBeInstanceOf(Promise);
    expect(await settle(zero)).toBe(null);
    expect(r.call("sleep", -5)).toBe(null);
    expect(r.call("sleep", "10")).toBe(null);
    const p = r.callP("sleep", 5);
    expect(p).toBeInstanceOf(Promise);
    expect(await settle(p)).toBe(null);
  });
  it("ends with the abort reason when the task is cancelled", async () => {
    const r = rig();
    const { HarnError, HDuration } = await import("@harn/vm");
    const p = r.callP("sleep", new HDuration(60_000));
    r.abort.abort(HarnError.thrown("Deadline exceeded"));
    expect((await raised(() => p)).caughtValue()).toBe("Deadline exceeded");
    const r2 = rig();
    const p2 = r2.callP("sleep", 60_000);
    r2.abort.abort();
    expect((await raised(() => p2)).caughtValue()).toBe("kind:cancelled:VM cancelled by host");
  });
});
