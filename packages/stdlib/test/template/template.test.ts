import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HDict, HFloat, HRange, HSet, type CallContext, type Value } from "@harn/vm";
import { raised, rig } from "../core/harness";

const r = rig();
const d = (o: Record<string, Value>) => HDict.of(o);

function rs(template: string, bindings: Record<string, Value> = {}): string {
  return r.call("render_string", template, d(bindings)) as string;
}

async function failure(fn: () => Value): Promise<string> {
  const e = await raised(fn);
  expect(e.kind).toBe("thrown");
  return e.caughtValue() as string;
}

describe("render_string basics", () => {
  it("substitutes values with their display form", () => {
    expect(rs("Hi {{ name }}, {{ n }} {{ f }} {{ xs }} {{ m }}", { name: "Ada", n: 3, f: new HFloat(2), xs: [1, "a"], m: d({ b: 1, a: [] }) })).toBe(
      "Hi Ada, 3 2.0 [1, a] {a: [], b: 1}",
    );
  });
  it("writes nothing for nil and missing paths, the placeholder for an unbound bare name", () => {
    expect(rs("[{{ x }}][{{ user.name }}][{{ nothing }}][{{ nothing | upper }}]", { x: null, user: d({}) })).toBe("[][][{{nothing}}][]");
  });
  it("evaluates paths, indexes and literals", () => {
    const b = { u: d({ name: "Ada", tags: ["a", "b", "c"], "odd key": 1 }) };
    expect(rs('{{ u.tags[0] }}{{ u.tags[-1] }}{{ u["odd key"] }}{{ u.tags.1 }}', b)).toBe("ac1b");
    expect(rs("{{ \"q\\\"uote\" }} {{ 'it\\'s' }} {{ 1.5 }} {{ true }} {{ nil }}")).toBe('q"uote it\'s 1.5 true ');
  });
  it("drops comments and copies raw blocks literally", () => {
    expect(rs("a{{# note {{ x }} #}}b{{ raw }}{{ not parsed }}{{ endraw }}c")).toBe("ab{{ not parsed }}c");
  });
});

describe("control flow", () => {
  it("if / elif / else with template truthiness", () => {
    const t = "{{ if a }}A{{ elif b }}B{{ else }}C{{ end }}";
    expect(rs(t, { a: 1 })).toBe("A");
    expect(rs(t, { a: 0, b: "x" })).toBe("B");
    expect(rs(t, { a: "  ", b: [] })).toBe("C");
    expect(rs(t, { a: new HFloat(0), b: d({}) })).toBe("C");
    expect(rs("{{ if not a and (b or c) }}yes{{ end }}", { a: false, b: null, c: "c" })).toBe("yes");
    expect(rs("{{ if !a && b || c }}y{{ end }}", { a: true, b: 1, c: 0 })).toBe("");
  });
  it("compares numbers and strings; other combinations are false", () => {
    expect(rs("{{ if n >= 2 }}big{{ end }}{{ if s < 'b' }}lt{{ end }}{{ if n == 2.0 }}eq{{ end }}{{ if n < 's' }}x{{ end }}", { n: 2, s: "a" })).toBe("biglteq");
    expect(rs("{{ if xs | length > 2 }}many{{ end }}", { xs: [1, 2, 3] })).toBe("many");
  });
  it("for over lists, dicts, sets, ranges, nil, with loop and else", () => {
    expect(rs("{{ for x in xs }}{{ loop.index }}/{{ loop.length }}:{{ x }}{{ if not loop.last }}, {{ end }}{{ end }}", { xs: ["a", "b"] })).toBe("1/2:a, 2/2:b");
    expect(rs("{{ for k, v in m }}{{ k }}={{ v }};{{ end }}", { m: d({ b: 2, a: 1 }) })).toBe("a=1;b=2;");
    expect(rs("{{ for e in m }}{{ e.key }}{{ e.value }}{{ end }}", { m: d({ z: 1 }) })).toBe("z1");
    expect(rs("{{ for i, x in xs }}{{ i }}{{ x }}{{ loop.index0 }}{{ loop.first }} {{ end }}", { xs: ["p", "q"] })).toBe("0p0true 1q1false ");
    expect(rs("{{ for x in s }}{{ x }}{{ end }}|{{ for x in r }}{{ x }}{{ end }}", { s: new HSet([3, 1]), r: new HRange(1, 3, true) })).toBe("31|123");
    expect(rs("{{ for x in xs }}{{ x }}{{ else }}empty{{ end }}", { xs: null })).toBe("empty");
    expect(rs("{{ for x in xs }}{{ x }}{{ else }}empty{{ end }}", { xs: [] })).toBe("empty");
  });
  it("rejects iterating over scalars", async () => {
    expect(await failure(() => rs("ab\n  {{ for x in 5 }}{{ end }}"))).toBe("at 2:3: cannot iterate over int — expected list, dict, set, or range");
  });
});

