import { describe, expect, it } from "vitest";
import { display, equals, HDict, HFloat, HSet, type Value } from "@harn/vm";
import { raised, rig } from "../core/harness";

const r = rig();
const d = (o: Record<string, Value>) => HDict.of(o);
const show = (v: Value) => display(v);

async function thrownText(fn: () => Value): Promise<string> {
  const e = await raised(fn);
  expect(e.kind).toBe("thrown");
  return e.caughtValue() as string;
}

describe("yaml", () => {
  // The YAML library loads on first use, so these builtins answer
  // asynchronously (the evaluator awaits them like any suspending builtin).
  it("parses with ints, floats and YAML 1.2 scalars", async () => {
    const v = await r.callP("yaml_parse", "name: app\nport: 8080\nratio: 1.0\nbig: 9223372036854775807\nflag: yes\non: true\nnone: ~\nlist:\n  - a\n  - 2\n");
    expect(show(v)).toBe("{big: 9223372036854775807, flag: yes, list: [a, 2], name: app, none: nil, on: true, port: 8080, ratio: 1.0}");
    expect(typeof (v as HDict).get("port")).toBe("number");
    expect((v as HDict).get("ratio")).toBeInstanceOf(HFloat);
  });
  it("reports parse errors", async () => {
    expect(await thrownText(() => r.callP("yaml_parse", "a: [1, 2") as Value)).toMatch(/^YAML parse error: /);
    // one line that ends with the position, not with the colon that
    // introduced the library's source excerpt
    const text = await thrownText(() => r.callP("yaml_parse", "a: [1, 2\nb: 3") as Value);
    expect(text).toMatch(/^YAML parse error: .* at line 2, column 1$/);
  });
  it("stringifies in serde_yaml's layout", async () => {
    expect(await r.callP("yaml_stringify", d({ b: ["x", "true", "1"], a: 1, f: new HFloat(2), e: d({}), s: new HSet([1, 2]), n: null }))).toBe(
      "a: 1\nb:\n- x\n- 'true'\n- '1'\ne: {}\nf: 2.0\nn: null\ns:\n- 1\n- 2\n",
    );
  });
});

describe("toml", () => {
  it("parses tables, arrays, ints, floats and dates", () => {
    const v = r.call("toml_parse", 'title = "T"\nn = 3\nx = 1.0\nwhen = 1979-05-27T07:32:00Z\n[server]\nports = [80, 443]\n[[items]]\nid = 1\n[[items]]\nid = 2\n');
    expect(show(v)).toBe("{items: [{id: 1}, {id: 2}], n: 3, server: {ports: [80, 443]}, title: T, when: 1979-05-27T07:32:00Z, x: 1.0}");
  });
  it("reports parse errors with a position", async () => {
    expect(await thrownText(() => r.call("toml_parse", "a = "))).toMatch(/^TOML parse error: .* at line 1, column \d+$/);
  });
  it("stringifies like the toml crate", () => {
    const v = d({ title: "T", n: 3, x: new HFloat(1), tags: ["a", "b"], server: d({ host: "h", port: 80 }), items: [d({ id: 1 }), d({ id: 2 })], "odd key": true });
    expect(r.call("toml_stringify", v)).toBe(
      'n = 3\n"odd key" = true\ntags = ["a", "b"]\ntitle = "T"\nx = 1.0\n\n[[items]]\nid = 1\n\n[[items]]\nid = 2\n\n[server]\nhost = "h"\nport = 80\n',
    );
  });
  it("rejects non-table roots and nil values", async () => {
    expect(await thrownText(() => r.call("toml_stringify", [1]))).toBe("toml_stringify: expected a dict at the root, got list");
    expect(await thrownText(() => r.call("toml_stringify", d({ a: null })))).toBe("toml_stringify: unsupported nil value");
  });
  it("round-trips through parse", () => {
    const v = d({ a: 1, b: d({ c: [1, 2], d: d({ e: "x" }) }) });
    expect(show(r.call("toml_parse", r.call("toml_stringify", v)))).toBe(show(v));
  });
});

