/**
 * The compact dict layout (`HDict.record`): a shared sorted key array plus
 * one values array per dict, with the `Map` built on first access to `.map`.
 * Every operation on a record must give what the same operation gives on a
 * dict built from a `Map` with the same entries (in any insertion order),
 * before and after the record built its map, and programs must not be able
 * to tell the two apart (under every JIT mode).
 */
import { parse } from "@harn/parser";
import { describe, expect, it } from "vitest";
import { HDict, HFloat, ProgramRunner, Runtime, display, equals, identityKey, truthy, typeOf, type Value } from "../src/index";

const KEYS = HDict.recordKeys("path", "is_dir", "depth", "é", "𝒳", "Z", "");

function entries(i: number): [string, Value][] {
  // insertion order deliberately not the sorted order
  return [
    ["path", `/tmp/p${i}`],
    ["𝒳", [i, new HFloat(0.5)]],
    ["is_dir", i % 2 === 0],
    ["", null],
    ["depth", i],
    ["Z", HDict.of({ inner: i })],
    ["é", "e"],
  ];
}

function recordOf(i: number): HDict {
  const byKey = new Map(entries(i));
  return HDict.record(
    KEYS,
    KEYS.map((k) => byKey.get(k)!),
  );
}

function mapOf(i: number): HDict {
  return new HDict(new Map(entries(i)));
}

/** Everything observable about a dict through its API. */
function observe(d: HDict): unknown {
  const probes = [...KEYS, "missing", "pat", "Path"];
  return {
    size: d.size,
    keys: [...d.keys()],
    values: d.keys().map((_, i) => display(d.valueAt(i))),
    get: probes.map((k) => display(d.get(k))),
    has: probes.map((k) => d.has(k)),
    display: display(d),
    identity: identityKey(d),
    truthy: truthy(d),
    type: typeOf(d),
  };
}

describe("HDict.recordKeys", () => {
  it("sorts the names in code-point order, as keys() returns them", () => {
    expect(KEYS).toEqual(["", "Z", "depth", "is_dir", "path", "é", "𝒳"]);
    expect(KEYS).toEqual(mapOf(0).keys());
  });

  it("rejects a name given twice", () => {
    expect(() => HDict.recordKeys("a", "b", "a")).toThrow(/duplicate key "a"/);
  });
});

describe("a record", () => {
  it("answers every query as the map-built dict does", () => {
    for (const i of [0, 1, 7]) expect(observe(recordOf(i))).toEqual(observe(mapOf(i)));
  });

  it("answers the same after it built its map, and the map holds the entries", () => {
    const r = recordOf(3);
    const before = observe(r);
    const m = r.map;
    expect(r.map).toBe(m); // built once
    const shown = (map: Map<string, Value>) => [...map.entries()].map(([k, v]) => `${k}=${display(v)}`).sort();
    expect(shown(m)).toEqual(shown(mapOf(3).map));
    expect(observe(r)).toEqual(before);
    expect(observe(r)).toEqual(observe(mapOf(3)));
  });

  it("equals the map-built dict with the same entries, both ways, in either state", () => {
    const r = recordOf(4);
    const other = recordOf(4);
    const m = mapOf(4);
    expect(equals(r, m)).toBe(true);
    expect(equals(m, r)).toBe(true);
    expect(equals(r, other)).toBe(true);
    void other.map; // one side materialised
    expect(equals(r, other)).toBe(true);
    expect(equals(other, r)).toBe(true);
    expect(equals(other, m)).toBe(true);
    expect(identityKey(r)).toBe(identityKey(m));
  });

  it("differs from dicts that differ in one value, one key, or the key count", () => {
    const r = recordOf(5);
    for (const other of [recordOf(6), mapOf(6), mapOf(5).with("extra", 1), mapOf(5).without("depth"), mapOf(5).with("depth", "5")]) {
      expect(equals(r, other)).toBe(false);
      expect(equals(other, r)).toBe(false);
      expect(identityKey(r)).not.toBe(identityKey(other));
    }
    // same size, one key renamed
    const renamed = new HDict(new Map(entries(5).map(([k, v]) => [k === "depth" ? "deptH" : k, v] as [string, Value])));
    expect(equals(r, renamed)).toBe(false);
    expect(equals(renamed, r)).toBe(false);
    // a record with other keys but the same size
    const otherKeys = HDict.recordKeys("path", "is_dir", "depth", "é", "𝒳", "Z", "x");
    const shifted = HDict.record(otherKeys, otherKeys.map((k) => (k === "x" ? null : r.get(k))));
    expect(equals(r, shifted)).toBe(false);
    expect(equals(shifted, r)).toBe(false);
  });

  it("with/without give the dicts the map-built dict gives, and leave the record unchanged", () => {
    const r = recordOf(8);
    const m = mapOf(8);
    const cases: [HDict, HDict][] = [
      [r.with("depth", 99), m.with("depth", 99)],
      [r.with("new", "v"), m.with("new", "v")],
      [r.without("path"), m.without("path")],
      [r.without("nope"), m.without("nope")],
    ];
    for (const [a, b] of cases) {
      expect(observe(a)).toEqual(observe(b));
      expect(equals(a, b)).toBe(true);
    }
    expect(r.without("nope")).toBe(r);
    expect(observe(r)).toEqual(observe(mapOf(8)));
  });

  it("an empty record is an empty dict", () => {
    const e = HDict.record(HDict.recordKeys(), []);
    expect(observe(e)).toEqual(observe(HDict.empty()));
    expect(equals(e, HDict.empty())).toBe(true);
    expect(display(e)).toBe("{}");
    expect(truthy(e)).toBe(false);
  });
});

