/**
 * tar (ustar) and zip archives in memory (spec/stdlib.md §23). Entries are
 * `{path, content, mode?}` dicts; extraction returns the same shape with
 * `content` as bytes. Only regular files are written; extraction skips
 * directories and links. Zip members are deflated (zlib) with CRC-32.
 */
import { display, HarnError, HDict, typeOf, type Value } from "@harn/vm";
import { bytes, bytesOrText, requireBytes } from "./bytes";
import { nodeZlib } from "../core/node-builtins";
import { builtinModule } from "../registry/define";

interface Entry {
  path: string;
  content: Uint8Array;
  mode: number;
}

function fail(msg: string): never {
  throw HarnError.thrown(msg);
}

function entriesArg(fn: string, v: Value | undefined): Entry[] {
  if (!Array.isArray(v)) fail(`${fn}: expected a list of {path, content} dicts, got ${typeOf(v ?? null)}`);
  return v.map((e) => {
    if (!(e instanceof HDict) || !e.has("path")) fail(`${fn}: each entry must be a dict with 'path' and 'content'`);
    const p = e.get("path");
    const path = typeof p === "string" ? p : display(p);
    if (path === "") fail(`${fn}: entry path must not be empty`);
    const mode = e.get("mode");
    return { path, content: bytesOrText(e.get("content") ?? ""), mode: typeof mode === "number" ? mode : 0o644 };
  });
}

function toValue(entries: Entry[]): Value {
  return entries.map((e) => HDict.of({ path: e.path, content: bytes(e.content), mode: e.mode }));
}

// ---------------------------------------------------------------------------
// tar

const BLOCK = 512;

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

function tarHeader(e: Entry): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const enc = new TextEncoder();
  let name = e.path;
  let prefix = "";
  if (enc.encode(name).length > 100) {
    const cut = name.lastIndexOf("/", name.length - 1);
    if (cut <= 0 || enc.encode(name.slice(cut + 1)).length > 100 || enc.encode(name.slice(0, cut)).length > 155) {
      fail(`tar_create: path too long for a ustar archive: ${e.path}`);
    }
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  const put = (s: string, at: number) => h.set(enc.encode(s), at);
  put(name, 0);
  put(octal(e.mode & 0o7777, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  put(octal(e.content.length, 12), 124);
  put(octal(0, 12), 136);
  put("        ", 148);
  put("0", 156);
  put("ustar\0", 257);
  put("00", 263);
  put(prefix, 345);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148);
  return h;
}

export function tarCreate(entries: Entry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    parts.push(tarHeader(e), e.content);
    const pad = (BLOCK - (e.content.length % BLOCK)) % BLOCK;
    if (pad) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  return Buffer.concat(parts);
}

function cstr(b: Uint8Array): string {
  const end = b.indexOf(0);
  return new TextDecoder().decode(end < 0 ? b : b.subarray(0, end));
}

export function tarExtract(data: Uint8Array): Entry[] {
  const out: Entry[] = [];
  let at = 0;
  let longName: string | null = null;
  while (at + BLOCK <= data.length) {
    const h = data.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) break;
    const size = parseInt(cstr(h.subarray(124, 136)).trim() || "0", 8);
    if (Number.isNaN(size)) fail("tar_extract: corrupt header (bad size)");
    const type = String.fromCharCode(h[156]!);
    const magic = cstr(h.subarray(257, 263));
    const prefix = magic.startsWith("ustar") ? cstr(h.subarray(345, 500)) : "";
    const name = longName ?? (prefix ? prefix + "/" : "") + cstr(h.subarray(0, 100));
    const mode = parseInt(cstr(h.subarray(100, 108)).trim() || "644", 8);
    const body = data.subarray(at + BLOCK, at + BLOCK + size);
    if (body.length < size) fail("tar_extract: archive is truncated");
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "L") {
      longName = cstr(body);
      continue;
    }
    longName = null;
    if (type === "0" || type === "\0") out.push({ path: name, content: body.slice(), mode });
  }
  return out;
}

// ---------------------------------------------------------------------------
// zip

export function zipCreate(entries: Entry[]): Uint8Array {
  const enc = new TextEncoder();
  const locals: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = enc.encode(e.path);
    const deflated = nodeZlib().deflateRawSync(e.content);
    const crc = nodeZlib().crc32(e.content);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(0, 10); // time/date
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(deflated.length, 18);
    local.writeUInt32LE(e.content.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, deflated);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE((3 << 8) | 20, 4); // made by unix
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(0x0800, 8);
    cd.writeUInt16LE(8, 10);
    cd.writeUInt32LE(0, 12);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(deflated.length, 20);
    cd.writeUInt32LE(e.content.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(((0o100000 | (e.mode & 0o7777)) << 16) >>> 0, 38);
    cd.writeUInt32LE(offset, 42);
    central.push(cd, name);
    offset += 30 + name.length + deflated.length;
  }
  const cdSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...central, end]);
}

export function zipExtract(data: Uint8Array): Entry[] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) fail("zip_extract: not a zip archive (no end of central directory)");
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const out: Entry[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) fail("zip_extract: corrupt central directory");
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const attrs = buf.readUInt32LE(at + 38);
    const localAt = buf.readUInt32LE(at + 42);
    const name = new TextDecoder().decode(buf.subarray(at + 46, at + 46 + nameLen));
    at += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith("/")) continue;
    const lNameLen = buf.readUInt16LE(localAt + 26);
    const lExtraLen = buf.readUInt16LE(localAt + 28);
    const start = localAt + 30 + lNameLen + lExtraLen;
    const raw = buf.subarray(start, start + compressed);
    let content: Uint8Array;
    if (method === 0) content = raw.slice();
    else if (method === 8) content = nodeZlib().inflateRawSync(raw);
    else fail(`zip_extract: unsupported compression method ${method} for ${name}`);
    const unixMode = attrs >>> 16;
    out.push({ path: name, content, mode: unixMode ? unixMode & 0o7777 : 0o644 });
  }
  return out;
}

export const ARCHIVES_BUILTINS = builtinModule("formats/archive", (def) => {
  def("tar_create", (args) => bytes(tarCreate(entriesArg("tar_create", args[0]))));
  def("tar_extract", (args) => toValue(tarExtract(requireBytes("tar_extract", args[0]))));
  def("zip_create", (args) => bytes(zipCreate(entriesArg("zip_create", args[0]))));
  def("zip_extract", (args) => {
    const data = requireBytes("zip_extract", args[0]);
    try {
      return toValue(zipExtract(data));
    } catch (e) {
      if (e instanceof RangeError) fail("zip_extract: archive is truncated");
      throw e;
    }
  });
});