describe("whitespace control", () => {
  it("is line-local, as in the spec's example", () => {
    expect(rs("List:\n{{- for v in vs -}}\n  {{ v }};\n{{- end -}}\nEND", { vs: [1, 2] })).toBe("List:  1;  2;END");
  });
  it("removes only one line break and keeps indentation of the next line", () => {
    expect(rs("a\n\n  {{- x }}", { x: 1 })).toBe("a\n1");
    expect(rs("{{ x -}}  \r\n\n  b", { x: 1 })).toBe("1\n  b");
    expect(rs("a \t{{- x -}}\t b", { x: 1 })).toBe("a1b");
  });
});

describe("filters", () => {
  it("transform strings", () => {
    expect(rs("{{ s | upper }}|{{ s | lower }}|{{ p | trim }}|{{ s | capitalize }}|{{ t | title }}", { s: "hEllo", p: "  x ", t: "the QUICK fox" })).toBe(
      "HELLO|hello|x|Hello|The Quick Fox",
    );
    expect(rs("{{ s | replace: 'a', 'o' }}|{{ s | reverse }}|{{ s | first }}{{ s | last }}", { s: "banana" })).toBe("bonono|ananab|ba");
    expect(rs("{{ s | escape_md }}", { s: "*a_b* [x](y) #1 <t> a.b!" })).toBe("\\*a\\_b\\* \\[x\\]\\(y\\) \\#1 \\<t\\> a\\.b\\!");
    expect(rs("{{ s | indent: 2 }}|{{ s | indent: 1, true }}", { s: "a\n\nb" })).toBe("a\n\n  b| a\n\n b");
  });
  it("work on collections", () => {
    expect(rs("{{ xs | length }} {{ s | length }} {{ m | length }} {{ n | length }}", { xs: [1, 2], s: "héllo", m: d({ a: 1 }), n: null })).toBe("2 5 1 0");
    expect(rs("{{ xs | join: ', ' }}|{{ xs | first }}|{{ xs | last }}|{{ xs | reverse }}|{{ 'a\nb' | lines }}", { xs: [1, 2, 3] })).toBe(
      "1, 2, 3|1|3|[3, 2, 1]|[a, b]",
    );
    expect(rs("{{ x | default: 'none' }} {{ y | default: 'none' }} {{ missing | default: 'm' }}", { x: "", y: "set" })).toBe("none set m");
  });
  it("json uses serde's formatting", () => {
    const v = d({ f: new HFloat(1), big: new HFloat(1e21), small: new HFloat(1e-7), s: "a\"\n\u0001", set: new HSet([1]), inf: new HFloat(Infinity), xs: [1, null, true] });
    expect(rs("{{ v | json }}", { v })).toBe('{"big":1e21,"f":1.0,"inf":null,"s":"a\\"\\n\\u0001","set":"set(1)","small":1e-7,"xs":[1,null,true]}');
    expect(rs("{{ v | json: true }}", { v: d({ a: [1, 2], b: d({}) }) })).toBe('{\n  "a": [\n    1,\n    2\n  ],\n  "b": {}\n}');
    expect(rs("{{ v | json }}", { v: new HFloat(123456789.5) })).toBe("123456789.5");
    expect(rs("{{ v | json }}", { v: new HFloat(1e16) })).toBe("1e16");
    expect(rs("{{ v | json }}", { v: new HFloat(1e15) })).toBe("1000000000000000.0");
  });
  it("report unknown filters, arity and type errors with positions", async () => {
    expect(await failure(() => rs("x {{ a | shout }}", { a: 1 }))).toBe("at 1:10: unknown filter `shout`");
    expect(await failure(() => rs("{{ a | replace: 'x' }}", { a: "" }))).toBe("at 1:8: filter `replace` got wrong number of arguments");
    expect(await failure(() => rs("{{ a | length }}", { a: 5 }))).toBe("at 1:8: `length` not defined for int");
    expect(await failure(() => rs("{{ a | join: ',' }}", { a: 5 }))).toBe("at 1:8: `join` requires a list (got int)");
  });
});

describe("syntax errors", () => {
  it("have positions", async () => {
    expect(await failure(() => rs("ok\n{{ if x }}open"))).toMatch(/^at 2:1: unclosed `if` block/);
    expect(await failure(() => rs("{{ end }}"))).toMatch(/^at 1:1: unexpected `end`/);
    expect(await failure(() => rs("{{ a +"))).toMatch(/^at 1:1: unclosed tag/);
    expect(await failure(() => rs("{{ 'abc }}"))).toMatch(/^at 1:1: unclosed tag|unterminated string/);
    expect(await failure(() => rs("{{ a b }}"))).toBe("at 1:6: expected `}}`, found `b`");
  });
});

