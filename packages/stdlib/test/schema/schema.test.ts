import { describe, expect, it } from "vitest";
import { display, HDict, HFloat, HSet, HStruct, type Value } from "@harn/vm";
import { raised, rig } from "../core/harness";

const r = rig();
const d = (o: Record<string, Value>) => HDict.of(o);
const show = (v: Value) => display(v);

async function thrownText(fn: () => Value): Promise<string> {
  const e = await raised(fn);
  expect(e.kind).toBe("thrown");
  return e.caughtValue() as string;
}

const user = d({
  type: "dict",
  properties: d({
    id: d({ type: "int", min: 1 }),
    name: d({ type: "string", min_length: 2, max_length: 5 }),
    tags: d({ type: "list", items: d({ type: "string" }), max_items: 2 }),
    role: d({ type: "string", enum: ["admin", "user"], default: "user" }),
  }),
  required: ["id", "name", "role"],
});

describe("schema_check", () => {
  it("is Ok(value) when valid", () => {
    expect(show(r.call("schema_check", d({ id: 1, name: "Ada", role: "user" }), user))).toBe("Result.Ok({id: 1, name: Ada, role: user})");
  });
  it("collects every error in document order with locations", () => {
    const res = r.call("schema_check", d({ id: 0, name: "X", tags: ["a", 2, "c"], extra: true }), user);
    expect(show(res)).toBe(
      "Result.Err({errors: [at root: missing required key 'role', at id: expected value >= 1, got 0, at name: expected length >= 2, got 1, at tags: expected at most 2 items, got 3, at tags[1]: expected type 'string', got 'int'], message: at root: missing required key 'role', value: {extra: true, id: 0, name: X, tags: [a, 2, c]}})",
    );
  });
  it("reports a bad schema without a value", () => {
    expect(show(r.call("schema_check", 1, "int"))).toBe("Result.Err({errors: [schema must be a dict], message: schema must be a dict})");
  });
});

describe("schema_parse", () => {
  it("applies defaults and skips required keys that have one", () => {
    expect(show(r.call("schema_parse", d({ id: 2, name: "Bob" }), user))).toBe("Result.Ok({id: 2, name: Bob, role: user})");
  });
  it("fills nested defaults", () => {
    const s = d({ type: "dict", properties: d({ cfg: d({ type: "dict", properties: d({ n: d({ type: "int", default: 3 }) }) }) }) });
    expect(show(r.call("schema_parse", d({ cfg: d({}) }), s))).toBe("Result.Ok({cfg: {n: 3}})");
  });
});