// --- through programs ------------------------------------------------------

const PROGRAM = `
let ds = [make(0), make(1), make(2)]
let d = ds[1]
println(d)
println(d.path)
println(d["is_dir"])
println(d.missing)
println(d["nope"])
println(type_of(d))
println("\${d}")
println(d == ds[1])
println(d == ds[0])
println(d == {depth: 1, is_dir: false, path: "/p1"})
println(d + {extra: true})
println({...d, depth: 9})
let {path, ...rest} = d
println(path)
println(rest)
for e in d {
  println("\${e.key}=\${e.value}")
}
let r = match d {
  {is_dir: true} -> { "dir" }
  {depth: 1, path: p} -> { "one \${p}" }
  _ -> { "other" }
}
println(r)
if d { println("truthy") }
var acc = 0
var i = 0
while i < 600 {
  let e = make(i)
  acc = acc + e.depth + e["depth"]
  if e.is_dir { acc = acc + 1 }
  i = i + 1
}
println(acc)
`;

async function runWith(mode: string, make: (i: number) => HDict): Promise<string> {
  const out: string[] = [];
  const rt = new Runtime({ stdout: { write: (t) => void out.push(t) }, stderr: { write: () => undefined }, cwd: "/", env: { HARN_VM_JIT: mode } });
  rt.defineBuiltin("println", (args, ctx) => {
    ctx.out(display(args[0] ?? "") + "\n");
    return null;
  });
  rt.defineBuiltin("type_of", (args) => typeOf(args[0] ?? null));
  rt.defineBuiltin("make", (args) => make(args[0] as number));
  const { program, errors } = parse(PROGRAM);
  expect(errors).toEqual([]);
  await new ProgramRunner(rt, { file: "t.harn" }).run(program);
  return out.join("");
}

const SHAPE = HDict.recordKeys("path", "is_dir", "depth");

describe("programs cannot tell a record from a map-built dict", () => {
  for (const mode of ["off", "eager", "auto"]) {
    it(`HARN_VM_JIT=${mode}`, async () => {
      const viaRecord = await runWith(mode, (i) => HDict.record(SHAPE, [i, i % 2 === 0, `/p${i}`]));
      const viaMap = await runWith(
        mode,
        (i) =>
          new HDict(
            new Map<string, Value>([
              ["path", `/p${i}`],
              ["is_dir", i % 2 === 0],
              ["depth", i],
            ]),
          ),
      );
      expect(viaRecord).toBe(viaMap);
      expect(viaRecord).toContain("{depth: 1, is_dir: false, path: /p1}\n/p1\nfalse\n\n\ndict\n");
      expect(viaRecord).toContain("one /p1\ntruthy\n");
    });
  }
});
