import { describe, expect, it } from "vitest";
import { parse } from "@harn/parser";
import { display, HDict, HFloat, type Value } from "@harn/vm";
import { fn, raised, rig, settle } from "../core/harness";

const r = rig();
const d = (o: Record<string, Value>) => HDict.of(o);
const f = (x: number) => new HFloat(x);
const show = (v: Value) => display(v);
const m = (name: string, ...args: Value[]) => r.call(`__std_math_${name}`, ...args);

async function thrownText(call: () => Value | Promise<Value>): Promise<string> {
  const e = await raised(call);
  expect(e.kind).toBe("thrown");
  return e.caughtValue() as string;
}

describe("bundled module sources", () => {
  it("every std module parses", () => {
    expect(r.rt.stdModules.size).toBeGreaterThanOrEqual(10);
    for (const [name, source] of r.rt.stdModules) {
      const res = parse(source);
      expect(res.errors.map((e) => `${name}: ${JSON.stringify(e)}`)).toEqual([]);
    }
  });
  it("std/math exports wrappers for the native functions", () => {
    const src = r.rt.stdModules.get("std/math")!;
    expect(src).toContain("pub fn variance(xs, sample = false) {\n  return __std_math_variance(xs, sample)\n}");
    expect(src).toContain("pub fn mean(xs)");
  });
});

