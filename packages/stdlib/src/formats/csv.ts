/**
 * CSV (spec/stdlib.md §23), read like Rust's `csv` crate: quoted fields
 * with `""` escapes, CRLF or LF records, blank lines skipped, an unclosed
 * quote running to the end of the input (the crate never rejects quoting),
 * all records must have the same number of fields (its error text); output
 * quotes only fields that need it and ends every record with `\n`.
 */
import { display, HarnError, HDict, type Value } from "@harn/vm";

function fail(fn: string, msg: string): never {
  throw HarnError.thrown(`${fn}: ${msg}`);
}

export function parseCsv(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let i = 0;
  let quoted = false;
  let fieldStarted = false;
  // Where the current record began, as the csv crate reports it: the
  // position just after the previous record (line 1-based, byte offset in
  // UTF-8), which is before any blank lines skipped on the way.
  let line = 1;
  let startLine = 1;
  let startByte = 0;
  let bytes = 0;
  const endField = () => {
    row.push(field);
    field = "";
    fieldStarted = false;
  };
  const endRecord = () => {
    endField();
    if (rows.length > 0 && rows[0]!.length !== row.length) {
      fail(
        "csv_parse",
        `CSV error: record ${rows.length} (line: ${startLine}, byte: ${startByte}): found record with ${row.length} fields, but the previous record has ${rows[0]!.length} fields`,
      );
    }
    rows.push(row);
    row = [];
  };
  const advance = (n: number) => {
    for (let k = 0; k < n; k++) {
      const c = text.charCodeAt(i);
      if (c === 10) line++;
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : c >= 0xdc00 && c <= 0xdfff ? 0 : 3;
      i++;
    }
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          advance(2);
          continue;
        }
        quoted = false;
        advance(1);
        continue;
      }
      field += c;
      advance(1);
      continue;
    }
    if (c === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
      advance(1);
      continue;
    }
    if (c === delimiter) {
      endField();
      advance(1);
      continue;
    }
    if (c === "\r" || c === "\n") {
      advance(c === "\r" && text[i + 1] === "\n" ? 2 : 1);
      // a line terminator that starts a record is a blank line: skipped
      if (fieldStarted || row.length > 0) {
        endRecord();
        startLine = line;
        startByte = bytes;
      }
      continue;
    }
    field += c;
    fieldStarted = true;
    advance(1);
  }
  // an unterminated quoted field simply runs to the end of the input
  if (fieldStarted || row.length > 0) endRecord();
  return rows;
}

function cell(v: Value): string {
  if (v === null) return "";
  return typeof v === "string" ? v : display(v);
}

function quoteField(s: string, delimiter: string): string {
  if (s.includes(delimiter) || s.includes('"') || s.includes("\n") || s.includes("\r")) return '"' + s.replace(/"/g, '""') + '"';
  return s;
}

export function stringifyCsv(rowsV: Value, headers: boolean, delimiter: string): string {
  if (!Array.isArray(rowsV)) fail("csv_stringify", "expected a list of rows");
  const rows = rowsV;
  const dicts = rows.filter((r) => r instanceof HDict).length;
  if (dicts > 0 && dicts !== rows.length) fail("csv_stringify", "mixed list/dict rows are not supported");
  const line = (cells: string[]) => cells.map((c) => quoteField(c, delimiter)).join(delimiter) + "\n";
  let out = "";
  if (dicts > 0) {
    const cols = [...new Set(rows.flatMap((r) => (r as HDict).keys()))].sort();
    if (headers) out += line(cols);
    for (const r of rows as HDict[]) out += line(cols.map((k) => cell(r.get(k))));
    return out;
  }
  for (const r of rows) {
    if (!Array.isArray(r)) fail("csv_stringify", "expected a list of rows");
    out += line(r.map(cell));
  }
  return out;
}
