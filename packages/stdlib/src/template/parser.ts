/**
 * Template parser (spec/stdlib.md §20): text with `{{ … }}` directives,
 * `{{# … #}}` comments, `{{ raw }} … {{ endraw }}`, line-local whitespace
 * control (`{{-` / `-}}`), and a small expression language with filters.
 * A template is parsed once into a tree (cached per runtime by the
 * builtins) and rendered many times.
 */

export interface Pos {
  line: number;
  col: number;
}

export type Expr =
  | { k: "lit"; value: LitValue; pos: Pos }
  | { k: "var"; name: string; pos: Pos }
  | { k: "get"; obj: Expr; key: string; pos: Pos }
  | { k: "index"; obj: Expr; index: Expr; pos: Pos }
  | { k: "not"; expr: Expr; pos: Pos }
  | { k: "neg"; expr: Expr; pos: Pos }
  | { k: "bin"; op: "==" | "!=" | "<" | "<=" | ">" | ">="; left: Expr; right: Expr; pos: Pos }
  | { k: "and" | "or"; left: Expr; right: Expr; pos: Pos }
  | { k: "filter"; expr: Expr; name: string; args: Expr[]; pos: Pos }
  | { k: "dict"; entries: [string, Expr][]; pos: Pos }
  | { k: "list"; items: Expr[]; pos: Pos };

export type LitValue = string | number | { float: number } | boolean | null;

export type TNode =
  | { k: "text"; text: string }
  | { k: "out"; expr: Expr; pos: Pos }
  | { k: "if"; branches: { cond: Expr; body: TNode[] }[]; otherwise: TNode[] | null; pos: Pos }
  | { k: "for"; names: string[]; iterable: Expr; body: TNode[]; otherwise: TNode[] | null; pos: Pos }
  | { k: "include"; path: Expr; with: Expr | null; pos: Pos };

export interface Template {
  nodes: TNode[];
}

/** A parse or render failure at a position (the builtin adds the path). */
export class TemplateError {
  constructor(
    readonly pos: Pos,
    readonly what: string,
    /** Set when the failure happened inside an included file. */
    readonly path: string | null = null,
  ) {}
}

interface Tag {
  kind: "tag" | "text";
  text: string;
  pos: Pos;
  trimLeft: boolean;
  trimRight: boolean;
  /** For tags: position right after `{{` (and `-`), for expression errors. */
  bodyPos: Pos;
}

/** Line/column (1-based, code points) of a UTF-16 offset, incrementally. */
class Positions {
  private line = 1;
  private col = 1;
  private at = 0;
  constructor(private readonly src: string) {}
  of(offset: number): Pos {
    if (offset < this.at) {
      this.line = 1;
      this.col = 1;
      this.at = 0;
    }
    const s = this.src;
    while (this.at < offset) {
      const c = s.charCodeAt(this.at);
      if (c === 10) {
        this.line++;
        this.col = 1;
      } else if (!(c >= 0xdc00 && c <= 0xdfff)) {
        this.col++;
      }
      this.at++;
    }
    return { line: this.line, col: this.col };
  }
}

/** Split the source into text and tag pieces; comments dropped, raw blocks
 * turned into text, trim markers recorded. */
function scan(src: string): Tag[] {
  const pos = new Positions(src);
  const out: Tag[] = [];
  let i = 0;
  const text = (t: string, at: number) => {
    if (t !== "") out.push({ kind: "text", text: t, pos: pos.of(at), trimLeft: false, trimRight: false, bodyPos: pos.of(at) });
  };
  while (i < src.length) {
    const open = src.indexOf("{{", i);
    if (open < 0) {
      text(src.slice(i), i);
      break;
    }
    text(src.slice(i, open), i);
    const tagPos = pos.of(open);
    let j = open + 2;
    const trimLeft = src[j] === "-";
    if (trimLeft) j++;
    if (src[j] === "#") {
      const close = src.indexOf("#}}", j + 1);
      const closeTrim = src.indexOf("#-}}", j + 1);
      if (close < 0 && closeTrim < 0) throw new TemplateError(tagPos, "unclosed comment");
      const useTrim = closeTrim >= 0 && (close < 0 || closeTrim <= close);
      // a comment is a tag with no output: it still trims
      out.push({ kind: "tag", text: "#", pos: tagPos, trimLeft, trimRight: useTrim, bodyPos: tagPos });
      i = useTrim ? closeTrim + 4 : close + 3;
      continue;
    }
    const bodyStart = j;
    const end = findTagEnd(src, j);
    if (end < 0) throw new TemplateError(tagPos, "unclosed tag: expected `}}`");
    let bodyEnd = end;
    const trimRight = src[end - 1] === "-" && end - 1 >= bodyStart;
    if (trimRight) bodyEnd = end - 1;
    const body = src.slice(bodyStart, bodyEnd);
    const bodyPos = pos.of(bodyStart);
    i = end + 2;
    if (body.trim() === "raw") {
      out.push({ kind: "tag", text: "#", pos: tagPos, trimLeft, trimRight, bodyPos });
      const m = /\{\{-?\s*endraw\s*-?\}\}/.exec(src.slice(i));
      if (!m) throw new TemplateError(tagPos, "unclosed `raw` block: expected `{{ endraw }}`");
      const endTag = m[0];
      out.push({ kind: "text", text: src.slice(i, i + m.index), pos: pos.of(i), trimLeft: false, trimRight: false, bodyPos: pos.of(i) });
      const endPos = pos.of(i + m.index);
      out.push({ kind: "tag", text: "#", pos: endPos, trimLeft: endTag.startsWith("{{-"), trimRight: endTag.endsWith("-}}"), bodyPos: endPos });
      i = i + m.index + endTag.length;
      continue;
    }
    out.push({ kind: "tag", text: body, pos: tagPos, trimLeft, trimRight, bodyPos });
  }
  applyTrims(out);
  return out;
}