describe("rules", () => {
  const msgs = (v: Value, s: Value) => {
    const res = r.call("schema_check", v, s) as { variant: string; fields: Value[] };
    return res.variant === "Ok" ? [] : ((res.fields[0] as HDict).get("errors") as string[]);
  };
  it("types are strict; any matches; structs are dicts", () => {
    expect(msgs(1, d({ type: "float" }))).toEqual(["at root: expected type 'float', got 'int'"]);
    expect(msgs(new HFloat(1), d({ type: "int" }))).toEqual(["at root: expected type 'int', got 'float'"]);
    expect(msgs("x", d({ type: "any" }))).toEqual([]);
    expect(msgs(new HStruct("P", new Map([["x", 1]])), d({ type: "dict", required: ["x"] }))).toEqual([]);
    expect(msgs(new HSet([1]), d({ type: "set", items: d({ type: "int" }) }))).toEqual([]);
  });
  it("nullable, const, enum, pattern", () => {
    expect(msgs(null, d({ type: "string", nullable: true }))).toEqual([]);
    expect(msgs(2, d({ const: 3 }))).toEqual(["at root: expected constant 3, got 2"]);
    expect(msgs("red", d({ type: "string", enum: ["green", "blue"] }))).toEqual(["at root: value must be one of [green, blue]"]);
    expect(msgs("abc", d({ type: "string", pattern: "^\\d+$" }))).toEqual(["at root: value does not match pattern '^\\d+$'"]);
    expect(msgs("café", d({ type: "string", pattern: "^\\w+$" }))).toEqual([]);
    expect(msgs("a", d({ type: "string", pattern: "(" }))[0]).toMatch(/^at root: invalid regex pattern '\(': regex parse error/);
  });
  it("union, all_of, additional properties", () => {
    const u = d({ union: [d({ type: "int" }), d({ type: "string" })] });
    expect(msgs("s", u)).toEqual([]);
    expect(msgs(true, u)).toEqual(["at root: value did not match any union branch"]);
    expect(msgs(5, d({ all_of: [d({ type: "int" }), d({ max: 3 })] }))).toEqual(["at root: expected value <= 3, got 5"]);
    expect(msgs(d({ a: 1, b: 2, c: 3 }), d({ type: "dict", properties: d({ a: d({}) }), additional_properties: false }))).toEqual([
      "at root: unexpected key 'b'",
      "at root: unexpected key 'c'",
    ]);
    expect(msgs(d({ a: "x" }), d({ type: "dict", additional_properties: d({ type: "int" }) }))).toEqual(["at a: expected type 'int', got 'string'"]);
  });
  it("numbers print in plain formatting", () => {
    expect(msgs(new HFloat(-1.5), d({ type: "float", min: 0 }))).toEqual(["at root: expected value >= 0, got -1.5"]);
    expect(msgs(-1, d({ min: new HFloat(0) }))).toEqual(["at root: expected value >= 0, got -1"]);
  });
  it("paths at the root of a list use brackets", () => {
    expect(msgs([1, "x"], d({ type: "list", items: d({ type: "int" }) }))).toEqual(["at [1]: expected type 'int', got 'string'"]);
    expect(msgs(d({ a: d({ b: [d({ c: 1 })] }) }), d({ properties: d({ a: d({ properties: d({ b: d({ items: d({ properties: d({ c: d({ type: "string" }) }) }) }) }) }) }) }))).toEqual([
      "at a.b[0].c: expected type 'string', got 'int'",
    ]);
  });
  it("accepts JSON Schema spellings and $ref", () => {
    const js = d({
      type: "object",
      properties: d({ n: d({ type: "integer", minimum: 1 }), s: d({ type: ["string", "null"], maxLength: 2 }), item: d({ $ref: "#/definitions/Item" }) }),
      required: ["n"],
      additionalProperties: false,
      definitions: d({ Item: d({ type: "object", required: ["id"] }) }),
    });
    expect(msgs(d({ n: 1, s: null, item: d({ id: 1 }) }), js)).toEqual([]);
    expect(msgs(d({ n: 0, s: "abc", item: d({}), z: 1 }), js)).toEqual([
      "at item: missing required key 'id'",
      "at n: expected value >= 1, got 0",
      "at s: expected length <= 2, got 3",
      "at root: unexpected key 'z'",
    ]);
  });
});