describe("json pointer", () => {
  const doc = d({ a: d({ "b/c": [10, 20], "m~n": 1 }), list: [d({ x: 1 })] });
  it("looks up values", () => {
    expect(r.call("json_pointer", doc, "")).toBe(doc);
    expect(r.call("json_pointer", doc, "/a/b~1c/1")).toBe(20);
    expect(r.call("json_pointer", doc, "/a/m~0n")).toBe(1);
    expect(r.call("json_pointer", doc, "/list/01")).toBeNull();
    expect(r.call("json_pointer", doc, "/nope/x")).toBeNull();
  });
  it("sets and deletes on copies", () => {
    expect(show(r.call("json_pointer_set", doc, "/list/-", 5))).toBe("{a: {b/c: [10, 20], m~n: 1}, list: [{x: 1}, 5]}");
    expect(show(r.call("json_pointer_set", doc, "/list/0/x", 9))).toBe("{a: {b/c: [10, 20], m~n: 1}, list: [{x: 9}]}");
    expect(r.call("json_pointer_set", doc, "/missing/deep", 1)).toBe(doc);
    expect(r.call("json_pointer_set", doc, "", 7)).toBe(7);
    expect(show(r.call("json_pointer_delete", doc, "/a"))).toBe("{list: [{x: 1}]}");
    expect(r.call("json_pointer_delete", doc, "")).toBeNull();
    expect(show(doc)).toBe("{a: {b/c: [10, 20], m~n: 1}, list: [{x: 1}]}");
  });
  it("reports bad pointers", async () => {
    expect(await thrownText(() => r.call("json_pointer", doc, "a"))).toBe("json_pointer: pointer must be empty or start with '/'");
    expect(await thrownText(() => r.call("json_pointer", doc, "/a~2"))).toBe("json_pointer: invalid escape '~2' in pointer");
    expect(await thrownText(() => r.call("json_pointer_set", doc, "/a~", 1))).toBe("json_pointer_set: dangling '~' in pointer");
    expect(await thrownText(() => r.call("json_pointer_set", doc, "/a"))).toBe("json_pointer_set requires 3 arguments");
  });
});

describe("jq", () => {
  const doc = d({ items: [d({ name: "a", done: true, n: 1 }), d({ name: "b", done: false, n: 5 }), d({ name: "c", done: false, n: 3 })], meta: d({ "the key": "v" }) });
  it("supports the documented subset", () => {
    expect(r.call("jq", doc, ".items[].name")).toEqual(["a", "b", "c"]);
    expect(r.call("jq", doc, ".items | length")).toEqual([3]);
    expect(r.call("jq", doc, '.meta."the key"')).toEqual(["v"]);
    expect(r.call("jq", doc, '.meta["the key"]')).toEqual(["v"]);
    expect(r.call("jq", doc, ".items[1:3] | map(.name)")).toEqual([["b", "c"]]);
    expect(r.call("jq", doc, ".items[] | select(not .done) | .name")).toEqual(["b", "c"]);
    expect(r.call("jq", doc, ".items[] | select(.n > 2 and .done == false) | .n")).toEqual([5, 3]);
    expect(show(r.call("jq", doc, ".items[0] | {name: .name, twice: .n}"))).toBe("[{name: a, twice: 1}]");
    expect(r.call("jq", doc, "keys")).toEqual([["items", "meta"]]);
    expect(r.call("jq", doc, ".items[0].name, .items[-1].name")).toEqual(["a", "c"]);
    expect(r.call("jq", doc, ".meta | type")).toEqual(["object"]);
    expect(r.call("jq", d({ a: d({ b: 1 }) }), "..")).toHaveLength(3);
    expect(r.call("jq", d({ x: null }), ".x == null")).toEqual([true]);
    expect(r.call("jq_first", doc, ".items[].n")).toBe(1);
    expect(r.call("jq_first", doc, ".items[] | select(.n > 100)")).toBeNull();
  });
  it("errors are thrown strings", async () => {
    expect(await thrownText(() => r.call("jq", 5, ".[]"))).toBe("jq: cannot iterate over number");
    expect(await thrownText(() => r.call("jq", doc, "frobnicate"))).toBe("jq: frobnicate/0 is not defined");
  });
});

