import { describe, expect, it } from "vitest";
import { display, float, HBytes, HDict, HFloat, HRange, HStruct, ok, type Value } from "@harn/vm";
import { raised, rig } from "./harness";

describe("json_parse", () => {
  const r = rig();
  const parse = (s: string) => r.call("json_parse", s);

  it("maps numbers to int or float exactly", () => {
    expect(parse("1")).toBe(1);
    expect(parse("9223372036854775807")).toBe(9223372036854775807n);
    expect(parse("-9223372036854775808")).toBe(-9223372036854775808n);
    expect(parse("9223372036854775808")).toBeInstanceOf(HFloat);
    expect(display(parse("1.0"))).toBe("1.0");
    expect(display(parse("1e2"))).toBe("100.0");
    expect(display(parse("-0.5"))).toBe("-0.5");
  });

  it("parses structures; duplicate keys keep the last; surrounding whitespace is fine", () => {
    expect(display(parse(' {"b": [1, true, null], "a": "x\\n\\u00e9\\ud83d\\ude00", "a2": {}} '))).toBe("{a: x\né😀, a2: {}, b: [1, true, nil]}");
    expect(display(parse('{"k": 1, "k": 2}'))).toBe("{k: 2}");
  });

  it("fails with serde_json-style details", async () => {
    const e = async (s: string) => (await raised(() => parse(s))).description();
    expect(await e("x")).toBe("Thrown: JSON parse error: expected value at line 1 column 1");
    expect(await e('{"a": 1')).toBe("Thrown: JSON parse error: EOF while parsing an object at line 1 column 7");
    expect(await e("[1]x")).toBe("Thrown: JSON parse error: trailing characters at line 1 column 4");
    expect(await e("{1: 2}")).toBe("Thrown: JSON parse error: key must be a string at line 1 column 2");
    expect(await e("[1,]")).toBe("Thrown: JSON parse error: trailing comma at line 1 column 4");
    expect(await e("")).toBe("Thrown: JSON parse error: EOF while parsing a value at line 1 column 0");
    expect(await e("[\n  01]")).toBe("Thrown: JSON parse error: invalid number at line 2 column 4");
    expect(await e("NaN")).toContain("JSON parse error: expected value");
    expect(await e("[".repeat(1000))).toBe("Thrown: JSON parse error: recursion limit exceeded at line 1 column 129");
    expect(display(parse("[".repeat(128) + "]".repeat(128)))).toBe("[".repeat(128) + "]".repeat(128));
    expect(await e('["é" x]')).toBe("Thrown: JSON parse error: expected `,` or `]` at line 1 column 7");
    expect(await e("// c\n1")).toContain("JSON parse error:");
  });
});

describe("json_stringify", () => {
  const r = rig();
  const str = (v: Value) => r.call("json_stringify", v);

  it("is compact with sorted keys", () => {
    expect(str(HDict.of({ b: [1, float(2.5)], a: null }))).toBe('{"a":null,"b":[1,2.5]}');
    expect(str(new HStruct("P", new Map<string, Value>([["y", 2], ["x", 1]])))).toBe('{"x":1,"y":2}');
    expect(str(r.call("set", 1, 2))).toBe("[1,2]");
  });

  it("formats floats the Rust plain way", () => {
    expect(str(float(1))).toBe("1");
    expect(str(float(1e21))).toBe("1000000000000000000000");
    expect(str(float(1e-7))).toBe("0.0000001");
    expect(str(float(NaN))).toBe("NaN");
    expect(str(float(-Infinity))).toBe("-inf");
    expect(str(9223372036854775807n)).toBe("9223372036854775807");
  });

  it("escapes only what the reference escapes", () => {
    expect(str('a"b\\c\n\r\t/é')).toBe('"a\\"b\\\\c\\n\\r\\t/é"');
    expect(str("\u001b\b\u007f\u0085")).toBe('"\\u001b\\u0008\\u007f\\u0085"');
  });

  it("ranges as strings, bytes as base64 objects, other kinds as null", () => {
    expect(str(new HRange(1, 3, true))).toBe('"1 to 3"');
    expect(str(new HBytes(new Uint8Array([104, 105])))).toBe('{"$bytes_b64":"aGk="}');
    expect(str(ok(1))).toBe("null");
    expect(str([r.rt.builtins.has("x") ? 1 : null])).toBe("[null]");
  });

  it("round-trips", () => {
    const text = '{"big":9223372036854775807,"f":1.5,"l":[1,"x",true,null],"s":"\\u0001"}';
    expect(str(r.call("json_parse", text))).toBe(text);
  });
});

describe("json_extract", () => {
  const r = rig();
  it("finds fenced, braced and bracketed JSON in prose", () => {
    expect(display(r.call("json_extract", 'Here:\n```json\n{"a": 1}\n```\nbye'))).toBe("{a: 1}");
    expect(display(r.call("json_extract", 'Result is {"a": "}", "b": {"c": 2}} ok'))).toBe("{a: }, b: {c: 2}}");
    expect(display(r.call("json_extract", "list [1, 2] done"))).toBe("[1, 2]");
    expect(r.call("json_extract", '{"a": 5}', "a")).toBe(5);
  });
  it("reports failures as thrown strings", async () => {
    expect((await raised(() => r.call("json_extract", "nothing here"))).description()).toMatch(/^Thrown: json_extract: failed to parse JSON: /);
    expect((await raised(() => r.call("json_extract", "[1]", "a"))).description()).toBe(
      "Thrown: json_extract: parsed value is not a dict, cannot extract key",
    );
    expect((await raised(() => r.call("json_extract", "{}", "a"))).description()).toBe("Thrown: json_extract: key 'a' not found");
    expect((await raised(() => r.call("json_extract"))).description()).toBe("Thrown: json_extract requires at least 1 argument: text");
  });
});
