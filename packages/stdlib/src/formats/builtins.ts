/**
 * Data-format builtins: YAML and TOML (§11.5), JSON pointers and jq
 * (§11.4), CSV and URLs/query strings (§23).
 */
import { HarnError, HDict, type Runtime, type Value } from "@harn/vm";
import { strArg } from "../core/args";
import { parseCsv, stringifyCsv } from "./csv";
import { jq } from "./jq";
import { pointerDelete, pointerGet, pointerSet, pointerTokens } from "./pointer";
import { tomlParse, tomlStringify } from "./toml";
import { queryParse, queryStringify, urlBuild, urlParse } from "./url";
import { installStore } from "./store";
import { installArchives } from "./archive";
import { installCompression } from "./compress";
import { installJunit } from "./junit";
import { installMultipart } from "./multipart";
import { installSecretScan } from "./secrets";

function need(name: string, args: Value[], n: number): void {
  if (args.length < n) throw HarnError.thrown(`${name} requires ${n} argument${n === 1 ? "" : "s"}`);
}

function csvOptions(v: Value | undefined): { headers: boolean; delimiter: string } {
  const o = v instanceof HDict ? v : null;
  const d = o?.get("delimiter");
  const delimiter = typeof d === "string" && d.length > 0 ? d[0]! : ",";
  return { headers: o?.get("headers") === true, delimiter };
}

export function installFormats(rt: Runtime): void {
  installStore(rt);
  installCompression(rt);
  installArchives(rt);
  installJunit(rt);
  installMultipart(rt);
  installSecretScan(rt);
  // The YAML library is loaded on first use (it would be the largest single
  // part of `harn run`'s start-up); the builtins are asynchronous until then.
  rt.defineBuiltin("yaml_parse", (args) => import("./yaml").then((m) => m.yamlParse(strArg(args, 0))));
  rt.defineBuiltin("yaml_stringify", (args) => import("./yaml").then((m) => m.yamlStringify(args[0] ?? null)));
  rt.defineBuiltin("toml_parse", (args) => tomlParse(strArg(args, 0)));
  rt.defineBuiltin("toml_stringify", (args) => tomlStringify(args[0] ?? null));

  rt.defineBuiltin("json_pointer", (args) => {
    need("json_pointer", args, 2);
    return pointerGet(args[0]!, pointerTokens("json_pointer", strArg(args, 1)));
  });
  rt.defineBuiltin("json_pointer_set", (args) => {
    need("json_pointer_set", args, 3);
    return pointerSet(args[0]!, pointerTokens("json_pointer_set", strArg(args, 1)), args[2]!);
  });
  rt.defineBuiltin("json_pointer_delete", (args) => {
    need("json_pointer_delete", args, 2);
    return pointerDelete(args[0]!, pointerTokens("json_pointer_delete", strArg(args, 1)));
  });
  rt.defineBuiltin("jq", (args) => {
    need("jq", args, 2);
    return jq(args[0]!, strArg(args, 1));
  });
  rt.defineBuiltin("jq_first", (args) => {
    need("jq_first", args, 2);
    return jq(args[0]!, strArg(args, 1))[0] ?? null;
  });

  rt.defineBuiltin("csv_parse", (args) => {
    const { headers, delimiter } = csvOptions(args[1]);
    const rows = parseCsv(strArg(args, 0), delimiter);
    if (!headers) return rows;
    const [head, ...rest] = rows;
    if (!head) return [];
    return rowDicts(head, rest);
  });
  rt.defineBuiltin("csv_stringify", (args) => {
    const { headers, delimiter } = csvOptions(args[1]);
    return stringifyCsv(args[0] ?? null, headers, delimiter);
  });

  rt.defineBuiltin("url_parse", (args) => urlParse(strArg(args, 0)));
  rt.defineBuiltin("url_build", (args) => urlBuild(args[0] ?? null));
  rt.defineBuiltin("query_parse", (args) => queryParse(strArg(args, 0)));
  rt.defineBuiltin("query_stringify", (args) => queryStringify(args[0] ?? null));
}

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