/** The index of the `}}` closing a tag, skipping string literals. */
function findTagEnd(src: string, from: number): number {
  let quote: string | null = null;
  for (let k = from; k < src.length; k++) {
    const c = src[k]!;
    if (quote) {
      if (c === "\\") k++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === "}" && src[k + 1] === "}") {
      return k;
    }
  }
  return -1;
}

/**
 * Line-local whitespace control: `{{-` removes spaces/tabs before the tag,
 * then at most one line break; `-}}` removes spaces/tabs after it, then at
 * most one line break.
 */
function applyTrims(pieces: Tag[]): void {
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (p.kind !== "tag") continue;
    const prev = pieces[i - 1];
    if (p.trimLeft && prev && prev.kind === "text") {
      let t = prev.text.replace(/[ \t]*$/, "");
      if (t.endsWith("\r\n")) t = t.slice(0, -2);
      else if (t.endsWith("\n")) t = t.slice(0, -1);
      prev.text = t;
    }
    const next = pieces[i + 1];
    if (p.trimRight && next && next.kind === "text") {
      let t = next.text.replace(/^[ \t]*/, "");
      if (t.startsWith("\r\n")) t = t.slice(2);
      else if (t.startsWith("\n") || t.startsWith("\r")) t = t.slice(1);
      next.text = t;
    }
  }
}

// ---------------------------------------------------------------------------
// Expressions

type TokKind = "str" | "int" | "float" | "ident" | "punct" | "eof";

interface Tok {
  kind: TokKind;
  text: string;
  value?: string | number;
  pos: Pos;
}

const PUNCT = ["==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", ".", "[", "]", "(", ")", "{", "}", ",", ":", "|", "-"];

