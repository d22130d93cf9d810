/**
 * Data-format builtins: YAML and TOML (§11.5), JSON pointers and jq
 * (§11.4), CSV and URLs/query strings (§23).
 */
import { HarnError, HDict, type Value } from "@harn/vm";
import { strArg } from "../core/args";
import { parseCsv, stringifyCsv } from "./csv";
import { jq } from "./jq";
import { pointerDelete, pointerGet, pointerSet, pointerTokens } from "./pointer";
import { tomlParse, tomlStringify } from "./toml";
import { queryParse, queryStringify, urlBuild, urlParse } from "./url";
import { STORE_BUILTINS } from "./store";
import { METADATA_BUILTINS } from "./metadata";
import { ARCHIVES_BUILTINS } from "./archive";
import { COMPRESSION_BUILTINS } from "./compress";
import { JUNIT_BUILTINS } from "./junit";
import { MULTIPART_BUILTINS } from "./multipart";
import { SECRET_SCAN_BUILTINS } from "./secrets";
import { builtinModule, type BuiltinModule } from "../registry/define";

function need(name: string, args: Value[], n: number): void {
  if (args.length < n) throw HarnError.thrown(`${name} requires ${n} argument${n === 1 ? "" : "s"}`);
}

function csvOptions(v: Value | undefined): { headers: boolean; delimiter: string } {
  const o = v instanceof HDict ? v : null;
  const d = o?.get("delimiter");
  const delimiter = typeof d === "string" && d.length > 0 ? d[0]! : ",";
  return { headers: o?.get("headers") === true, delimiter };
}

export const FORMATS_BUILTINS = builtinModule("formats/builtins", (def) => {
  // The YAML library is loaded on first use (it would be the largest single
  // part of `harn run`'s start-up); the builtins are asynchronous until then.
  def("yaml_parse", (args) => import("./yaml").then((m) => m.yamlParse(strArg(args, 0))));
  def("yaml_stringify", (args) => import("./yaml").then((m) => m.yamlStringify(args[0] ?? null)));
  def("toml_parse", (args) => tomlParse(strArg(args, 0)));
  def("toml_stringify", (args) => tomlStringify(args[0] ?? null));

  def("json_pointer", (args) => {
    need("json_pointer", args, 2);
    return pointerGet(args[0]!, pointerTokens("json_pointer", strArg(args, 1)));
  });
  def("json_pointer_set", (args) => {
    need("json_pointer_set", args, 3);
    return pointerSet(args[0]!, pointerTokens("json_pointer_set", strArg(args, 1)), args[2]!);
  });
  def("json_pointer_delete", (args) => {
    need("json_pointer_delete", args, 2);
    return pointerDelete(args[0]!, pointerTokens("json_pointer_delete", strArg(args, 1)));
  });
  def("jq", (args) => {
    need("jq", args, 2);
    return jq(args[0]!, strArg(args, 1));
  });
  def("jq_first", (args) => {
    need("jq_first", args, 2);
    return jq(args[0]!, strArg(args, 1))[0] ?? null;
  });

  def("csv_parse", (args) => {
    const { headers, delimiter } = csvOptions(args[1]);
    const rows = parseCsv(strArg(args, 0), delimiter);
    if (!headers) return rows;
    const [head, ...rest] = rows;
    if (!head) return [];
    return rowDicts(head, rest);
  });
  def("csv_stringify", (args) => {
    const { headers, delimiter } = csvOptions(args[1]);
    return stringifyCsv(args[0] ?? null, headers, delimiter);
  });

  def("url_parse", (args) => urlParse(strArg(args, 0)));
  def("url_build", (args) => urlBuild(args[0] ?? null));
  def("query_parse", (args) => queryParse(strArg(args, 0)));
  def("query_stringify", (args) => queryStringify(args[0] ?? null));
});

/** Rows keyed by the header: compact records sharing one key array (a CSV
 * can have very many rows), unless a header repeats (the later column wins,
 * as a dict built key by key would have it) or is wider than a record is worth. */
function rowDicts(head: string[], rows: string[][]): HDict[] {
  if (new Set(head).size !== head.length || head.length > HDict.RECORD_MAX_KEYS) {
    return rows.map((r) => new HDict(new Map(head.map((h, i) => [h, r[i] ?? ""]))));
  }
  const keys = HDict.recordKeys(...head);
  const column = keys.map((k) => head.indexOf(k));
  return rows.map((r) => {
    const values: Value[] = new Array(column.length);
    for (let i = 0; i < column.length; i++) values[i] = r[column[i]!] ?? "";
    return HDict.record(keys, values);
  });
}

/** The formats group's builtin modules (lazy/groups.ts), in install order. */
export const FORMAT_MODULES: readonly BuiltinModule[] = [STORE_BUILTINS, METADATA_BUILTINS, COMPRESSION_BUILTINS, ARCHIVES_BUILTINS, JUNIT_BUILTINS, MULTIPART_BUILTINS, SECRET_SCAN_BUILTINS, FORMATS_BUILTINS];
