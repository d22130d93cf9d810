/**
 * multipart/form-data (spec/core-gaps.md §7.6): building a body from a list
 * of field dicts with a boundary derived from the fields (so the same fields
 * give the same bytes), parsing one strictly with size and count limits,
 * and the HTTP client's `multipart:` option, which writes the reference's
 * fixed-boundary body.
 */
import { createHash } from "node:crypto";
import { display, HarnError, HBytes, HDict, isNumeric, typeOf, type Value } from "@harn/vm";
import { bytes } from "./bytes";
import { builtinModule } from "../registry/define";

/** The HTTP client's boundary (the reference's, fixed). */
export const HTTP_BOUNDARY = "harn-boundary";
const MIB8 = 8 * 1024 * 1024;
const enc = new TextEncoder();

function fail(fn: string, msg: string): never {
  throw HarnError.runtime(`${fn}: ${msg}`);
}

function checkBoundary(fn: string, b: string): void {
  if (b === "") fail(fn, "boundary must not be empty");
  if (enc.encode(b).length > 70) fail(fn, "boundary must be at most 70 bytes");
  if (!/^[0-9A-Za-z'()+_,\-./:=?]+$/.test(b)) fail(fn, "boundary contains a character that is not valid in multipart/form-data");
}

const quote = (s: string) => s.replace(/[\\"]/g, (c) => "\\" + c);

function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  return Buffer.from(hay.buffer, hay.byteOffset, hay.byteLength).indexOf(Buffer.from(needle.buffer, needle.byteOffset, needle.byteLength), from);
}

// ---------------------------------------------------------------------------
// Building

interface Field {
  name: string;
  filename: string | null;
  contentType: string | null;
  headers: [string, string][];
  content: Uint8Array;
}

function field(fn: string, f: Value, index: number): Field {
  if (!(f instanceof HDict)) fail(fn, `field ${index} must be a dict, got ${typeOf(f)}`);
  const line = (key: string, what: string): string | null => {
    const v = f.get(key) ?? null;
    if (v === null) return null;
    if (typeof v !== "string") fail(fn, `${what} must be a string, got ${typeOf(v)}`);
    if (/[\r\n]/.test(v)) fail(fn, `field ${what} must be single-line`);
    return v;
  };
  if (!f.has("name") || f.get("name") === null) fail(fn, "field is missing name");
  const name = line("name", "name")!;
  if (name === "") fail(fn, "name must not be empty");
  const filename = line("filename", "filename");
  const contentType = line("content_type", "content_type");
  const c = f.get("content") ?? f.get("value") ?? null;
  if (c === null) fail(fn, "field is missing content");
  if (!(c instanceof HBytes) && typeof c !== "string") fail(fn, `content must be bytes or string, got ${typeOf(c)}`);
  const headers: [string, string][] = [];
  const h = f.get("headers") ?? null;
  if (h !== null) {
    if (!(h instanceof HDict)) fail(fn, `headers must be a dict, got ${typeOf(h)}`);
    for (const k of [...h.keys()].sort()) {
      const lower = k.toLowerCase();
      if (lower === "content-disposition" || lower === "content-type") fail(fn, `${k} is managed by multipart_form_data`);
      const v = h.get(k);
      if (typeof v !== "string") fail(fn, `header ${k} must be a string, got ${typeOf(v)}`);
      if (/[\r\n]/.test(k) || /[\r\n]/.test(v)) fail(fn, `header ${k} must be single-line`);
      headers.push([k, v]);
    }
  }
  return { name, filename, contentType, headers, content: c instanceof HBytes ? c.data : enc.encode(c) };
}

function autoBoundary(fn: string, fields: Value[], parsed: Field[]): string {
  const h = createHash("sha256");
  for (const f of fields) h.update(display(f)).update(Buffer.from([0]));
  const base = "----harn-boundary-" + h.digest().subarray(0, 8).toString("hex");
  const clashes = (b: string) => parsed.some((f) => indexOf(f.content, enc.encode(b), 0) >= 0);
  if (!clashes(base)) return base;
  for (let i = 1; i <= 99; i++) if (!clashes(`${base}-${i}`)) return `${base}-${i}`;
  return fail(fn, "could not generate a boundary absent from field content");
}

function body(boundary: string, fields: Field[], escape: (s: string) => string): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const f of fields) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escape(f.name)}"`;
    if (f.filename !== null) head += `; filename="${escape(f.filename)}"`;
    head += "\r\n";
    if (f.contentType !== null) head += `Content-Type: ${f.contentType}\r\n`;
    for (const [k, v] of f.headers) head += `${k}: ${v}\r\n`;
    parts.push(enc.encode(head + "\r\n"), f.content, enc.encode("\r\n"));
  }
  parts.push(enc.encode(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

function formData(args: Value[]): HDict {
  const fn = "multipart_form_data";
  if (args.length === 0) fail(fn, "missing argument 1");
  const list = args[0]!;
  if (!Array.isArray(list)) fail(fn, `fields must be a list, got ${typeOf(list)}`);
  const fields = list.map((f, i) => field(fn, f, i));
  const b = args[1] instanceof HDict ? (args[1].get("boundary") ?? null) : null;
  if (b !== null && typeof b !== "string") fail(fn, `boundary must be a string, got ${typeOf(b)}`);
  const boundary = b ?? autoBoundary(fn, list, fields);
  checkBoundary(fn, boundary);
  return HDict.of({ body: bytes(body(boundary, fields, quote)), boundary, content_type: `multipart/form-data; boundary=${boundary}` });
}

/** The HTTP client's `multipart: [{name, value, filename?, content_type?}]`
 * body, as the reference writes it: the fixed boundary, names unescaped. */
export function httpMultipart(parts: Value): { body: Uint8Array; contentType: string } {
  const fields: Field[] = (Array.isArray(parts) ? parts : []).map((p) => {
    const get = (k: string) => (p instanceof HDict ? (p.get(k) ?? null) : null);
    const text = (v: Value) => (v === null ? null : typeof v === "string" ? v : display(v));
    const v = get("value") ?? get("content");
    return {
      name: text(get("name")) ?? "",
      filename: text(get("filename")),
      contentType: text(get("content_type")),
      headers: [],
      content: v instanceof HBytes ? v.data : enc.encode(text(v) ?? ""),
    };
  });
  return { body: body(HTTP_BOUNDARY, fields, (s) => s), contentType: `multipart/form-data; boundary=${HTTP_BOUNDARY}` };
}

// ---------------------------------------------------------------------------
// Parsing

/** Rust's Utf8Error text for the first invalid sequence, or null. */
function utf8Error(b: Uint8Array): string | null {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    const need = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (need < 0) return `invalid utf-8 sequence of 1 bytes from index ${i}`;
    let j = 1;
    for (; j <= need; j++) {
      const x = b[i + j];
      if (x === undefined) return `incomplete utf-8 byte sequence from index ${i}`;
      let lo = 0x80;
      let hi = 0xbf;
      if (j === 1) {
        if (c === 0xe0) lo = 0xa0;
        else if (c === 0xed) hi = 0x9f;
        else if (c === 0xf0) lo = 0x90;
        else if (c === 0xf4) hi = 0x8f;
      }
      if (x < lo || x > hi) return `invalid utf-8 sequence of ${j} bytes from index ${i}`;
    }
    i += need + 1;
  }
  return null;
}

const utf8 = (b: Uint8Array) => new TextDecoder().decode(b);

function limit(fn: string, o: HDict | null, key: string, dflt: number): number {
  const v = o?.get(key) ?? null;
  if (v === null) return dflt;
  if (!isNumeric(v) || !Number.isInteger(Number(v))) fail(fn, `${key} must be an int, got ${typeOf(v)}`);
  if (Number(v) < 0) fail(fn, `${key} must be non-negative, got ${String(v)}`);
  return Number(v);
}

/** `form-data; name="a"; filename=x` → the type and its parameters. */
function disposition(value: string): { type: string; params: Map<string, string> } {
  const params = new Map<string, string>();
  const semi = value.indexOf(";");
  const type = (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
  const re = /;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    const key = m[1]!.toLowerCase();
    if (!params.has(key)) params.set(key, m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]!.trim());
  }
  return { type, params };
}

