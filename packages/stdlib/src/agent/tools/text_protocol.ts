/**
 * The tagged text protocol (spec/agents.md §2.5): tool calls written in the
 * reply as `<tool_call>name({ key: value })</tool_call>` (object-literal
 * arguments, `<<TAG … TAG` heredocs for multi-line strings, or a JSON
 * `{name, arguments}` body), `<assistant_prose>`, `<user_response>` and
 * `<done>…</done>` blocks; plus the visible-text sanitiser.
 */
import { isJsonObject, type Json, JsonFloat, type JsonObject, parseJsonKeepingFloats, stringifyJsonKeepingFloats } from "../../core/json";

export interface TextToolCall {
  name: string;
  arguments: JsonObject;
}

export interface ParsedText {
  calls: TextToolCall[];
  errors: string[];
}

const TOOL_CALL_RE = /<tool_call>([\s\S]*?)<\/tool_call>/g;

/** The tool calls of a reply, and a message per malformed one. */
export function parseTextToolCalls(text: string): ParsedText {
  const calls: TextToolCall[] = [];
  const errors: string[] = [];
  for (const m of text.matchAll(TOOL_CALL_RE)) {
    const body = m[1]!.trim();
    try {
      calls.push(parseCallBody(body));
    } catch (e) {
      errors.push(`could not parse <tool_call> ${JSON.stringify(body.length > 80 ? body.slice(0, 80) + "…" : body)}: ${(e as Error).message}`);
    }
  }
  return { calls, errors };
}

/** `tool_parse_call(text)`: the JSON bodies between the tags (unparsable
 * bodies are skipped). */
export function parseJsonToolCalls(text: string): Json[] {
  const out: Json[] = [];
  for (const m of text.matchAll(TOOL_CALL_RE)) {
    try {
      out.push(parseJsonKeepingFloats(m[1]!.trim()) as Json);
    } catch {
      // skipped, as in the reference
    }
  }
  return out;
}

function parseCallBody(body: string): TextToolCall {
  if (body.startsWith("{")) {
    const v = parseJsonKeepingFloats(body) as Json;
    if (!isJsonObject(v) || typeof v.name !== "string") throw new Error("expected {name, arguments}");
    const args = v.arguments ?? v.args ?? {};
    return { name: v.name, arguments: isJsonObject(args) ? args : {} };
  }
  const p = new LiteralParser(body);
  const name = p.ident();
  p.ws();
  p.expect("(");
  p.ws();
  let args: Json = {};
  if (p.peek() !== ")") args = p.value();
  p.ws();
  p.expect(")");
  p.ws();
  if (!p.atEnd()) throw new Error(`unexpected text after the call: ${JSON.stringify(p.rest().slice(0, 20))}`);
  if (!isJsonObject(args)) throw new Error("arguments must be an object literal");
  return { name, arguments: args };
}

/** Object-literal syntax: JSON plus bare keys, single quotes, trailing
 * commas and heredocs. */
class LiteralParser {
  private i = 0;
  constructor(private readonly s: string) {}

  atEnd(): boolean {
    return this.i >= this.s.length;
  }
  rest(): string {
    return this.s.slice(this.i);
  }
  peek(): string {
    return this.s[this.i] ?? "";
  }
  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
  expect(c: string): void {
    if (this.s[this.i] !== c) throw new Error(`expected '${c}' at offset ${this.i}`);
    this.i++;
  }
  ident(): string {
    const m = /^[A-Za-z_][A-Za-z0-9_.\-]*/.exec(this.s.slice(this.i));
    if (!m) throw new Error(`expected a tool name at offset ${this.i}`);
    this.i += m[0].length;
    return m[0];
  }