describe("std/math", () => {
  it("basic helpers", () => {
    expect(m("clamp", 15, 0, 10)).toBe(10);
    expect(m("clamp", -1, 0, 10)).toBe(0);
    expect(show(m("clamp", f(2.5), 0, 10))).toBe("2.5");
    expect(m("lerp", 0, 10, 1)).toBe(10);
    expect(show(m("lerp", 0, 10, f(0.25)))).toBe("2.5");
    expect(show(m("map_range", 5, 0, 10, 0, 100))).toBe("50.0");
    expect(show(m("deg_to_rad", 180))).toBe(String(Math.PI));
    expect(m("sum", [1, 2, 3])).toBe(6);
    expect(show(m("sum", [1, f(0.5)]))).toBe("1.5");
  });
  it("statistics", () => {
    expect(m("mean", [])).toBe(0);
    expect(show(m("avg", [1, 2]))).toBe("1.5");
    expect(m("median", [3, 1, 2])).toBe(2);
    expect(show(m("median", [4, 1, 2, 3]))).toBe("2.5");
    expect(show(m("percentile", [1, 2, 3, 4, 5], 25))).toBe("2.0");
    expect(show(m("percentile", [10, 20], 50))).toBe("15.0");
    expect(show(m("variance", [2, 4, 4, 4, 5, 5, 7, 9]))).toBe("4.0");
    expect(show(m("stddev", [2, 4, 4, 4, 5, 5, 7, 9]))).toBe("2.0");
    expect(show(m("variance", [1, 2, 3, 4], true))).toBe(String(5 / 3));
  });
  it("ranking and scaling", async () => {
    expect(m("argsort", [30, 10, 20])).toEqual([1, 2, 0]);
    expect(m("argsort", ["bb", "a", "ccc"], fn((x) => (x as string).length))).toEqual([1, 0, 2]);
    expect(m("top_k", [1, 5, 3, 5], 2)).toEqual([5, 5]);
    expect(show(m("minmax_scale", [2, 4, 6]))).toBe("[0.0, 0.5, 1.0]");
    expect(show(m("minmax_scale", [3, 3]))).toBe("[0.0, 0.0]");
    expect(show(m("zscore", [1, 1]))).toBe("[0.0, 0.0]");
    expect(show(m("softmax", [0, 0]))).toBe("[0.5, 0.5]");
    expect(show(m("weighted_mean", [1, 3], [1, 3]))).toBe("2.5");
    expect(show(m("ema", [1, 2, 3], f(0.5)))).toBe("[1.0, 1.5, 2.25]");
    expect(show(m("moving_avg", [1, 2, 3, 4], 2))).toBe("[1.5, 2.5, 3.5]");
  });
  it("distributions", () => {
    expect((m("normal_pdf", 0) as HFloat).v).toBeCloseTo(0.3989422804, 9);
    expect((m("normal_cdf", 0) as HFloat).v).toBeCloseTo(0.5, 8);
    expect((m("normal_cdf", f(1.96)) as HFloat).v).toBeCloseTo(0.975, 3);
    expect((m("normal_quantile", f(0.975)) as HFloat).v).toBeCloseTo(1.959964, 5);
    expect((m("normal_quantile", f(0.5), 10, 2) as HFloat).v).toBeCloseTo(10, 9);
  });
  it("vectors", async () => {
    expect(show(m("dot", [1, 2, 3], [4, 5, 6]))).toBe("32.0");
    expect(show(m("vector_norm", [3, 4]))).toBe("5.0");
    expect(show(m("vector_normalize", [3, 4]))).toBe("[0.6, 0.8]");
    expect(show(m("cosine_similarity", [1, 0], [0, 1]))).toBe("0.0");
    expect(show(m("euclidean_distance", [0, 0], [3, 4]))).toBe("5.0");
    expect(show(m("manhattan_distance", [0, 0], [3, 4]))).toBe("7.0");
    expect(show(m("chebyshev_distance", [0, 0], [3, 4]))).toBe("4.0");
    expect(await thrownText(() => m("dot", [1], [1, 2]))).toBe("vectors must have the same length");
    expect(await thrownText(() => m("vector_normalize", [0, 0]))).toBe("cannot normalize a zero vector");
    expect(await thrownText(() => m("cosine_similarity", [0, 0], [1, 1]))).toBe("cosine similarity requires non-zero vectors");
  });
  it("covariance and correlation", async () => {
    expect(show(m("covariance", [1, 2, 3], [1, 2, 3]))).toBe(String(2 / 3));
    expect(show(m("correlation", [1, 2, 3], [2, 4, 6]))).toBe("1.0");
    expect(await thrownText(() => m("correlation", [1, 1], [1, 2]))).toBe("correlation requires non-constant inputs");
    expect(await thrownText(() => m("covariance", [1], [1], true))).toBe("sample covariance requires at least 2 values");
    expect(await thrownText(() => m("covariance", [1], [1, 2]))).toBe("xs and ys must have the same length");
  });
  it("kmeans on two well-separated pairs", () => {
    const res = m("kmeans", [[0, 0], [0, 1], [10, 10], [10, 11]], 2) as HDict;
    expect(show(res)).toBe(
      "{assignments: [0, 0, 1, 1], centroids: [[0.0, 0.5], [10.0, 10.5]], converged: true, counts: [2, 2], inertia: 1.0, iterations: 2}",
    );
  });
  it("argument errors are thrown strings", async () => {
    expect(await thrownText(() => m("mean", 5))).toBe("items must be a list");
    expect(await thrownText(() => m("mean", [1, "x"]))).toBe("items must contain only numbers");
    expect(await thrownText(() => m("median", []))).toBe("items must not be empty");
    expect(await thrownText(() => m("percentile", [1], 101))).toBe("percentile must be between 0 and 100");
    expect(await thrownText(() => m("variance", [1], true))).toBe("sample variance requires at least 2 values");
    expect(await thrownText(() => m("softmax", [1], 0))).toBe("temperature must be greater than 0");
    expect(await thrownText(() => m("normal_quantile", 1))).toBe("probability must be between 0 and 1");
    expect(await thrownText(() => m("normal_pdf", "a"))).toBe("x must be numeric");
    expect(await thrownText(() => m("top_k", [1], -1))).toBe("k must be non-negative");
    expect(await thrownText(() => m("top_k", [1], f(1.5)))).toBe("k must be an integer");
    expect(await thrownText(() => m("weighted_mean", [1, 2], [1]))).toBe("items and weights must have the same length");
    expect(await thrownText(() => m("weighted_mean", [1], [-1]))).toBe("weights must contain only non-negative numbers");
    expect(await thrownText(() => m("weighted_mean", [1], [0]))).toBe("weights must sum to a positive value");
    expect(await thrownText(() => m("moving_avg", [1], 2))).toBe("window must not exceed the number of items");
    expect(await thrownText(() => m("kmeans", [], 1))).toBe("points must not be empty");
    expect(await thrownText(() => m("kmeans", [[1], [1, 2]], 1))).toBe("all points must have the same dimension");
    expect(await thrownText(() => m("kmeans", [[1]], 2))).toBe("k must not exceed the number of points");
  });
});