export function parseMultipart(args: Value[]): HDict {
  const fn = "multipart_parse";
  const raw = args[0] ?? null;
  if (!(raw instanceof HBytes) && typeof raw !== "string") fail(fn, `body must be bytes or string, got ${typeOf(raw)}`);
  const data = raw instanceof HBytes ? raw.data : enc.encode(raw);
  const ct = args[1] ?? null;
  if (typeof ct !== "string") fail(fn, `content type must be a string, got ${typeOf(ct)}`);
  const o = args[2] instanceof HDict ? args[2] : null;
  const maxTotal = limit(fn, o, "max_total_bytes", MIB8);
  const maxField = limit(fn, o, "max_field_bytes", MIB8);
  const maxFields = limit(fn, o, "max_fields", 128);
  const media = disposition(ct);
  if (media.type !== "multipart/form-data") fail(fn, `expected multipart/form-data content type, got ${media.type}`);
  const boundary = media.params.get("boundary");
  if (boundary === undefined) fail(fn, "content type is missing boundary");
  checkBoundary(fn, boundary);
  if (data.length > maxTotal) fail(fn, `total body size ${data.length} exceeds max_total_bytes ${maxTotal}`);
  const delim = enc.encode("--" + boundary);
  const next = enc.encode("\r\n--" + boundary);
  const startsAt = (at: number, s: string) => Buffer.from(data.buffer, data.byteOffset + at, Math.min(s.length, Math.max(0, data.length - at))).toString("latin1") === s;
  if (indexOf(data, delim, 0) !== 0) fail(fn, "body does not start with multipart boundary");
  let at = delim.length + 2;
  let closed = startsAt(delim.length, "--");
  if (!closed && !startsAt(delim.length, "\r\n")) fail(fn, "malformed boundary delimiter line");
  const fields: Value[] = [];
  while (!closed) {
    if (fields.length === maxFields) fail(fn, `field count exceeds max_fields ${maxFields}`);
    const headEnd = indexOf(data, enc.encode("\r\n\r\n"), at);
    const headers = new Map<string, Value>();
    let contentStart: number;
    if (startsAt(at, "\r\n")) contentStart = at + 2; // no headers at all
    else {
      if (headEnd < 0) fail(fn, "part is missing header terminator");
      for (const line of utf8(data.subarray(at, headEnd)).split("\r\n")) {
        const c = line.indexOf(":");
        if (c <= 0) fail(fn, `malformed part header line \`${line}\``);
        headers.set(line.slice(0, c).trim().toLowerCase(), line.slice(c + 1).trim());
      }
      contentStart = headEnd + 4;
    }
    const end = indexOf(data, next, contentStart);
    if (end < 0) fail(fn, "part is missing following boundary");
    const content = data.slice(contentStart, end);
    if (content.length > maxField) fail(fn, `field size ${content.length} exceeds max_field_bytes ${maxField}`);
    const disp = headers.get("content-disposition");
    if (typeof disp !== "string") fail(fn, "part is missing Content-Disposition header");
    const d = disposition(disp);
    if (d.type !== "form-data") fail(fn, `expected form-data disposition, got ${d.type}`);
    const name = d.params.get("name");
    if (name === undefined) fail(fn, "part Content-Disposition is missing name");
    fields.push(
      HDict.of({
        bytes: bytes(content),
        content_type: headers.get("content-type") ?? null,
        filename: d.params.get("filename") ?? null,
        headers: new HDict(headers),
        name,
        text: utf8Error(content) === null ? utf8(content) : null,
      }),
    );
    at = end + next.length;
    if (startsAt(at, "--")) {
      at += 2;
      closed = true;
    } else if (startsAt(at, "\r\n")) at += 2;
    else fail(fn, "malformed boundary after part");
  }
  const rest = data.subarray(at);
  if (!(rest.length === 0 || (rest.length === 2 && rest[0] === 0x0d && rest[1] === 0x0a))) fail(fn, "unexpected bytes after closing boundary");
  return HDict.of({ boundary, field_count: fields.length, fields, total_bytes: data.length });
}

function fieldBytes(fn: string, f: Value | undefined): Uint8Array {
  if (!(f instanceof HDict)) fail(fn, `expected a multipart field dict, got ${typeOf(f ?? null)}`);
  const b = f.get("bytes") ?? null;
  if (b === null) fail(fn, "field is missing bytes");
  if (!(b instanceof HBytes)) fail(fn, `field.bytes must be bytes, got ${typeOf(b)}`);
  return b.data;
}

export const MULTIPART_BUILTINS = builtinModule("formats/multipart", (def) => {
  def("multipart_form_data", (args) => formData(args));
  def("multipart_parse", (args) => parseMultipart(args));
  def("multipart_field_bytes", (args) => bytes(fieldBytes("multipart_field_bytes", args[0])));
  def("multipart_field_text", (args) => {
    const b = fieldBytes("multipart_field_text", args[0]);
    const err = utf8Error(b);
    if (err !== null) fail("multipart_field_text", err);
    return utf8(b);
  });
});
