/**
 * `http_mock` scripting and the record of mocked calls (spec/stdlib.md
 * §19.2), per runtime. Only matched requests are recorded; unmatched ones
 * go to the network.
 */
import { display, HarnError, HBytes, HDict, RuntimeSlot, type Runtime, type Value } from "@harn/vm";
import { redactUrl, SENSITIVE_HEADERS, urlMatches } from "./form";
import type { RequestSpec } from "./request";

export interface MockResponse {
  status: number;
  body: string;
  /** Exactly the dict given to the mock. */
  headers: HDict;
}

interface Mock {
  /** Upper-cased method, or `*`. */
  method: string;
  pattern: string;
  responses: MockResponse[];
  next: number;
}

interface RecordedCall {
  method: string;
  url: string;
  headers: [string, string][];
  body: string | Uint8Array | null;
}

export interface MockState {
  mocks: Mock[];
  calls: RecordedCall[];
  /** Called by `http_mock_clear` to drop open stream handles. */
  onClear: (() => void)[];
}

export const mockSlot = new RuntimeSlot<MockState>("http.mocks", () => ({ mocks: [], calls: [], onClear: [] }));

function str(v: Value): string {
  return typeof v === "string" ? v : display(v);
}

function parseResponse(v: Value): MockResponse {
  if (!(v instanceof HDict)) return { status: 200, body: v === null ? "" : str(v), headers: HDict.empty() };
  const status = v.get("status");
  const body = v.get("body");
  const headers = v.get("headers");
  return {
    status: typeof status === "number" ? status : 200,
    body: body === null ? "" : str(body),
    headers: headers instanceof HDict ? headers : HDict.empty(),
  };
}

export function registerMock(rt: Runtime, method: string, pattern: string, response: Value): void {
  const state = rt.slot(mockSlot);
  const m = method.toUpperCase();
  let responses: MockResponse[];
  const scripted = response instanceof HDict ? response.get("responses") : null;
  if (Array.isArray(scripted) && scripted.length > 0) responses = scripted.map(parseResponse);
  else responses = [parseResponse(response)];
  state.mocks = state.mocks.filter((x) => !(x.method === m && x.pattern === pattern));
  state.mocks.push({ method: m, pattern, responses, next: 0 });
}

/**
 * The next scripted response of the earliest registered mock matching the
 * request, recording the call; null when no mock matches.
 */
export function takeMock(rt: Runtime, spec: RequestSpec): MockResponse | null {
  const state = rt.slot(mockSlot);
  for (const mock of state.mocks) {
    if (mock.method !== "*" && mock.method !== spec.method) continue;
    if (!urlMatches(mock.pattern, spec.url)) continue;
    const r = mock.responses[Math.min(mock.next, mock.responses.length - 1)]!;
    mock.next++;
    state.calls.push({
      method: spec.method,
      url: spec.url,
      headers: spec.headers.map(([k, v]) => [k.toLowerCase(), v]),
      // A multipart body is recorded as its (lossy) text, as the reference
      // records it; other binary bodies stay bytes.
      body: spec.multipart && spec.body instanceof Uint8Array ? new TextDecoder().decode(spec.body) : spec.body,
    });
    return r;
  }
  return null;
}

export function mockCalls(rt: Runtime, options: Value): Value[] {
  let redact = true;
  if (options instanceof HDict) {
    if (options.get("redact_sensitive") === false || options.get("redact_headers") === false) redact = false;
    if (options.get("include_sensitive") === true || options.get("include_sensitive_headers") === true) redact = false;
  }
  return rt.slot(mockSlot).calls.map((c) => {
    const headers = new Map<string, Value>();
    for (const [k, v] of c.headers) headers.set(k, redact && SENSITIVE_HEADERS.has(k) ? "[redacted]" : v);
    return HDict.of({
      method: c.method,
      url: redact ? redactUrl(c.url) : c.url,
      headers: new HDict(headers),
      body: c.body instanceof Uint8Array ? new HBytes(c.body) : c.body,
    });
  });
}

export function clearMocks(rt: Runtime): void {
  const state = rt.slot(mockSlot);
  state.mocks = [];
  state.calls = [];
  for (const f of state.onClear) f();
}

export function mockArgs(args: Value[]): [string, string, Value] {
  if (args.length < 3) throw HarnError.thrown("http_mock requires 3 arguments: method, url_pattern, response");
  return [str(args[0]!), str(args[1]!), args[2]!];
}