describe("std/json, std/text, std/collections, std/schema", () => {
  it("json helpers", () => {
    expect(r.call("__std_json_safe_parse", "{bad")).toBeNull();
    expect(show(r.call("__std_json_safe_parse", '{"a": 1}'))).toBe("{a: 1}");
    expect(show(r.call("__std_json_merge", d({ a: 1, b: 2 }), d({ b: 3 })))).toBe("{a: 1, b: 3}");
    expect(show(r.call("__std_json_pick", d({ a: 1, b: null, c: 3 }), ["a", "b"]))).toBe("{a: 1}");
    expect(show(r.call("__std_json_omit", d({ a: 1, b: 2 }), ["a"]))).toBe("{b: 2}");
    expect(r.call("__std_json_pretty", d({ a: [1] }))).toBe('{"a":[1]}');
  });
  it("text helpers", async () => {
    expect(r.call("__std_text_int_to_string", "42")).toBe("42");
    expect(await thrownText(() => r.call("__std_text_int_to_string", "x"))).toBe("int_to_string expects an integer-compatible value");
    expect(r.call("__std_text_parse_int_or", "x", 7)).toBe(7);
    expect(r.call("__std_text_truncate_head_tail", "1\n2\n3\n4\n5", 1)).toBe("1\n... (3 lines omitted) ...\n5");
    expect(r.call("__std_text_truncate_head_tail", "1\n2", 1)).toBe("1\n2");
    expect(r.call("__std_text_extract_paths", "see src/main.rs and 'lib/util.ts',\n// skip/this.rs\nno paths here.txt")).toEqual(["lib/util.ts", "src/main.rs"]);
    expect(show(r.call("__std_text_parse_cells", "text\n```python\nprint(1)\n```\n```call harn\nrun()\n```"))).toBe(
      "[{code: print(1), lang: python, type: code}, {code: run(), lang: harn, type: call}]",
    );
    expect(r.call("__std_text_has_got_want", "got: 1, want: 2")).toBe(true);
    expect(r.call("__std_text_has_got_want", "got 1, want 2")).toBe(false);
    expect(r.call("__std_text_format_test_errors", "ok\nFAIL x\nfine\nassert y")).toBe("FAIL x\nassert y");
  });
  it("collections and schema builders", () => {
    expect(show(r.call("__std_collections_filter_nil", d({ a: null, b: "", c: "null", d: 0 })))).toBe("{d: 0}");
    const obj = r.call(
      "__std_schema_schema_object",
      d({ id: r.call("__std_schema_schema_int"), nick: r.call("__std_schema_schema_field", r.call("__std_schema_schema_string"), false) }),
    );
    expect(show(obj)).toBe("{properties: {id: {type: int}, nick: {type: string}}, required: [id], type: dict}");
    expect(show(r.call("__std_schema_get_typed_result", d({ id: 1 }), obj))).toBe("Result.Ok({id: 1})");
    expect(show(r.call("__std_schema_schema_list", r.call("__std_schema_schema_int"), d({ min_items: 1 })))).toBe("{items: {type: int}, min_items: 1, type: list}");
  });
});
