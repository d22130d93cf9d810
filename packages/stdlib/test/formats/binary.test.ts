import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { display, HBytes, HDict, type Value } from "@harn/vm";
import { raised, rig, settle } from "../core/harness";

const r = rig();
const d = (o: Record<string, Value>) => HDict.of(o);
const show = (v: Value) => display(v);
const text = (v: Value) => Buffer.from((v as HBytes).data).toString("utf8");

async function thrownText(fn: () => Value): Promise<string> {
  const e = await raised(fn);
  expect(e.kind).toBe("thrown");
  return e.caughtValue() as string;
}

describe("compression", () => {
  it("round-trips gzip and brotli; decoders need bytes", async () => {
    const gz = r.call("gzip_encode", "hello hello hello", 9) as HBytes;
    expect([gz.data[0], gz.data[1]]).toEqual([0x1f, 0x8b]);
    expect(text(r.call("gzip_decode", gz))).toBe("hello hello hello");
    expect(text(r.call("brotli_decode", r.call("brotli_encode", "abc")))).toBe("abc");
    expect(await thrownText(() => r.call("gzip_decode", "x"))).toBe("gzip_decode: expected bytes, got string");
    expect(await thrownText(() => r.call("gzip_decode", new HBytes(new Uint8Array([1, 2, 3]))))).toMatch(/^gzip_decode: /);
  });
  it("zstd round-trips on every Node", async () => {
    expect(text(r.call("zstd_decode", await settle(r.callP("zstd_encode", "x"))))).toBe("x");
  });
});

describe("archives", () => {
  const entries = [d({ path: "a.txt", content: "alpha" }), d({ path: "dir/b.bin", content: new HBytes(new Uint8Array([0, 1, 2, 255])), mode: 0o755 })];
  it("round-trips tar and zip", () => {
    for (const [create, extract] of [
      ["tar_create", "tar_extract"],
      ["zip_create", "zip_extract"],
    ]) {
      const out = r.call(extract!, r.call(create!, entries)) as HDict[];
      expect(out.map((e) => `${e.get("path")} ${show(e.get("content"))} ${(e.get("mode") as number).toString(8)}`)).toEqual(["a.txt b\"616c706861\" 644", "dir/b.bin b\"000102ff\" 755"]);
    }
  });
  it("writes archives the system tools can read", () => {
    const dir = mkdtempSync(join(tmpdir(), "harn-archive-"));
    try {
      writeFileSync(join(dir, "x.tar"), (r.call("tar_create", entries) as HBytes).data);
      expect(execFileSync("tar", ["-tf", join(dir, "x.tar")], { encoding: "utf8" }).trim().split("\n")).toEqual(["a.txt", "dir/b.bin"]);
      execFileSync("tar", ["-xf", join(dir, "x.tar"), "-C", dir]);
      expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("alpha");
      // and read archives they wrote
      const sys = execFileSync("tar", ["-cf", "-", "-C", dir, "a.txt"]);
      expect((r.call("tar_extract", new HBytes(new Uint8Array(sys))) as HDict[]).map((e) => e.get("path"))).toEqual(["a.txt"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("rejects bad input", async () => {
    expect(await thrownText(() => r.call("zip_extract", new HBytes(new Uint8Array([1, 2, 3]))))).toBe("zip_extract: not a zip archive (no end of central directory)");
    expect(await thrownText(() => r.call("tar_create", "x"))).toMatch(/^tar_create: expected a list/);
  });
});

describe("parse_junit_xml", () => {
  it("reads cases in document order with statuses and messages", () => {
    const xml = `<?xml version="1.0"?>
<testsuites><testsuite name="s">
  <testcase classname="pkg.A" name="ok" time="0.250"/>
  <testcase name="bad" time="1.5"><failure message="expected &lt;1&gt;">  trace line  </failure><system-out> hi </system-out></testcase>
  <testcase name="boom"><error message="crash"/><system-err>err</system-err></testcase>
  <testcase name="skip" time="-1"><skipped/></testcase>
  <testcase name="textonly"><failure><![CDATA[raw <text>]]></failure></testcase>
</testsuite></testsuites>`;
    const out = r.call("parse_junit_xml", xml) as HDict[];
    expect(out.map(show)).toEqual([
      "{duration_ms: 250, message: nil, name: pkg.A::ok, status: passed, stderr: nil, stdout: nil}",
      "{duration_ms: 1500, message: expected <1>\ntrace line, name: bad, status: failed, stderr: nil, stdout: hi}",
      "{duration_ms: 0, message: crash, name: boom, status: errored, stderr: err, stdout: nil}",
      "{duration_ms: 0, message: nil, name: skip, status: skipped, stderr: nil, stdout: nil}",
      "{duration_ms: 0, message: raw <text>, name: textonly, status: failed, stderr: nil, stdout: nil}",
    ]);
    expect(r.call("parse_junit_xml", "<testsuite/>")).toEqual([]);
    expect(r.call("parse_junit_xml", new HBytes(new Uint8Array([0xff, 0xfe])))).toEqual([]);
  });
});

describe("multipart", () => {
  it("builds a deterministic body and parses it back", () => {
    const form = r.call("multipart_form_data", [d({ name: "title", value: "Hi" }), d({ name: "file", filename: "a.txt", content: "line1\nline2", content_type: "text/plain" })], d({ boundary: "XyZ" })) as HDict;
    expect(form.get("content_type")).toBe("multipart/form-data; boundary=XyZ");
    expect(text(form.get("body"))).toBe(
      '--XyZ\r\nContent-Disposition: form-data; name="title"\r\n\r\nHi\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nline1\nline2\r\n--XyZ--\r\n',
    );
    const parsed = r.call("multipart_parse", form.get("body"), form.get("content_type")) as HDict;
    expect(parsed.get("field_count")).toBe(2);
    const [title, file] = parsed.get("fields") as HDict[];
    expect(r.call("multipart_field_text", title!)).toBe("Hi");
    expect(show(file!.get("filename"))).toBe("a.txt");
    expect(file!.get("content_type")).toBe("text/plain");
    expect(text(r.call("multipart_field_bytes", file!))).toBe("line1\nline2");
  });
});

describe("secret_scan", () => {
  it("finds credential-like strings without echoing them", () => {
    const found = r.call("secret_scan", "ok\nkey = AKIAABCDEFGHIJKLMNOP\npassword: hunter2hunter2\n") as HDict[];
    expect(found.map(show)).toEqual(["{column: 7, kind: aws_access_key_id, line: 2, redacted: AKIA****}", "{column: 1, kind: generic_secret, line: 3, redacted: pass****}"]);
    expect(r.call("secret_scan", "nothing here")).toEqual([]);
  });
});