function tokenize(body: string, base: Pos): Tok[] {
  const toks: Tok[] = [];
  let line = base.line;
  let col = base.col;
  let i = 0;
  const advance = (n: number) => {
    for (let k = 0; k < n; k++) {
      const c = body.charCodeAt(i);
      if (c === 10) {
        line++;
        col = 1;
      } else if (!(c >= 0xdc00 && c <= 0xdfff)) col++;
      i++;
    }
  };
  while (i < body.length) {
    const c = body[i]!;
    if (/\s/.test(c)) {
      advance(1);
      continue;
    }
    const pos = { line, col };
    if (c === '"' || c === "'") {
      let j = i + 1;
      let value = "";
      for (;;) {
        if (j >= body.length) throw new TemplateError(pos, "unterminated string literal");
        const d = body[j]!;
        if (d === c) break;
        if (d === "\\") {
          const e = body[j + 1];
          const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", '"': '"', "'": "'" };
          if (e !== undefined && map[e] !== undefined) {
            value += map[e];
            j += 2;
            continue;
          }
          value += "\\";
          j++;
          continue;
        }
        value += d;
        j++;
      }
      toks.push({ kind: "str", text: body.slice(i, j + 1), value, pos });
      advance(j + 1 - i);
      continue;
    }
    const num = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(body.slice(i));
    if (num) {
      const isFloat = num[1] !== undefined || num[2] !== undefined;
      toks.push({ kind: isFloat ? "float" : "int", text: num[0], value: Number(num[0]), pos });
      advance(num[0].length);
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(body.slice(i));
    if (id) {
      toks.push({ kind: "ident", text: id[0], pos });
      advance(id[0].length);
      continue;
    }
    const p = PUNCT.find((x) => body.startsWith(x, i));
    if (!p) throw new TemplateError(pos, `unexpected character \`${c}\``);
    toks.push({ kind: "punct", text: p, pos });
    advance(p.length);
  }
  toks.push({ kind: "eof", text: "", pos: { line, col } });
  return toks;
}

class ExprParser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}

  peek(): Tok {
    return this.toks[this.i]!;
  }
  next(): Tok {
    return this.toks[this.i++]!;
  }
  atEnd(): boolean {
    return this.peek().kind === "eof";
  }
  isPunct(p: string): boolean {
    const t = this.peek();
    return t.kind === "punct" && t.text === p;
  }
  isWord(w: string): boolean {
    const t = this.peek();
    return t.kind === "ident" && t.text === w;
  }
  expectPunct(p: string): Tok {
    if (!this.isPunct(p)) this.unexpected(`expected \`${p}\``);
    return this.next();
  }
  unexpected(context?: string): never {
    const t = this.peek();
    const found = t.kind === "eof" ? "end of expression" : `\`${t.text}\``;
    throw new TemplateError(t.pos, context ? `${context}, found ${found}` : `unexpected ${found}`);
  }
  ident(context: string): Tok {
    const t = this.peek();
    if (t.kind !== "ident") this.unexpected(context);
    return this.next();
  }

  expr(): Expr {
    return this.or();
  }

  private or(): Expr {
    let left = this.and();
    while (this.isWord("or") || this.isPunct("||")) {
      const pos = this.next().pos;
      left = { k: "or", left, right: this.and(), pos };
    }
    return left;
  }

  private and(): Expr {
    let left = this.not();
    while (this.isWord("and") || this.isPunct("&&")) {
      const pos = this.next().pos;
      left = { k: "and", left, right: this.not(), pos };
    }
    return left;
  }

  private not(): Expr {
    if (this.isWord("not") || this.isPunct("!")) {
      const pos = this.next().pos;
      return { k: "not", expr: this.not(), pos };
    }
    return this.comparison();
  }

  private comparison(): Expr {
    const left = this.filtered();
    const t = this.peek();
    if (t.kind === "punct" && ["==", "!=", "<", "<=", ">", ">="].includes(t.text)) {
      this.next();
      return { k: "bin", op: t.text as "==", left, right: this.filtered(), pos: t.pos };
    }
    return left;
  }

  private filtered(): Expr {
    let e = this.unary();
    while (this.isPunct("|")) {
      this.next();
      const name = this.ident("expected a filter name");
      const args: Expr[] = [];
      if (this.isPunct(":")) {
        this.next();
        args.push(this.unary());
        while (this.isPunct(",")) {
          this.next();
          args.push(this.unary());
        }
      }
      e = { k: "filter", expr: e, name: name.text, args, pos: name.pos };
    }
    return e;
  }

  private unary(): Expr {
    if (this.isPunct("-")) {
      const pos = this.next().pos;
      return { k: "neg", expr: this.unary(), pos };
    }
    return this.postfix();
  }

  private postfix(): Expr {
    let e = this.primary();
    for (;;) {
      if (this.isPunct(".")) {
        const pos = this.next().pos;
        const t = this.peek();
        if (t.kind === "ident" || t.kind === "int") {
          this.next();
          e = t.kind === "int" ? { k: "index", obj: e, index: { k: "lit", value: Number(t.text), pos: t.pos }, pos } : { k: "get", obj: e, key: t.text, pos };
          continue;
        }
        this.unexpected("expected a field name after `.`");
      }
      if (this.isPunct("[")) {
        const pos = this.next().pos;
        const index = this.expr();
        this.expectPunct("]");
        e = { k: "index", obj: e, index, pos };
        continue;
      }
      return e;
    }
  }

  private primary(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case "str":
        this.next();
        return { k: "lit", value: t.value as string, pos: t.pos };
      case "int": {
        this.next();
        return { k: "lit", value: Number(t.text), pos: t.pos };
      }
      case "float":
        this.next();
        return { k: "lit", value: { float: Number(t.text) }, pos: t.pos };
      case "ident":
        this.next();
        if (t.text === "true") return { k: "lit", value: true, pos: t.pos };
        if (t.text === "false") return { k: "lit", value: false, pos: t.pos };
        if (t.text === "nil" || t.text === "null" || t.text === "none") return { k: "lit", value: null, pos: t.pos };
        return { k: "var", name: t.text, pos: t.pos };
      case "punct":
        if (t.text === "(") {
          this.next();
          const e = this.expr();
          this.expectPunct(")");
          return e;
        }
        if (t.text === "{") return this.dict();
        if (t.text === "[") return this.list();
        break;
    }
    this.unexpected("expected an expression");
  }

  private dict(): Expr {
    const pos = this.next().pos;
    const entries: [string, Expr][] = [];
    while (!this.isPunct("}")) {
      const t = this.peek();
      let key: string;
      if (t.kind === "ident" || t.kind === "str") key = t.kind === "str" ? (t.value as string) : t.text;
      else this.unexpected("expected a key");
      this.next();
      this.expectPunct(":");
      entries.push([key, this.expr()]);
      if (!this.isPunct(",")) break;
      this.next();
    }
    this.expectPunct("}");
    return { k: "dict", entries, pos };
  }

  private list(): Expr {
    const pos = this.next().pos;
    const items: Expr[] = [];
    while (!this.isPunct("]")) {
      items.push(this.expr());
      if (!this.isPunct(",")) break;
      this.next();
    }
    this.expectPunct("]");
    return { k: "list", items, pos };
  }
}

