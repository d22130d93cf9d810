/**
 * A jq subset over Harn values (spec/stdlib.md §11.4): paths, iteration,
 * slices, `|`, `,`, `length`, `keys`, `values`, `type`, `map`, `select`,
 * literals, comparisons, `and`/`or`/`not`, object construction and `..`.
 * Every filter maps one input to a stream (array) of outputs. Errors are
 * thrown strings prefixed `jq: `.
 */
import { compare, cpArray, cpLength, display, equals, HDict, HFloat, isNumeric, toJsNumber, type Value } from "@harn/vm";
import { HarnError } from "@harn/vm";

type Filter = (input: Value) => Value[];

function fail(msg: string): never {
  throw HarnError.thrown(`jq: ${msg}`);
}

function jsonType(v: Value): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "string") return "string";
  if (isNumeric(v)) return "number";
  if (Array.isArray(v)) return "array";
  if (v instanceof HDict) return "object";
  return typeof v === "object" ? display(v) : "null";
}

const truthy = (v: Value) => v !== null && v !== false;

type Tok = { k: "num" | "str" | "ident" | "punct"; v: string };

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let s = "";
      while (j < src.length && src[j] !== '"') {
        if (src[j] === "\\" && j + 1 < src.length) {
          const e = src[j + 1]!;
          s += e === "n" ? "\n" : e === "t" ? "\t" : e === "r" ? "\r" : e;
          j += 2;
        } else s += src[j++];
      }
      if (j >= src.length) fail("unterminated string");
      out.push({ k: "str", v: s });
      i = j + 1;
      continue;
    }
    const num = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(src.slice(i));
    if (num && (c !== "-" || !out.length || out[out.length - 1]!.k === "punct")) {
      out.push({ k: "num", v: num[0] });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (id) {
      out.push({ k: "ident", v: id[0] });
      i += id[0].length;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (["==", "!=", "<=", ">=", ".."].includes(two)) {
      out.push({ k: "punct", v: two });
      i += 2;
      continue;
    }
    if ("|,.[]():{}<>".includes(c)) {
      out.push({ k: "punct", v: c });
      i++;
      continue;
    }
    fail(`unexpected character '${c}'`);
  }
  return out;
}

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}
  private peek(): Tok | undefined {
    return this.toks[this.i];
  }
  private is(v: string): boolean {
    const t = this.peek();
    return t !== undefined && (t.k === "punct" || t.k === "ident") && t.v === v;
  }
  private expect(v: string): void {
    if (!this.is(v)) fail(`expected '${v}'`);
    this.i++;
  }
  done(): boolean {
    return this.i >= this.toks.length;
  }

  pipe(): Filter {
    let left = this.comma();
    while (this.is("|")) {
      this.i++;
      const l = left;
      const r = this.comma();
      left = (x) => l(x).flatMap(r);
    }
    return left;
  }

  private comma(): Filter {
    let left = this.or();
    while (this.is(",")) {
      this.i++;
      const l = left;
      const r = this.or();
      left = (x) => [...l(x), ...r(x)];
    }
    return left;
  }

  private or(): Filter {
    let left = this.and();
    while (this.is("or")) {
      this.i++;
      const l = left;
      const r = this.and();
      left = (x) => l(x).flatMap((a) => (truthy(a) ? [true] : r(x).map(truthy)));
    }
    return left;
  }

  private and(): Filter {
    let left = this.not();
    while (this.is("and")) {
      this.i++;
      const l = left;
      const r = this.not();
      left = (x) => l(x).flatMap((a) => (!truthy(a) ? [false] : r(x).map(truthy)));
    }
    return left;
  }

  private not(): Filter {
    if (this.is("not")) {
      this.i++;
      const inner = this.not();
      return (x) => inner(x).map((v) => !truthy(v));
    }
    return this.comparison();
  }

  private comparison(): Filter {
    const left = this.postfix();
    const t = this.peek();
    if (t && t.k === "punct" && ["==", "!=", "<", ">", "<=", ">="].includes(t.v)) {
      this.i++;
      const right = this.postfix();
      const op = t.v;
      return (x) =>
        left(x).flatMap((a) =>
          right(x).map((b) => {
            if (op === "==") return equals(a, b);
            if (op === "!=") return !equals(a, b);
            const c = compare(a, b);
            return op === "<" ? c < 0 : op === ">" ? c > 0 : op === "<=" ? c <= 0 : c >= 0;
          }),
        );
    }
    return left;
  }

  private postfix(): Filter {
    let f = this.primary();
    for (;;) {
      if (this.is(".") && this.toks[this.i + 1] && (this.toks[this.i + 1]!.k === "ident" || this.toks[this.i + 1]!.k === "str")) {
        this.i++;
        const name = this.toks[this.i++]!.v;
        const prev = f;
        f = (x) => prev(x).map((v) => field(v, name));
        continue;
      }
      if (this.is("[")) {
        const prev = f;
        const s = this.bracket();
        f = (x) => prev(x).flatMap(s);
        continue;
      }
      return f;
    }
  }

  /** `[]`, `[n]`, `["k"]`, `[a:b]` after a path. */
  private bracket(): Filter {
    this.expect("[");
    if (this.is("]")) {
      this.i++;
      return iterate;
    }
    let from: Filter | null = null;
    if (!this.is(":")) from = this.pipe();
    if (this.is(":")) {
      this.i++;
      const to = this.is("]") ? null : this.pipe();
      this.expect("]");
      return (x) => {
        const a = from ? from(x)[0] ?? null : null;
        const b = to ? to(x)[0] ?? null : null;
        return [slice(x, a, b)];
      };
    }
    this.expect("]");
    const idx = from!;
    return (x) => idx(x).map((k) => index(x, k));
  }

  private primary(): Filter {
    const t = this.peek();
    if (!t) fail("unexpected end of expression");
    if (t.k === "punct" && t.v === "..") {
      this.i++;
      return (x) => recurse(x);
    }
    if (t.k === "punct" && t.v === ".") {
      this.i++;
      const n = this.peek();
      if (n && (n.k === "ident" || n.k === "str") && !(n.k === "ident" && ["and", "or"].includes(n.v))) {
        this.i++;
        return (x) => [field(x, n.v)];
      }
      if (n && n.k === "punct" && n.v === "[") return this.bracket();
      return (x) => [x];
    }
    if (t.k === "num") {
      this.i++;
      const v = /[.eE]/.test(t.v) ? new HFloat(Number(t.v)) : Number(t.v);
      return () => [v];
    }
    if (t.k === "str") {
      this.i++;
      return () => [t.v];
    }
    if (t.k === "punct" && t.v === "(") {
      this.i++;
      const inner = this.pipe();
      this.expect(")");
      return inner;
    }
    if (t.k === "punct" && t.v === "{") return this.object();
    if (t.k === "ident") {
      this.i++;
      switch (t.v) {
        case "true":
          return () => [true];
        case "false":
          return () => [false];
        case "null":
          return () => [null];
        case "length":
          return (x) => [length(x)];
        case "keys":
          return (x) => [keys(x)];
        case "values":
          return (x) => [x instanceof HDict ? x.keys().map((k) => x.get(k)) : Array.isArray(x) ? x : null];
        case "type":
          return (x) => [jsonType(x)];
        case "map": {
          this.expect("(");
          const f = this.pipe();
          this.expect(")");
          return (x) => [iterate(x).flatMap(f)];
        }
        case "select": {
          this.expect("(");
          const f = this.pipe();
          this.expect(")");
          return (x) => (f(x).some(truthy) ? [x] : []);
        }
      }
      fail(`${t.v}/0 is not defined`);
    }
    fail(`unexpected token '${t.v}'`);
  }

  private object(): Filter {
    this.expect("{");
    const entries: [string, Filter][] = [];
    while (!this.is("}")) {
      const t = this.peek();
      if (!t || (t.k !== "ident" && t.k !== "str")) fail("expected an object key");
      this.i++;
      const key = t.v;
      if (this.is(":")) {
        this.i++;
        entries.push([key, this.or()]);
      } else {
        entries.push([key, (x) => [field(x, key)]]);
      }
      if (!this.is(",")) break;
      this.i++;
    }
    this.expect("}");
    return (x) => {
      let acc: Map<string, Value>[] = [new Map()];
      for (const [k, f] of entries) {
        const outs = f(x);
        acc = acc.flatMap((m) => outs.map((v) => new Map(m).set(k, v)));
      }
      return acc.map((m) => new HDict(m));
    };
  }
}