describe("csv", () => {
  it("parses quoted fields and headers", () => {
    expect(r.call("csv_parse", 'a,b\n1,"x, ""y"""\r\n2,\n')).toEqual([
      ["a", "b"],
      ["1", 'x, "y"'],
      ["2", ""],
    ]);
    expect(show(r.call("csv_parse", "name;age\nAda;36\n", d({ headers: true, delimiter: ";" })))).toBe("[{age: 36, name: Ada}]");
  });
  it("header rows give the dicts a key-by-key build gives (distinct, repeated and wide headers)", () => {
    const cases = ["z,a,é,\n1,2,3,4\n5,6,7,8\n", "k,v,k\n1,2,3\n4,5,6\n", Array.from({ length: 20 }, (_, i) => `c${i}`).join(",") + "\n" + Array.from({ length: 20 }, (_, i) => `${i}`).join(",") + "\n"];
    for (const text of cases) {
      const rows = r.call("csv_parse", text, d({ headers: true })) as HDict[];
      const [head, ...rest] = r.call("csv_parse", text) as string[][];
      const want = rest.map((row) => new HDict(new Map(head!.map((h, i) => [h, row[i]!] as [string, Value]))));
      expect(rows).toHaveLength(want.length);
      rows.forEach((row, i) => {
        expect(show(row)).toBe(show(want[i]!));
        expect(row.keys()).toEqual(want[i]!.keys());
        expect(equals(row, want[i]!)).toBe(true);
        for (const k of [...head!, "missing"]) expect(row.get(k)).toEqual(want[i]!.get(k));
      });
    }
    expect(show(r.call("csv_parse", "k,v,k\n1,2,3\n", d({ headers: true })))).toBe("[{k: 3, v: 2}]");
  });
  it("skips blank lines and lets an unclosed quote run to the end, as the csv crate does", () => {
    expect(r.call("csv_parse", "a,b\n\n1,2\r\n\r\n\n")).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
    expect(r.call("csv_parse", 'a,"b\nc')).toEqual([["a", "b\nc"]]);
    expect(r.call("csv_parse", '"a"b,c')).toEqual([["ab", "c"]]);
  });
  it("rejects ragged records", async () => {
    expect(await thrownText(() => r.call("csv_parse", "é,b\n1,2\n\n3\n"))).toBe(
      "csv_parse: CSV error: record 2 (line: 3, byte: 9): found record with 1 fields, but the previous record has 2 fields",
    );
    expect(await thrownText(() => r.call("csv_parse", "a,b\n1\n"))).toBe("csv_parse: CSV error: record 1 (line: 2, byte: 4): found record with 1 fields, but the previous record has 2 fields");
  });
  it("stringifies rows, quoting only when needed", async () => {
    expect(r.call("csv_stringify", [["a", "b"]])).toBe("a,b\n");
    expect(r.call("csv_stringify", [["x,y", 'q"'], [1, null]])).toBe('"x,y","q"""\n1,\n');
    expect(r.call("csv_stringify", [d({ b: 2, a: 1 }), d({ c: 3 })], d({ headers: true }))).toBe("a,b,c\n1,2,\n,,3\n");
    expect(await thrownText(() => r.call("csv_stringify", "x"))).toBe("csv_stringify: expected a list of rows");
    expect(await thrownText(() => r.call("csv_stringify", [d({}), []]))).toBe("csv_stringify: mixed list/dict rows are not supported");
  });
});

