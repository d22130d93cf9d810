/**
 * Integral floats in JSON from outside the script (provider bodies, stream
 * frames, argument text, mock fixtures) stay floats on their way to Harn
 * values, as serde_json keeps them in the reference.
 */
import { describe, expect, it } from "vitest";
import { display, HFloat, type Value } from "@harn/vm";
import { fromJson, isJsonObject, JsonError, JsonFloat, jsonNumber, parseJsonKeepingFloats, stringifyJsonKeepingFloats, toJson } from "../../src/core/json";
import { num } from "../../src/llm/providers/http";
import { LlmAccumulator, parseArguments } from "../../src/llm";
import { argumentsObject, argumentsString } from "../../src/llm/messages";

const RAW = '{"a": 2.0, "b": 2, "c": 1e3, "d": 2.5, "e": [1.0, 1], "f": -0.0, "g": 1.5e1}';

/** Display and type of every value, in key order. */
function typed(v: Value): string {
  return `${display(v)} ${JSON.stringify(typesOf(v))}`;
}
function typesOf(v: Value): unknown {
  if (Array.isArray(v)) return v.map(typesOf);
  if (v !== null && typeof v === "object" && "keys" in v) return Object.fromEntries([...(v as any).keys()].map((k: string) => [k, typesOf((v as any).get(k))]));
  return v instanceof HFloat ? "float" : typeof v === "number" || typeof v === "bigint" ? "int" : typeof v;
}

describe("parseJsonKeepingFloats", () => {
  it("gives floats where the text has float literals and ints where it has ints", () => {
    expect(typed(fromJson(parseJsonKeepingFloats(RAW)))).toBe(
      '{a: 2.0, b: 2, c: 1000.0, d: 2.5, e: [1.0, 1], f: -0.0, g: 15.0} {"a":"float","b":"int","c":"float","d":"float","e":["float","int"],"f":"float","g":"float"}',
    );
  });

  it("reads text without float literals exactly as JSON.parse does, key order and __proto__ keys included", () => {
    const text = '{"z": 1, "10": [true, null, "x"], "__proto__": {"y": "1.0"}, "a": -3}';
    expect(parseJsonKeepingFloats(text)).toEqual(JSON.parse(text));
    const slow = parseJsonKeepingFloats(text.replace("-3", "-3.0")) as Record<string, unknown>;
    expect(Object.keys(slow)).toEqual(Object.keys(JSON.parse(text)));
    expect(Object.getPrototypeOf(slow)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(slow, "__proto__")).toBe(true);
    expect(slow.a).toBeInstanceOf(JsonFloat);
  });

  it("finds float literals at the start of the text and after any separator, not in ids", () => {
    for (const [text, v] of [["2.0", 2], [" -1e2", -100], ["[1,\n 3.0]", 3], ['{"id": "chatcmpl-9e3", "n": 1}', null]] as const) {
      const got = parseJsonKeepingFloats(text);
      const floats = JSON.stringify(got, (_k, x: unknown) => (x instanceof JsonFloat ? `float ${x.valueOf()}` : x));
      expect(floats.includes(`float ${v}`), text).toBe(v !== null);
    }
  });

  it("keeps a string that looks like a float a string", () => {
    expect(parseJsonKeepingFloats('{"v": "2.0", "n": 3}')).toEqual({ v: "2.0", n: 3 });
  });

  it("fails with serde_json's texts on both paths", () => {
    for (const bad of ['{"a": 1,}', '{"a": 1.0,}', "[1, 2", "2.", ""]) {
      expect(() => parseJsonKeepingFloats(bad)).toThrow(JsonError);
    }
    try {
      parseJsonKeepingFloats('{"a": 1,}');
    } catch (e) {
      expect((e as JsonError).message).toBe("trailing comma at line 1 column 9");
    }
  });
});

