/**
 * Signatures and docs of the formats builtins for the builtin table
 * (registry/docs.ts): the spec's words where it documents the builtin, a
 * short summary where it only mentions it. Read by the build only.
 */
import type { BuiltinDocs } from "../registry/docs";

export const FORMAT_DOCS: BuiltinDocs = {
  brotli_decode: ["brotli_decode(bytes)", "Decompresses brotli bytes; returns bytes."],
  brotli_encode: ["brotli_encode(data, level?)", "Brotli-compresses a string or bytes; returns bytes."],
  csv_parse: ["csv_parse(text, {headers?, delimiter?})", "List of row lists, or with `headers: true` a list of dicts keyed by the header row (all cells strings); errors throws `csv_parse: <detail>`."],
  csv_stringify: ["csv_stringify(rows, {headers?, delimiter?})", "Rows are lists or dicts (dict rows use the sorted union of keys as columns; header line only when `headers: true`); every record, the last included, ends with `\\n` (`csv_stringify([[\"a\",\"b\"]])` → `\"a,b\\n\"`); fields are quoted only when needed;"],
  gzip_decode: ["gzip_decode(bytes)", "Decompresses gzip bytes; returns bytes (decoders require bytes)."],
  gzip_encode: ["gzip_encode(data, level?)", "Gzip-compresses a string or bytes; returns bytes."],
  jq: ["jq(value, expr)", "Returns list of all outputs; `jq_first(value, expr)` → first output or nil. Supported subset: `.`, `.a`, `.a.b`, `.\"key\"`, `.[\"key with spaces\"]`, `.[n]`, `.[]`, `.[a:b]` (also after a path, e.g."],
  jq_first: ["jq_first(value, expr)", "The first output of `jq(value, expr)`, or nil."],
  json_pointer: ["json_pointer(value, ptr)", "RFC 6901 lookup; `\"\"` is the whole value; `~0`→`~`, `~1`→`/`; list segments must be canonical non-negative integers (no leading zeros); missing path → `nil`."],
  json_pointer_delete: ["json_pointer_delete(value, ptr)", "Copy with the key/element removed; missing paths unchanged; `\"\"` returns nil."],
  json_pointer_set: ["json_pointer_set(value, ptr, new)", "Returns a modified copy; inserts or replaces a dict key when the parent exists; list index replaces, index `== len` or `-` appends; unreachable paths return the input unchanged; `\"\"` returns `new`."],
  multipart_field_bytes: ["multipart_field_bytes(f)", "Returns `f.bytes`. `multipart_field_text(f)` decodes `f.bytes` strictly; invalid UTF-8 runtime error `multipart_field_text: <decoder detail>`. A missing or wrong-typed `bytes` runtime error `BUILTIN: field is missing bytes` / `BUILTIN: field.bytes must be bytes, got TYPE`."],
  multipart_field_text: ["multipart_field_text(f)", "Decodes a multipart field's bytes as strict UTF-8."],
  multipart_form_data: ["multipart_form_data(fields, opts?)", "Returns `{body: bytes, boundary, content_type}`."],
  multipart_parse: ["multipart_parse(body, content_type, opts?)", "Returns `{boundary, fields, field_count, total_bytes}`, each field `{name, filename, content_type, headers, bytes, text}`; `multipart_field_text(f)`, `multipart_field_bytes(f)`, `multipart_form_data(fields, opts?)` → `{content_type, boundary, body}` (deterministic fixtures)."],
  parse_junit_xml: ["parse_junit_xml(xml)", "One dict per `<testcase>` of a JUnit XML document (string or bytes), in document order: `{name, status, duration_ms, message, stdout, stderr}`."],
  query_parse: ["query_parse(qs)", "List of `{key, value}` dicts (form decoding; a leading `?` is ignored); `query_stringify(pairs)` — form-encoded string from a list of `{key, value}` dicts (throws `query_stringify: expected a list of {key, value} dicts` / `query_stringify: each item must be a {key, value} dict`)."],
  query_stringify: ["query_stringify(pairs)", "A form-encoded string from a list of `{key, value}` dicts."],
  secret_scan: ["secret_scan(text, opts?)", "Detects credential-like strings."],
  store_clear: ["store_clear()", "Removes every stored key."],
  store_delete: ["store_delete(key)", "Removes a stored key."],
  store_get: ["store_get(key)", "Returns stored value or nil; `store_set(key, value)` (values are stored as JSON and saved immediately); `store_delete(key)`; `store_list()` → sorted keys; `store_save()`; `store_clear()`. Backed by `store.json` under the project's `.harn` state directory (project root, else the script directory);"],
  store_list: ["store_list()", "The stored keys, sorted."],
  store_save: ["store_save()", "Writes the store to disk."],
  store_set: ["store_set(key, value)", "Stores a value (as JSON, saved immediately)."],
  tar_create: ["tar_create(entries)", "Entries are `{path, content, mode?}` dicts; extract returns the same shape (content as bytes)."],
  tar_extract: ["tar_extract(bytes)", "Entries are `{path, content, mode?}` dicts; extract returns the same shape (content as bytes)."],
  toml_parse: ["toml_parse(text)", "Returns dict; error throws `TOML parse error: <detail>`. `toml_stringify(value)` → TOML text; non-table roots or unsupported values throws `toml_stringify: <detail>`."],
  toml_stringify: ["toml_stringify(value)", "TOML text of a dict; non-table roots or unsupported values throw `toml_stringify: <detail>`."],
  url_build: ["url_build(parts)", "Inverse of `url_parse` (`scheme` required: throws `url_build: 'scheme' is required`)."],
  url_parse: ["url_parse(url)", "`{scheme, host, port, path, query, fragment, username, password}` (absent parts nil); throws `url_parse: <detail>`."],
  yaml_parse: ["yaml_parse(text)", "Returns value (via a JSON-compatible mapping); error throws `YAML parse error: <detail>`. `yaml_stringify(value)` → YAML text (sets as sequences, structs as mappings)."],
  yaml_stringify: ["yaml_stringify(value)", "YAML text of a value (sets as sequences, structs as mappings)."],
  zip_create: ["zip_create(entries)", "Entries are `{path, content, mode?}` dicts; extract returns the same shape (content as bytes)."],
  zip_extract: ["zip_extract(bytes)", "Entries are `{path, content, mode?}` dicts; extract returns the same shape (content as bytes)."],
  zstd_decode: ["zstd_decode(bytes)", "Only bytes are accepted (runtime error `zstd_decode: expected bytes at argument 1, got TYPE`; no argument runtime error `zstd_decode: missing argument 1`). It decodes every concatenated frame and returns bytes. Malformed input runtime error `zstd_decode: <decoder detail>`."],
  zstd_encode: ["zstd_encode(data, level = 3)", "`data` is a string (UTF-8) or bytes, and the result is bytes holding a standard zstd frame. `level` must be an int (runtime error `zstd_encode: level must be an int, got TYPE`) between libzstd's minimum and maximum, −131072 and 22 (runtime error `zstd_encode: level must be between -131072 and 22, got N`)."],
};