describe("render from files", () => {
  const dir = mkdtempSync(join(tmpdir(), "harn-tpl-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "prompts", "parts"), { recursive: true });
  mkdirSync(join(dir, "proj", "sub"), { recursive: true });
  writeFileSync(join(dir, "prompts", "main.prompt"), 'Hello {{ name }}!\n{{ include "parts/footer.prompt" with { sig: "--" } }}');
  writeFileSync(join(dir, "prompts", "parts", "footer.prompt"), "{{ sig }} {{ name }}{{ include \"inner.prompt\" }}");
  writeFileSync(join(dir, "prompts", "parts", "inner.prompt"), ".");
  writeFileSync(join(dir, "prompts", "a.prompt"), '{{ include "b.prompt" }}');
  writeFileSync(join(dir, "prompts", "b.prompt"), '{{ include "a.prompt" }}');
  writeFileSync(join(dir, "prompts", "bad.prompt"), "line\n {{ x | nope }}");
  writeFileSync(join(dir, "prompts", "missing-inc.prompt"), '{{ include "gone.prompt" }}');
  writeFileSync(join(dir, "proj", "harn.toml"), '[asset_roots]\nshared = "assets"\n');
  mkdirSync(join(dir, "proj", "assets"), { recursive: true });
  writeFileSync(join(dir, "proj", "assets", "s.prompt"), "shared {{ v }}");
  writeFileSync(join(dir, "proj", "top.prompt"), "top {{ v }}");

  const ctxAt = (file: string): CallContext => ({ ...r.ctx, sourceFile: file });
  const render = (file: string, ...args: Value[]) => r.rt.builtins.get("render")!(args, ctxAt(file)) as Value;

  it("resolves against the executing file's directory and includes relative to the including file", () => {
    expect(render(join(dir, "script.harn"), "prompts/main.prompt", d({ name: "Ada" }))).toBe("Hello Ada!\n-- Ada.");
    expect(r.rt.builtins.get("render_prompt")!(["main.prompt", d({ name: "B" })], ctxAt(join(dir, "prompts", "x.harn")))).toBe("Hello B!\n-- B.");
  });
  it("supports @/ and @alias/ roots and rejects ..", async () => {
    const script = join(dir, "proj", "sub", "s.harn");
    expect(render(script, "@/top.prompt", d({ v: 1 }))).toBe("top 1");
    expect(render(script, "@shared/s.prompt", d({ v: 2 }))).toBe("shared 2");
    expect(await failure(() => render(script, "@/../x.prompt"))).toContain("must not contain '..'");
    expect(await failure(() => render(script, "@nope/x.prompt"))).toContain("unknown asset root '@nope'");
  });
  it("reports read failures, include cycles, missing includes and errors with the path", async () => {
    const script = join(dir, "s.harn");
    expect(await failure(() => render(script, "prompts/none.prompt"))).toBe(`Failed to read template ${dir}/prompts/none.prompt: No such file or directory (os error 2)`);
    expect(await failure(() => render(script, "prompts/a.prompt"))).toBe(
      `${dir}/prompts/b.prompt at 1:1: circular include detected: ${dir}/prompts/a.prompt → ${dir}/prompts/b.prompt → ${dir}/prompts/a.prompt`,
    );
    expect(await failure(() => render(script, "prompts/missing-inc.prompt"))).toBe(
      `${dir}/prompts/missing-inc.prompt at 1:1: failed to read included template ${dir}/prompts/gone.prompt`,
    );
    expect(await failure(() => render(script, "prompts/bad.prompt", d({ x: 1 })))).toBe(`${dir}/prompts/bad.prompt at 2:9: unknown filter \`nope\``);
  });
  it("render_with_provenance reports the URI, a stable id and spans; prompt_mark_rendered counts", async () => {
    writeFileSync(join(dir, "prompts", "prov.prompt"), "Hi {{ name }}!{{ if x }} yes{{ end }}");
    const ctx = ctxAt(join(dir, "s.harn"));
    const res = r.rt.builtins.get("render_with_provenance")!(["prompts/prov.prompt", d({ name: "Åsa", x: true })], ctx) as HDict;
    expect(res.get("text")).toBe("Hi Åsa! yes");
    expect(res.get("template_uri")).toBe(`file://${dir}/prompts/prov.prompt`);
    expect(res.get("prompt_id")).toMatch(/^prompt-[0-9a-f]{16}$/);
    expect(String(res.get("spans") && (res.get("spans") as Value[]).map((x) => (x as HDict).keys().map((k) => `${k}=${String((x as HDict).get(k))}`).join(",")))).toBe(
      "col=null,end=3,kind=text,line=null,start=0,col=4,end=6,kind=expression,line=1,start=3,col=null,end=7,kind=text,line=null,start=6,col=15,end=11,kind=if,line=1,start=7",
    );
    const again = r.rt.builtins.get("render_with_provenance")!(["prompts/prov.prompt", d({ name: "Åsa", x: true })], ctx) as HDict;
    expect(again.get("prompt_id")).toBe(res.get("prompt_id"));
    expect(r.call("prompt_mark_rendered", res.get("prompt_id"))).toBe(1);
    expect(r.call("prompt_mark_rendered", res.get("prompt_id"))).toBe(2);
    const e = await raised(() => r.call("prompt_mark_rendered", 5));
    expect(e.description()).toBe("Type error: prompt_mark_rendered: prompt_id must be a string");
  });
});