describe("urls and query strings", () => {
  it("parses and builds URLs", async () => {
    expect(show(r.call("url_parse", "https://u:p@example.com:8443/a/b?x=1&y=2#top"))).toBe(
      "{fragment: top, host: example.com, password: p, path: /a/b, port: 8443, query: x=1&y=2, scheme: https, username: u}",
    );
    expect(show(r.call("url_parse", "http://example.com"))).toBe(
      "{fragment: nil, host: example.com, password: nil, path: /, port: nil, query: nil, scheme: http, username: nil}",
    );
    expect(await thrownText(() => r.call("url_parse", "not a url"))).toBe("url_parse: relative URL without a base");
    expect(r.call("url_build", d({ scheme: "https", host: "h.test", port: 8080, path: "x", query: d({ q: "a b" }), fragment: "f" }))).toBe(
      "https://h.test:8080/x?q=a+b#f",
    );
    expect(await thrownText(() => r.call("url_build", d({ host: "h" })))).toBe("url_build: 'scheme' is required");
  });
  it("parses and stringifies query strings", async () => {
    expect(show(r.call("query_parse", "?a=1&b=x+y&c=%26"))).toBe("[{key: a, value: 1}, {key: b, value: x y}, {key: c, value: &}]");
    expect(r.call("query_stringify", [d({ key: "q", value: "a b" }), d({ key: "n", value: 1 })])).toBe("q=a+b&n=1");
    expect(await thrownText(() => r.call("query_stringify", d({})))).toBe("query_stringify: expected a list of {key, value} dicts");
    expect(await thrownText(() => r.call("query_stringify", [1]))).toBe("query_stringify: each item must be a {key, value} dict");
  });
});

describe("store", () => {
  it("persists JSON values in .harn/store.json under the project root", async () => {
    const { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const root = mkdtempSync(join(tmpdir(), "harn-store-"));
    try {
      writeFileSync(join(root, "harn.toml"), "");
      const env = { ...process.env, HARN_STATE_DIR: undefined };
      const a = rig({ cwd: root, env });
      expect(a.call("store_get", "k")).toBeNull();
      expect(existsSync(join(root, ".harn", "store.json"))).toBe(false);
      a.call("store_set", "k", d({ n: 1, f: new HFloat(1.5) }));
      a.call("store_set", "b", [1, 2]);
      expect(readFileSync(join(root, ".harn", "store.json"), "utf8")).toBe('{"b":[1,2],"k":{"f":1.5,"n":1}}');
      expect(a.call("store_list")).toEqual(["b", "k"]);
      const b = rig({ cwd: root, env });
      expect(show(b.call("store_get", "k"))).toBe("{f: 1.5, n: 1}");
      b.call("store_delete", "k");
      expect(b.call("store_list")).toEqual(["b"]);
      b.call("store_clear");
      expect(readFileSync(join(root, ".harn", "store.json"), "utf8")).toBe("{}");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
  it("called from a std module's code, uses the script's store, not a directory named after the module", async () => {
    const { mkdtempSync, readFileSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const root = mkdtempSync(join(tmpdir(), "harn-store-"));
    try {
      const a = rig({ cwd: root, env: { ...process.env, HARN_STATE_DIR: undefined } });
      const fromStd = { ...a.ctx, sourceFile: "std/collections" };
      a.rt.builtins.get("store_set")!(["k_ts", 5], fromStd);
      expect(readFileSync(join(root, ".harn", "store.json"), "utf8")).toBe('{"k_ts":5}');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
  it("keeps failing on a store.json it cannot read, never overwriting it", async () => {
    const { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const root = mkdtempSync(join(tmpdir(), "harn-store-"));
    try {
      mkdirSync(join(root, ".harn"));
      const file = join(root, ".harn", "store.json");
      writeFileSync(file, '{"precious": 1,');
      const a = rig({ cwd: root, env: { ...process.env, HARN_STATE_DIR: join(root, ".harn") } });
      const notJson = `Runtime error: store: ${file} is not valid JSON`;
      expect((await raised(() => a.call("store_get", "precious"))).description()).toBe(notJson);
      expect((await raised(() => a.call("store_set", "k", 1))).description()).toBe(notJson);
      expect(readFileSync(file, "utf8")).toBe('{"precious": 1,');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