function field(v: Value, name: string): Value {
  if (v === null) return null;
  if (v instanceof HDict) return v.get(name);
  fail(`cannot index ${jsonType(v)} with "${name}"`);
}

function index(v: Value, k: Value): Value {
  if (typeof k === "string") return field(v, k);
  if (v === null) return null;
  if (Array.isArray(v) && typeof k === "number") {
    const i = k < 0 ? v.length + k : k;
    return i >= 0 && i < v.length ? v[i]! : null;
  }
  fail(`cannot index ${jsonType(v)} with ${jsonType(k)}`);
}

function iterate(v: Value): Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof HDict) return v.keys().map((k) => v.get(k));
  fail(`cannot iterate over ${jsonType(v)}`);
}

function slice(v: Value, a: Value, b: Value): Value {
  if (v === null) return null;
  const n = Array.isArray(v) ? v.length : typeof v === "string" ? cpLength(v) : fail(`cannot slice ${jsonType(v)}`);
  const norm = (x: Value, dflt: number) => {
    if (x === null) return dflt;
    let i = Math.floor(toJsNumber(x as number));
    if (i < 0) i += n;
    return Math.max(0, Math.min(n, i));
  };
  const from = norm(a, 0);
  const to = Math.max(from, norm(b, n));
  return Array.isArray(v) ? v.slice(from, to) : cpArray(v as string).slice(from, to).join("");
}

function length(v: Value): Value {
  if (v === null) return 0;
  if (typeof v === "string") return cpLength(v);
  if (Array.isArray(v)) return v.length;
  if (v instanceof HDict) return v.size;
  if (typeof v === "number") return Math.abs(v);
  if (v instanceof HFloat) return new HFloat(Math.abs(v.v));
  fail(`${jsonType(v)} has no length`);
}

function keys(v: Value): Value {
  if (v instanceof HDict) return [...v.keys()];
  if (Array.isArray(v)) return v.map((_, i) => i);
  fail(`${jsonType(v)} has no keys`);
}

function recurse(v: Value): Value[] {
  const out: Value[] = [v];
  if (Array.isArray(v)) for (const x of v) out.push(...recurse(x));
  else if (v instanceof HDict) for (const k of v.keys()) out.push(...recurse(v.get(k)));
  return out;
}

export function jq(value: Value, expr: string): Value[] {
  const p = new Parser(lex(expr));
  const f = p.pipe();
  if (!p.done()) fail("unexpected trailing input");
  return f(value);
}
