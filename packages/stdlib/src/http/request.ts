/**
 * Turning builtin arguments into a validated request description
 * (spec/stdlib.md §19.1): URL checks, query appending, headers, auth, body,
 * timeouts, retry and redirect policy. Validation failures are thrown
 * strings with the reference's texts.
 */
import { display, HarnError, HDict, HDuration, HFloat, type Value } from "@harn/vm";
import { httpMultipart } from "../formats/multipart";
import { appendQuery } from "./form";

export interface RetryPolicy {
  max: number;
  backoffMs: number;
  retryOn: Set<number>;
  methods: Set<string>;
  respectRetryAfter: boolean;
}

export interface ProxyConfig {
  url: string;
  noProxy: string[];
  auth: { user: string; pass: string } | null;
}

export interface RequestSpec {
  /** The builtin name for error messages (`http_get`, `http_request`, …). */
  fn: string;
  method: string;
  /** The final URL, query appended. */
  url: string;
  /** Header names as given (validated), values as display strings. */
  headers: [string, string][];
  /** Text, or bytes for a multipart body. */
  body: string | Uint8Array | null;
  /** The body was built from the `multipart` option. */
  multipart: boolean;
  totalTimeoutMs: number;
  connectTimeoutMs: number | null;
  readTimeoutMs: number | null;
  retry: RetryPolicy;
  followRedirects: boolean;
  maxRedirects: number;
  /** Ask for compressed bodies and decode them (`decompress`, default true). */
  decompress: boolean;
  proxy: ProxyConfig | null;
}

const DEFAULT_RETRY_ON = [408, 429, 500, 502, 503, 504];
const DEFAULT_RETRY_METHODS = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"];
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function fail(msg: string): never {
  throw HarnError.thrown(msg);
}

function opt(options: HDict | null, key: string): Value {
  return options && options.has(key) ? options.get(key) : null;
}

/** A millisecond option: an int, a float (rounded) or a duration; null otherwise. */
export function msValue(v: Value): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof HFloat && Number.isFinite(v.v)) return Math.round(v.v);
  if (v instanceof HDuration) return v.ms;
  return null;
}

function str(v: Value): string {
  return typeof v === "string" ? v : display(v);
}

/** The `timeout_ms` / `timeout` option (ms or a duration), else the
 * default of 30 s (spec/stdlib.md §19.1). */
export function timeoutOption(options: HDict | null): number {
  return msValue(opt(options, "timeout_ms")) ?? msValue(opt(options, "timeout")) ?? 30_000;
}

/** Options are a dict or nothing. */
export function optionsArg(v: Value | undefined): HDict | null {
  return v instanceof HDict ? v : null;
}

/**
 * Merge session defaults under per-request options (request wins; headers
 * are merged key by key).
 */
export function mergeOptions(base: HDict | null, over: HDict | null): HDict | null {
  if (!base) return over;
  if (!over) return base;
  const m = new Map(base.map);
  for (const [k, v] of over.map) {
    const b = m.get(k);
    m.set(k, k === "headers" && b instanceof HDict && v instanceof HDict ? new HDict(new Map([...b.map, ...v.map])) : v);
  }
  return new HDict(m);
}

export function buildRequest(fn: string, methodIn: string, urlIn: string, body: string | null, options: HDict | null): RequestSpec {
  if (urlIn === "") fail(`${fn}: URL is required`);
  if (methodIn === "") fail(`${fn}: method is required`);
  const method = methodIn.toUpperCase();
  if (!urlIn.startsWith("http://") && !urlIn.startsWith("https://")) {
    fail(`http: URL must start with http:// or https://, got '${urlIn}'`);
  }
  let url = urlIn;
  const query = opt(options, "query");
  if (query instanceof HDict && query.size > 0) {
    let parsed: URL;
    try {
      parsed = new URL(urlIn);
    } catch {
      fail(`http: invalid URL '${urlIn}': ${urlParseDetail(urlIn)}`);
    }
    const pairs: [string, string][] = [];
    for (const k of query.keys()) {
      const v = query.get(k);
      if (v !== null) pairs.push([k, str(v)]);
    }
    url = appendQuery(parsed, pairs);
  }
  if (!TOKEN.test(method)) fail(`http: invalid method '${methodIn}': invalid HTTP method`);

  const headers: [string, string][] = [];
  const hdrs = opt(options, "headers");
  if (hdrs instanceof HDict) {
    for (const k of hdrs.keys()) {
      const v = str(hdrs.get(k));
      if (!TOKEN.test(k)) fail(`http: invalid header name '${k}': invalid HTTP header name`);
      if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(v)) fail(`http: invalid header value for '${k}': failed to parse header value`);
      headers.push([k, v]);
    }
  }
  const auth = authHeader(opt(options, "auth"));
  if (auth !== null) {
    const i = headers.findIndex(([k]) => k.toLowerCase() === "authorization");
    if (i >= 0) headers.splice(i, 1);
    headers.push(["Authorization", auth]);
  }

  let payload: string | Uint8Array | null = body;
  const optBody = opt(options, "body");
  if (payload === null && optBody !== null) payload = str(optBody);
  const multipart = opt(options, "multipart");
  let multipartBody: Uint8Array | null = null;
  if (payload === null && multipart !== null) {
    const form = httpMultipart(multipart);
    payload = multipartBody = form.body;
    if (!headers.some(([k]) => k.toLowerCase() === "content-type")) headers.push(["Content-Type", form.contentType]);
  }

  const timeout = timeoutOption(options);
  const total = msValue(opt(options, "total_timeout_ms")) ?? timeout;

  return {
    fn,
    method,
    url,
    headers,
    body: payload,
    multipart: payload !== null && payload === multipartBody,
    totalTimeoutMs: total,
    connectTimeoutMs: msValue(opt(options, "connect_timeout_ms")),
    readTimeoutMs: msValue(opt(options, "read_timeout_ms")),
    retry: retryPolicy(options),
    followRedirects: opt(options, "follow_redirects") !== false,
    maxRedirects: msValue(opt(options, "max_redirects")) ?? 10,
    decompress: opt(options, "decompress") !== false,
    proxy: proxyConfig(options),
  };
}