  value(): Json {
    this.ws();
    const c = this.peek();
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"' || c === "'") return this.quoted();
    if (this.s.startsWith("<<", this.i)) return this.heredoc();
    const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|nil)/.exec(this.s.slice(this.i));
    if (!m) throw new Error(`unexpected ${JSON.stringify(c)} at offset ${this.i}`);
    this.i += m[0].length;
    if (m[0] === "true") return true;
    if (m[0] === "false") return false;
    if (m[0] === "null" || m[0] === "nil") return null;
    const x = Number(m[0]);
    // `2.0` stays a float, as in JSON bodies (parseJsonKeepingFloats)
    return /[.eE]/.test(m[0]) && Number.isInteger(x) ? new JsonFloat(x) : x;
  }

  private object(): JsonObject {
    this.expect("{");
    const out: JsonObject = {};
    for (;;) {
      this.ws();
      if (this.peek() === "}") {
        this.i++;
        return out;
      }
      const key = this.peek() === '"' || this.peek() === "'" ? this.quoted() : this.ident();
      this.ws();
      this.expect(":");
      out[key] = this.value();
      this.ws();
      if (this.peek() === ",") this.i++;
      else if (this.peek() !== "}") throw new Error(`expected ',' or '}' at offset ${this.i}`);
    }
  }

  private array(): Json[] {
    this.expect("[");
    const out: Json[] = [];
    for (;;) {
      this.ws();
      if (this.peek() === "]") {
        this.i++;
        return out;
      }
      out.push(this.value());
      this.ws();
      if (this.peek() === ",") this.i++;
      else if (this.peek() !== "]") throw new Error(`expected ',' or ']' at offset ${this.i}`);
    }
  }

  private quoted(): string {
    const q = this.s[this.i]!;
    if (q === '"') {
      // JSON string rules, found by scanning to the closing quote.
      let j = this.i + 1;
      while (j < this.s.length && this.s[j] !== '"') j += this.s[j] === "\\" ? 2 : 1;
      if (j >= this.s.length) throw new Error("unterminated string");
      const v = JSON.parse(this.s.slice(this.i, j + 1)) as string;
      this.i = j + 1;
      return v;
    }
    let out = "";
    let j = this.i + 1;
    for (; j < this.s.length && this.s[j] !== q; j++) {
      if (this.s[j] === "\\" && j + 1 < this.s.length) {
        const n = this.s[++j]!;
        out += n === "n" ? "\n" : n === "t" ? "\t" : n;
      } else out += this.s[j];
    }
    if (j >= this.s.length) throw new Error("unterminated string");
    this.i = j + 1;
    return out;
  }

  /** `<<TAG\n…\nTAG`: the lines between the tag lines, verbatim. */
  private heredoc(): string {
    const m = /^<<([A-Za-z_][A-Za-z0-9_]*)[ \t]*\r?\n/.exec(this.s.slice(this.i));
    if (!m) throw new Error(`malformed heredoc at offset ${this.i}`);
    const tag = m[1]!;
    const start = this.i + m[0].length;
    const end = new RegExp(`(^|\\n)[ \\t]*${tag}(?![A-Za-z0-9_])`, "g");
    end.lastIndex = start - 1;
    const e = end.exec(this.s);
    if (!e) throw new Error(`unterminated heredoc <<${tag}`);
    const bodyEnd = e.index + (e[1] ? 1 : 0);
    this.i = e.index + e[0].length;
    return this.s.slice(start, Math.max(start, bodyEnd - 1));
  }
}

/** Whether a reply carries `<done>S</done>`. */
export function hasDoneBlock(text: string, sentinel: string): boolean {
  for (const m of text.matchAll(/<done>([\s\S]*?)<\/done>/g)) if (m[1]!.trim() === sentinel) return true;
  return false;
}

/**
 * Human-visible text: `<tool_call>` and `<done>` blocks removed,
 * `<assistant_prose>` / `<user_response>` unwrapped, trimmed. Text without
 * protocol tags is returned as written.
 */
export function visibleText(text: string): string {
  if (!/<(?:tool_call|done|assistant_prose|user_response)>/.test(text)) return text;
  return text
    .replace(TOOL_CALL_RE, "")
    .replace(/<done>[\s\S]*?<\/done>/g, "")
    .replace(/<\/?(?:assistant_prose|user_response)>/g, "")
    .trim();
}

/** The canonical text of a turn in text format: the prose plus one
 * `<tool_call>` block per call. */
export function canonicalText(text: string, calls: readonly { name: string; arguments: unknown }[]): string {
  const parts = text === "" ? [] : [text];
  for (const c of calls) parts.push(`<tool_call>\n${c.name}(${stringifyJsonKeepingFloats(c.arguments ?? {})})\n</tool_call>`);
  return parts.join("\n");
}

export function hasProtocolTags(text: string): boolean {
  return text.includes("<tool_call>");
}
