/**
 * `url_parse`, `url_build`, `query_parse`, `query_stringify` (spec/stdlib.md
 * §23) on the WHATWG URL parser, which the Rust `url` crate also follows.
 */
import { display, HarnError, HDict, type Value } from "@harn/vm";
import { formParse, formSerialize } from "../http/form";

function fail(msg: string): never {
  throw HarnError.thrown(msg);
}

export function urlParse(text: string): HDict {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    fail(`url_parse: ${/^[A-Za-z][A-Za-z0-9+.-]*:/.test(text) ? "invalid URL" : "relative URL without a base"}`);
  }
  const port = u.port !== "" ? Number(u.port) : null;
  return HDict.of({
    scheme: u.protocol.slice(0, -1),
    host: u.hostname === "" ? null : u.hostname,
    port,
    path: u.pathname,
    query: u.search === "" ? null : u.search.slice(1),
    fragment: u.hash === "" ? null : u.hash.slice(1),
    username: u.username === "" ? null : decodeURIComponent(u.username),
    password: u.password === "" ? null : decodeURIComponent(u.password),
  });
}

function str(v: Value): string {
  return typeof v === "string" ? v : display(v);
}

export function urlBuild(parts: Value): string {
  if (!(parts instanceof HDict)) fail("url_build: expected a dict of URL parts");
  const scheme = parts.get("scheme");
  if (scheme === null || scheme === "") fail("url_build: 'scheme' is required");
  let out = str(scheme) + ":";
  const host = parts.get("host");
  if (host !== null) {
    out += "//";
    const user = parts.get("username");
    const pass = parts.get("password");
    if (user !== null) {
      out += encodeURIComponent(str(user));
      if (pass !== null) out += ":" + encodeURIComponent(str(pass));
      out += "@";
    }
    out += str(host);
    const port = parts.get("port");
    if (port !== null) out += ":" + str(port);
  }
  const path = parts.get("path");
  if (path !== null) {
    const p = str(path);
    out += host !== null && p !== "" && !p.startsWith("/") ? "/" + p : p;
  } else if (host !== null) {
    out += "/";
  }
  const query = parts.get("query");
  if (query instanceof HDict) {
    const pairs = query.keys().filter((k) => query.get(k) !== null).map((k): [string, string] => [k, str(query.get(k))]);
    if (pairs.length > 0) out += "?" + formSerialize(pairs);
  } else if (query !== null && query !== "") out += "?" + str(query).replace(/^\?/, "");
  const fragment = parts.get("fragment");
  if (fragment !== null && fragment !== "") out += "#" + str(fragment).replace(/^#/, "");
  try {
    return new URL(out).href;
  } catch {
    return out;
  }
}

export function queryParse(qs: string): Value[] {
  return formParse(qs).map(([key, value]) => HDict.of({ key, value }));
}

export function queryStringify(pairs: Value): string {
  if (!Array.isArray(pairs)) fail("query_stringify: expected a list of {key, value} dicts");
  const out: [string, string][] = [];
  for (const p of pairs) {
    if (!(p instanceof HDict) || !p.has("key")) fail("query_stringify: each item must be a {key, value} dict");
    out.push([str(p.get("key")), p.get("value") === null ? "" : str(p.get("value"))]);
  }
  return formSerialize(out);
}