describe("stringifyJsonKeepingFloats", () => {
  it("writes markers as float literals and reads back the same values", () => {
    const v = parseJsonKeepingFloats(RAW);
    const text = stringifyJsonKeepingFloats(v);
    expect(text).toBe('{"a":2.0,"b":2,"c":1000.0,"d":2.5,"e":[1.0,1],"f":-0.0,"g":15.0}');
    expect(typed(fromJson(parseJsonKeepingFloats(text)))).toBe(typed(fromJson(v)));
    expect(stringifyJsonKeepingFloats({ big: new JsonFloat(1e21), u: undefined, l: [undefined] })).toBe('{"big":1e21,"l":[null]}');
    // serde_json (ryu) switches to an exponent from 1e16 on
    expect(stringifyJsonKeepingFloats([new JsonFloat(1e15), new JsonFloat(1e16)])).toBe("[1000000000000000.0,1e16]");
  });

  it("lays out indented text exactly as JSON.stringify(v, null, n) does, floats written as floats", () => {
    const plain = { a: [1, { b: [], c: {} }, "x"], d: { e: null, u: undefined }, f: [], g: {}, h: [[2]] };
    expect(stringifyJsonKeepingFloats(plain, 2)).toBe(JSON.stringify(plain, null, 2));
    const marked = { ...plain, a: [new JsonFloat(1), { b: [], c: {} }, "x"] };
    expect(stringifyJsonKeepingFloats(marked, 2)).toBe(JSON.stringify(plain, null, 2).replace("    1,", "    1.0,"));
    expect(stringifyJsonKeepingFloats(marked, 3)).toBe(JSON.stringify(plain, null, 3).replace("      1,", "      1.0,"));
  });

  it("is JSON.stringify when there is no marker, and JSON.stringify writes markers as numbers", () => {
    const plain = { b: 1, a: [2.5, "x", null, { c: true }] };
    expect(stringifyJsonKeepingFloats(plain)).toBe(JSON.stringify(plain));
    expect(JSON.stringify(parseJsonKeepingFloats(RAW))).toBe('{"a":2,"b":2,"c":1000,"d":2.5,"e":[1,1],"f":0,"g":15}');
  });
});

describe("the agent layer's Json values", () => {
  it("round-trip integral floats from script values (toJson → fromJson)", () => {
    const v = fromJson(parseJsonKeepingFloats('{"x": 2.0, "y": [3, 4.0], "z": 0.5}'));
    expect(typed(fromJson(toJson(v)))).toBe(typed(v));
    expect(typed(fromJson(toJson(v)))).toBe('{x: 2.0, y: [3, 4.0], z: 0.5} {"x":"float","y":["int","float"],"z":"float"}');
  });

  it("does not take a marker for an object, and reads it as a number", () => {
    const f = new JsonFloat(3);
    expect(isJsonObject(f)).toBe(false);
    expect(jsonNumber(f)).toBe(3);
    expect(jsonNumber(4)).toBe(4);
    expect(jsonNumber("4")).toBeUndefined();
    expect(num(f)).toBe(3);
    expect(argumentsObject("2.0")).toEqual({ _raw: "2.0" });
    expect(parseArguments("2.0")).toEqual({ _raw: "2.0" });
  });

  it("keeps floats in streamed argument pieces that split the literals", () => {
    const acc = new LlmAccumulator("p", "m");
    acc.push({ kind: "tool_call_start", id: "c1", name: "probe" });
    for (const piece of ['{"a": 2.', '0, "b": 2, "c": 1e', '3, "d": 2.5, "e": [1.', "0, 1]}"]) {
      acc.push({ kind: "tool_call_delta", id: "c1", args_fragment: piece });
    }
    acc.push({ kind: "completed", input_tokens: 1, output_tokens: 1, reasoning_tokens: 0 });
    const call = acc.result().tool_calls[0]!;
    expect(typed(fromJson(call.arguments as never))).toBe(
      '{a: 2.0, b: 2, c: 1000.0, d: 2.5, e: [1.0, 1]} {"a":"float","b":"int","c":"float","d":"float","e":["float","int"]}',
    );
    // and writes them back as floats where the wire wants argument text
    expect(argumentsString(call.arguments)).toBe('{"a":2.0,"b":2,"c":1000.0,"d":2.5,"e":[1.0,1]}');
  });
});