describe("other builtins", () => {
  it("schema_is / is_type / json_validate / schema_expect", async () => {
    expect(r.call("schema_is", 1, d({ type: "int" }))).toBe(true);
    expect(r.call("is_type", "1", d({ type: "int" }))).toBe(false);
    expect(await thrownText(() => r.call("schema_is", 1, 2))).toBe("schema must be a dict");
    expect(r.call("json_validate", d({ id: 1, title: "t" }), d({ required: ["id"] }))).toBe(true);
    expect(await thrownText(() => r.call("json_validate", d({ title: 1 }), d({ required: ["id"], properties: d({ title: d({ type: "string" }) }) })))).toBe(
      "at root: missing required key 'id'; at title: expected type 'string', got 'int'",
    );
    expect(show(r.call("schema_expect", d({}), d({ properties: d({ a: d({ default: 1 }) }) }), true))).toBe("{a: 1}");
    expect(await thrownText(() => r.call("schema_expect", 1))).toBe("schema_expect requires 2 arguments");
  });
  it("schema_of passes dicts through and rejects other values", async () => {
    const s = d({ type: "int" });
    expect(r.call("schema_of", s)).toBe(s);
    expect(await thrownText(() => r.call("schema_of", 3))).toBe("schema_of: expected a type alias or schema dict, got int");
  });
  it("converts to JSON Schema and OpenAPI", () => {
    const s = d({
      type: "dict",
      properties: d({ n: d({ type: "int", min: 0 }), s: d({ type: "string", nullable: true }), tags: d({ type: "set", items: d({ type: "string" }) }) }),
      required: ["n"],
      additional_properties: false,
    });
    expect(show(r.call("schema_to_json_schema", s))).toBe(
      "{additionalProperties: false, properties: {n: {minimum: 0, type: integer}, s: {type: [string, null]}, tags: {items: {type: string}, type: array, uniqueItems: true}}, required: [n], type: object}",
    );
    expect(show(r.call("schema_to_openapi_schema", d({ union: [d({ type: "int" }), d({ type: "nil" })] })))).toBe("{nullable: true, type: integer}");
    expect(show(r.call("schema_from_json_schema", d({ type: "array", items: d({ type: "number" }), minItems: 1 })))).toBe(
      "{items: {type: float}, min_items: 1, type: list}",
    );
  });
  it("extends, partials, picks and omits", async () => {
    expect(show(r.call("schema_extend", d({ type: "dict", a: 1 }), d({ a: 2 })))).toBe("{a: 2, type: dict}");
    expect(show(r.call("schema_partial", user))).not.toContain("required");
    expect(show(r.call("schema_pick", user, ["id", "role"]))).toBe(
      "{properties: {id: {min: 1, type: int}, role: {default: user, enum: [admin, user], type: string}}, required: [id, role], type: dict}",
    );
    expect(show((r.call("schema_omit", user, ["id", "tags", "role"]) as HDict).get("required"))).toBe("[name]");
    expect(await thrownText(() => r.call("schema_pick", user, "id"))).toBe("schema_pick: keys must be a list");
  });
});

describe("type alias lowering (runtime.typeSchema)", async () => {
  const { parse } = await import("@harn/parser");
  const aliases = (src: string) => {
    const prog = parse(src).program as unknown as { items: { kind: string; name: string; type: unknown }[] };
    const table = new Map(prog.items.filter((n) => n.kind === "TypeDecl").map((n) => [n.name, n.type]));
    return (name: string) => (table.get(name) ?? null) as never;
  };
  const lower = (src: string, name: string) => {
    const lookup = aliases(src);
    const t = lookup(name);
    return show(r.rt.typeSchema!(t, lookup));
  };
  it("follows the spec's rules", () => {
    const src = `type User = {name: string, age?: int, tags: list<string>, meta: dict<string, float>}
type Color = "red" | "green"
type Code = 1 | 2
type Mixed = int | string | nil
type Callback = fn(int) -> string
type Just = "x"
type Ref = User
type Opt = {a?: int}`;
    expect(lower(src, "User")).toBe(
      "{properties: {age: {type: int}, meta: {additional_properties: {type: float}, type: dict}, name: {type: string}, tags: {items: {type: string}, type: list}}, required: [name, tags, meta], type: dict}",
    );
    expect(lower(src, "Color")).toBe("{enum: [red, green], type: string}");
    expect(lower(src, "Code")).toBe("{enum: [1, 2], type: int}");
    expect(lower(src, "Mixed")).toBe("{union: [{type: int}, {type: string}, {type: nil}]}");
    expect(lower(src, "Callback")).toBe("{type: closure}");
    expect(lower(src, "Just")).toBe("{const: x, type: string}");
    expect(lower(src, "Ref")).toContain("required: [name, tags, meta]");
    expect(lower(src, "Opt")).toBe("{properties: {a: {type: int}}, type: dict}");
  });
});