function parseExprOnly(body: string, pos: Pos): Expr {
  const p = new ExprParser(tokenize(body, pos));
  const e = p.expr();
  if (!p.atEnd()) p.unexpected("expected `}}`");
  return e;
}

// ---------------------------------------------------------------------------
// Blocks

interface Frame {
  kind: "root" | "if" | "for";
  pos: Pos;
  /** where new nodes go */
  target: TNode[];
  node: TNode | null;
  sawElse: boolean;
}

export function parseTemplate(src: string): Template {
  const pieces = scan(src);
  const root: TNode[] = [];
  const stack: Frame[] = [{ kind: "root", pos: { line: 1, col: 1 }, target: root, node: null, sawElse: false }];
  const top = () => stack[stack.length - 1]!;
  for (const p of pieces) {
    if (p.kind === "text") {
      if (p.text !== "") top().target.push({ k: "text", text: p.text });
      continue;
    }
    if (p.text === "#") continue; // comment or raw markers
    const body = p.text;
    const word = /^\s*([A-Za-z_]+)\b/.exec(body)?.[1];
    const rest = word ? body.slice(body.indexOf(word) + word.length) : "";
    const restPos = { line: p.bodyPos.line, col: p.bodyPos.col + (word ? body.indexOf(word) + word.length : 0) };
    switch (word) {
      case "if": {
        const node: TNode = { k: "if", branches: [{ cond: parseExprOnly(rest, restPos), body: [] }], otherwise: null, pos: p.pos };
        top().target.push(node);
        stack.push({ kind: "if", pos: p.pos, target: node.branches[0]!.body, node, sawElse: false });
        continue;
      }
      case "elif": {
        const f = top();
        if (f.kind !== "if" || f.sawElse) throw new TemplateError(p.pos, "unexpected `elif`");
        const node = f.node as Extract<TNode, { k: "if" }>;
        const branch = { cond: parseExprOnly(rest, restPos), body: [] as TNode[] };
        node.branches.push(branch);
        f.target = branch.body;
        continue;
      }
      case "else": {
        if (rest.trim() !== "") break;
        const f = top();
        if ((f.kind !== "if" && f.kind !== "for") || f.sawElse) throw new TemplateError(p.pos, "unexpected `else`");
        const node = f.node as Extract<TNode, { k: "if" | "for" }>;
        node.otherwise = [];
        f.target = node.otherwise;
        f.sawElse = true;
        continue;
      }
      case "end": {
        if (rest.trim() !== "") break;
        const f = top();
        if (f.kind === "root") throw new TemplateError(p.pos, "unexpected `end` without an open block");
        stack.pop();
        continue;
      }
      case "endraw":
        if (rest.trim() !== "") break;
        throw new TemplateError(p.pos, "unexpected `endraw` without `raw`");
      case "for": {
        const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:,\s*([A-Za-z_][A-Za-z0-9_]*)\s*)?\bin\b/.exec(rest);
        if (!m) throw new TemplateError(p.pos, "malformed `for`: expected `for NAME in EXPR` or `for KEY, VALUE in EXPR`");
        const exprText = rest.slice(m[0].length);
        const exprPos = { line: restPos.line, col: restPos.col + m[0].length };
        const names = m[2] ? [m[1]!, m[2]] : [m[1]!];
        const node: TNode = { k: "for", names, iterable: parseExprOnly(exprText, exprPos), body: [], otherwise: null, pos: p.pos };
        top().target.push(node);
        stack.push({ kind: "for", pos: p.pos, target: node.body, node, sawElse: false });
        continue;
      }
      case "include": {
        const parser = new ExprParser(tokenize(rest, restPos));
        const path = parser.expr();
        let withExpr: Expr | null = null;
        if (parser.isWord("with")) {
          parser.next();
          withExpr = parser.expr();
        }
        if (!parser.atEnd()) parser.unexpected("expected `with` or `}}`");
        top().target.push({ k: "include", path, with: withExpr, pos: p.pos });
        continue;
      }
    }
    top().target.push({ k: "out", expr: parseExprOnly(body, p.bodyPos), pos: p.pos });
  }
  if (stack.length > 1) {
    const f = top();
    throw new TemplateError(f.pos, `unclosed \`${f.kind}\` block: expected \`{{ end }}\``);
  }
  return { nodes: root };
}
