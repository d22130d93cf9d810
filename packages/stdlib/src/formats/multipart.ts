/**
 * multipart/form-data (spec/stdlib.md §23): parsing a body into fields and
 * building one with a deterministic boundary (fixtures compare bytes).
 */
import { display, HarnError, HBytes, HDict, typeOf, type Value } from "@harn/vm";
import { bytes, bytesOrText } from "./bytes";
import { builtinModule } from "../registry/define";

export const DEFAULT_BOUNDARY = "harn-form-boundary";

function fail(msg: string): never {
  throw HarnError.thrown(msg);
}

function str(v: Value): string {
  return typeof v === "string" ? v : display(v);
}

function boundaryOf(contentType: string): string {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!m) fail("multipart_parse: content type has no boundary parameter");
  return m[1] ?? m[2]!;
}

function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  return Buffer.from(hay.buffer, hay.byteOffset, hay.byteLength).indexOf(Buffer.from(needle), from);
}

function dispositionParam(header: string, name: string): string | null {
  const m = new RegExp(`(?:^|;)\\s*${name}="((?:[^"\\\\]|\\\\.)*)"`, "i").exec(header) ?? new RegExp(`(?:^|;)\\s*${name}=([^;\\s]+)`, "i").exec(header);
  return m ? m[1]!.replace(/\\(.)/g, "$1") : null;
}

export function parseMultipart(body: Uint8Array, contentType: string, maxBytes: number | null): HDict {
  if (maxBytes !== null && body.length > maxBytes) fail(`multipart_parse: body exceeds ${maxBytes} bytes`);
  const boundary = boundaryOf(contentType);
  const enc = new TextEncoder();
  const delim = enc.encode("--" + boundary);
  const fields: Value[] = [];
  let at = indexOf(body, delim, 0);
  if (at < 0) fail("multipart_parse: boundary not found in body");
  for (;;) {
    at += delim.length;
    if (body[at] === 0x2d && body[at + 1] === 0x2d) break; // closing `--`
    if (body[at] === 0x0d) at++;
    if (body[at] === 0x0a) at++;
    const next = indexOf(body, delim, at);
    if (next < 0) fail("multipart_parse: missing closing boundary");
    let part = body.subarray(at, next);
    // the CRLF before the next delimiter belongs to the delimiter
    if (part[part.length - 2] === 0x0d && part[part.length - 1] === 0x0a) part = part.subarray(0, part.length - 2);
    else if (part[part.length - 1] === 0x0a) part = part.subarray(0, part.length - 1);
    const split = indexOf(part, enc.encode("\r\n\r\n"), 0);
    const sepLen = split >= 0 ? 4 : 2;
    const headEnd = split >= 0 ? split : indexOf(part, enc.encode("\n\n"), 0);
    if (headEnd < 0) fail("multipart_parse: part without a header block");
    const headText = new TextDecoder().decode(part.subarray(0, headEnd));
    const data = part.subarray(headEnd + sepLen).slice();
    const headers = new Map<string, Value>();
    for (const line of headText.split(/\r?\n/)) {
      const c = line.indexOf(":");
      if (c > 0) headers.set(line.slice(0, c).trim().toLowerCase(), line.slice(c + 1).trim());
    }
    const disp = str(headers.get("content-disposition") ?? "");
    fields.push(
      HDict.of({
        name: dispositionParam(disp, "name"),
        filename: dispositionParam(disp, "filename"),
        content_type: headers.get("content-type") ?? null,
        headers: new HDict(headers),
        bytes: bytes(data),
        text: new TextDecoder().decode(data),
      }),
    );
    at = next;
  }
  return HDict.of({ boundary, fields, field_count: fields.length, total_bytes: body.length });
}

export function formData(fieldsV: Value, boundary: string): HDict {
  const entries: { name: string; value: Value; filename: Value; contentType: Value }[] = [];
  if (fieldsV instanceof HDict) {
    for (const k of fieldsV.keys()) entries.push({ name: k, value: fieldsV.get(k), filename: null, contentType: null });
  } else if (Array.isArray(fieldsV)) {
    for (const f of fieldsV) {
      if (!(f instanceof HDict)) fail(`multipart_form_data: each field must be a dict, got ${typeOf(f)}`);
      entries.push({
        name: str(f.get("name")),
        value: f.has("content") ? f.get("content") : f.get("value"),
        filename: f.get("filename"),
        contentType: f.get("content_type"),
      });
    }
  } else fail("multipart_form_data: expected a list of fields or a dict");
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${e.name.replace(/"/g, '\\"')}"`;
    if (e.filename !== null) head += `; filename="${str(e.filename).replace(/"/g, '\\"')}"`;
    head += "\r\n";
    if (e.contentType !== null) head += `Content-Type: ${str(e.contentType)}\r\n`;
    else if (e.filename !== null) head += "Content-Type: application/octet-stream\r\n";
    parts.push(enc.encode(head + "\r\n"), bytesOrText(e.value === null ? "" : e.value), enc.encode("\r\n"));
  }
  parts.push(enc.encode(`--${boundary}--\r\n`));
  const body = Buffer.concat(parts);
  const isText = entries.every((e) => !(e.value instanceof HBytes));
  return HDict.of({
    content_type: `multipart/form-data; boundary=${boundary}`,
    boundary,
    body: isText ? body.toString("utf8") : bytes(body),
  });
}

export const MULTIPART_BUILTINS = builtinModule("formats/multipart", (def) => {
  def("multipart_parse", (args) => {
    const o = args[2] instanceof HDict ? args[2] : null;
    const max = o?.get("max_bytes");
    return parseMultipart(bytesOrText(args[0]), str(args[1] ?? ""), typeof max === "number" ? max : null);
  });
  def("multipart_field_text", (args) => (args[0] instanceof HDict ? args[0].get("text") : null));
  def("multipart_field_bytes", (args) => (args[0] instanceof HDict ? args[0].get("bytes") : null));
  def("multipart_form_data", (args) => {
    const o = args[1] instanceof HDict ? args[1] : null;
    const b = o?.get("boundary");
    return formData(args[0] ?? null, typeof b === "string" && b !== "" ? b : DEFAULT_BOUNDARY);
  });
});