function authHeader(auth: Value): string | null {
  if (auth === null) return null;
  if (typeof auth === "string") return auth;
  if (auth instanceof HDict) {
    if (auth.has("bearer")) return "Bearer " + str(auth.get("bearer"));
    const basic = auth.get("basic");
    if (basic instanceof HDict) {
      const user = basic.has("user") ? str(basic.get("user")) : basic.has("username") ? str(basic.get("username")) : "";
      const pass = basic.has("password") ? str(basic.get("password")) : basic.has("pass") ? str(basic.get("pass")) : "";
      return "Basic " + Buffer.from(`${user}:${pass}`, "utf8").toString("base64");
    }
  }
  return str(auth);
}

function retryPolicy(options: HDict | null): RetryPolicy {
  const retry = opt(options, "retry");
  let max = 0;
  let backoffMs = 1000;
  if (retry instanceof HDict) {
    max = msValue(retry.get("max")) ?? 0;
    backoffMs = msValue(retry.get("backoff_ms")) ?? msValue(retry.get("backoff")) ?? 1000;
  } else {
    max = msValue(opt(options, "retries")) ?? 0;
    backoffMs = msValue(opt(options, "backoff")) ?? msValue(opt(options, "backoff_ms")) ?? 1000;
  }
  const retryOnV = opt(options, "retry_on");
  let retryOn = DEFAULT_RETRY_ON;
  if (Array.isArray(retryOnV)) {
    const codes = retryOnV.filter((x): x is number => typeof x === "number");
    if (codes.length > 0) retryOn = codes;
  }
  const methodsV = opt(options, "retry_methods");
  let methods = DEFAULT_RETRY_METHODS;
  if (Array.isArray(methodsV) && methodsV.length > 0) methods = methodsV.map((m) => str(m).toUpperCase());
  return {
    max: Math.max(0, max),
    backoffMs: Math.max(0, backoffMs),
    retryOn: new Set(retryOn),
    methods: new Set(methods),
    respectRetryAfter: opt(options, "respect_retry_after") !== false,
  };
}

function proxyConfig(options: HDict | null): ProxyConfig | null {
  const p = opt(options, "proxy");
  let url: string | null = null;
  let noProxy: string[] = [];
  if (typeof p === "string" && p !== "") url = p;
  else if (p instanceof HDict && p.has("url")) {
    url = str(p.get("url"));
    const np = p.get("no_proxy");
    if (Array.isArray(np)) noProxy = np.map(str);
    else if (typeof np === "string") noProxy = np.split(",").map((s) => s.trim()).filter((s) => s !== "");
  }
  if (url === null) return null;
  const pa = opt(options, "proxy_auth");
  const auth = pa instanceof HDict ? { user: str(pa.get("user")), pass: pa.has("pass") ? str(pa.get("pass")) : str(pa.get("password")) } : null;
  return { url, noProxy, auth };
}

/** The `url` crate's wording for common parse failures. */
function urlParseDetail(url: string): string {
  const m = /^https?:\/\/([^/?#]*)/.exec(url);
  const authority = m ? m[1]! : "";
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  if (hostPort === "") return "empty host";
  const port = /:([^:\]]*)$/.exec(hostPort);
  if (port && !/^\d*$/.test(port[1]!)) return "invalid port number";
  if (port && Number(port[1]) > 65535) return "invalid port number";
  return "invalid domain character";
}
