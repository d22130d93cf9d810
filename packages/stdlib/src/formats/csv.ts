/**
 * CSV (spec/stdlib.md §23), RFC 4180 like Rust's `csv` crate: quoted
 * fields with `""` escapes, CRLF or LF records, a final line break does not
 * start a record, all records must have the same number of fields; output
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
  const endField = () => {
    row.push(field);
    field = "";
    fieldStarted = false;
  };
  const endRecord = () => {
    endField();
    if (rows.length > 0 && rows[0]!.length !== row.length) {
      fail("csv_parse", `found record with ${row.length} fields, but the previous record has ${rows[0]!.length} fields (line ${rows.length + 1})`);
    }
    rows.push(row);
    row = [];
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
      i++;
      continue;
    }
    if (c === delimiter) {
      endField();
      i++;
      continue;
    }
    if (c === "\r" || c === "\n") {
      endRecord();
      i += c === "\r" && text[i + 1] === "\n" ? 2 : 1;
      continue;
    }
    field += c;
    fieldStarted = true;
    i++;
  }
  if (quoted) fail("csv_parse", "unterminated quoted field");
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
