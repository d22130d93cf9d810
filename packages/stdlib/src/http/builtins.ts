/**
 * HTTP_BUILTINS client builtins (spec/stdlib.md §19): the verbs, `http_request`,
 * mocks, sessions, downloads and byte streams. Responses are
 * `{status, headers, body, ok}`; non-2xx statuses never throw.
 */
import { writeFile } from "node:fs/promises";
import { display, HarnError, HBytes, HDict, isPromise, raceSignal, RuntimeSlot, type CallContext, type Runtime, type Value } from "@harn/vm";
import { strArg } from "../core/args";
import { osErrorText } from "../core/oserror";
import { resolvePath } from "../core/paths";
import { execute, responseDict, type Response } from "./client";
import { clearMocks, mockArgs, mockCalls, mockSlot, registerMock, takeMock } from "./mocks";
import { buildRequest, mergeOptions, optionsArg, type RequestSpec } from "./request";
import { open, TransportError, type BodyReader } from "./transport";
import { STREAMS_BUILTINS } from "./streams";
import { COOKIES_BUILTINS } from "./cookies";
import { checkEgress, EGRESS_BUILTINS } from "./egress";
import { SIGNING_BUILTINS } from "./signing";
import { builtinModule, type BuiltinModule } from "../registry/define";

interface Stream {
  status: number;
  headers: HDict;
  pending: Uint8Array;
  reader: BodyReader | null;
  /** A read a cancelled caller left behind: the next caller takes it over
   * rather than starting another, so its chunk is not lost. */
  reading: Promise<Uint8Array | null> | null;
  close: () => void;
}

interface Handles {
  sessions: Map<string, HDict | null>;
  streams: Map<string, Stream>;
  nextSession: number;
  nextStream: number;
}

const handleSlot = new RuntimeSlot<Handles>("http.handles", (rt) => {
  const h: Handles = { sessions: new Map(), streams: new Map(), nextSession: 1, nextStream: 1 };
  const closeAll = () => {
    for (const s of h.streams.values()) s.close();
    h.streams.clear();
  };
  rt.onShutdown(closeAll);
  rt.slot(mockSlot).onClear.push(closeAll);
  return h;
});

const DEFAULT_READ = 64 * 1024;

function str(v: Value): string {
  return typeof v === "string" ? v : display(v);
}

/** Options of a request, with the defaults of its `session` (if any). */
function withSession(rt: Runtime, options: HDict | null): HDict | null {
  const s = options?.get("session");
  if (typeof s !== "string") return options;
  const base = rt.slot(handleSlot).sessions.get(s);
  return base === undefined ? options : mergeOptions(base, options);
}

/** The request verbs check the egress policy before the mock lookup. */
function request(ctx: CallContext, spec: RequestSpec): Value | Promise<Value> {
  checkEgress(ctx.runtime, spec.fn, spec.url);
  const r = execute(ctx, spec);
  return isPromise<Response>(r) ? r.then(responseDict) : responseDict(r);
}

export const HTTP_BUILTINS = builtinModule("http/builtins", (def) => {
  for (const verb of ["get", "delete"]) {
    const fn = `http_${verb}`;
    def(fn, (args, ctx) => {
      const options = withSession(ctx.runtime, optionsArg(args[1]));
      return request(ctx, buildRequest(fn, verb.toUpperCase(), strArg(args, 0), null, options));
    });
  }

  for (const verb of ["post", "put", "patch"]) {
    const fn = `http_${verb}`;
    def(fn, (args, ctx) => {
      let body: string | null = args.length > 1 && args[1] !== undefined ? strArg(args, 1) : null;
      let options = optionsArg(args[2]);
      // `http_post(url, {headers: …})`: a lone dict is the options
      if (args.length === 2 && args[1] instanceof HDict) {
        options = args[1];
        body = null;
      }
      options = withSession(ctx.runtime, options);
      return request(ctx, buildRequest(fn, verb.toUpperCase(), strArg(args, 0), body, options));
    });
  }

  def("http_request", (args, ctx) => {
    const options = withSession(ctx.runtime, optionsArg(args[2]));
    return request(ctx, buildRequest("http_request", strArg(args, 0), strArg(args, 1), null, options));
  });

  def("http_mock", (args, ctx) => {
    const [method, pattern, response] = mockArgs(args);
    registerMock(ctx.runtime, method, pattern, response);
    return null;
  });
  def("http_mock_calls", (args, ctx) => mockCalls(ctx.runtime, args[0] ?? null));
  def("http_mock_clear", (_args, ctx) => {
    clearMocks(ctx.runtime);
    return null;
  });

  // Sessions: default options reused by every request made through them.
  def("http_session", (args, ctx) => {
    const h = ctx.runtime.slot(handleSlot);
    const id = `http-session-${h.nextSession++}`;
    h.sessions.set(id, optionsArg(args[0]));
    return id;
  });
  def("http_session_request", (args, ctx) => {
    const id = strArg(args, 0);
    const h = ctx.runtime.slot(handleSlot);
    if (!h.sessions.has(id)) throw HarnError.thrown(`http_session_request: unknown session '${id}'`);
    const options = mergeOptions(h.sessions.get(id)!, optionsArg(args[3]));
    return request(ctx, buildRequest("http_session_request", strArg(args, 1), strArg(args, 2), null, options));
  });
  def("http_session_close", (args, ctx) => ctx.runtime.slot(handleSlot).sessions.delete(strArg(args, 0)));

  def("http_download", (args, ctx) => {
    const options = withSession(ctx.runtime, optionsArg(args[2]));
    const spec = buildRequest("http_download", "GET", strArg(args, 0), null, options);
    const dst = strArg(args, 1);
    const path = resolvePath(ctx.runtime, dst);
    const finish = async (r: Response): Promise<Value> => {
      try {
        await writeFile(path, r.body);
      } catch (e) {
        throw HarnError.thrown(`http_download: failed to write ${path}: ${osErrorText(e)}`);
      }
      return HDict.of({ status: r.status, headers: r.headers, bytes_written: r.body.length, ok: r.status >= 200 && r.status <= 299 });
    };
    const r = execute(ctx, spec, 0, true);
    return isPromise<Response>(r) ? r.then(finish) : finish(r);
  });

  def("http_stream_open", (args, ctx) => {
    const options = withSession(ctx.runtime, optionsArg(args[1]));
    const method = options?.has("method") ? str(options.get("method")) : "GET";
    const spec = buildRequest("http_stream_open", method, strArg(args, 0), null, options);
    const h = ctx.runtime.slot(handleSlot);
    const id = `http-stream-${h.nextStream++}`;
    const mocked = takeMock(ctx.runtime, spec);
    if (mocked) {
      h.streams.set(id, { status: mocked.status, headers: mocked.headers, pending: new TextEncoder().encode(mocked.body), reader: null, reading: null, close: () => {} });
      return id;
    }
    checkEgress(ctx.runtime, "http_stream_open", spec.url);
    return open(ctx, spec, false).then(
      (o) => {
        const reader = o.body instanceof Uint8Array ? null : o.body;
        const pending = o.body instanceof Uint8Array ? o.body : new Uint8Array(0);
        h.streams.set(id, { status: o.status, headers: o.headers, pending, reader, reading: null, close: o.close });
        return id;
      },
      (e) => {
        if (e instanceof TransportError) throw HarnError.thrown(`http: request failed: ${e.detail}`);
        throw e;
      },
    );
  });

  def("http_stream_read", (args, ctx) => {
    const s = stream(ctx.runtime, "http_stream_read", args);
    const max = typeof args[1] === "number" && args[1] > 0 ? args[1] : DEFAULT_READ;
    const take = (): Value => {
      const n = Math.min(max, s.pending.length);
      const out = s.pending.slice(0, n);
      s.pending = s.pending.subarray(n);
      return new HBytes(out);
    };
    if (s.pending.length > 0) return take();
    if (!s.reader) return null;
    const reader = s.reader;
    const pull = async (): Promise<Value> => {
      try {
        for (;;) {
          if (!s.reading) {
            s.reading = reader.read();
            s.reading.catch(() => undefined); // reported to whoever awaits it
          }
          const read = s.reading;
          let value: Uint8Array | null;
          try {
            // the reading task may be cancelled (Ctrl-C, `cancel`) while the
            // task that opened the stream runs on: its wait ends with it
            value = await raceSignal(read, ctx.signal);
          } catch (e) {
            // cancelled: the read stays for the next caller; failed: it is spent
            if (!ctx.signal.aborted && s.reading === read) s.reading = null;
            throw e;
          }
          if (s.reading === read) s.reading = null;
          if (value === null) {
            s.reader = null;
            return null;
          }
          if (value.length > 0) {
            s.pending = value;
            return take();
          }
        }
      } catch (e) {
        if (e instanceof TransportError) throw HarnError.thrown(`http: request failed: ${e.detail}`);
        throw e;
      }
    };
    return pull();
  });

  def("http_stream_info", (args, ctx) => {
    const s = stream(ctx.runtime, "http_stream_info", args);
    return HDict.of({ status: s.status, headers: s.headers, ok: s.status >= 200 && s.status <= 299 });
  });

  def("http_stream_close", (args, ctx) => {
    const h = ctx.runtime.slot(handleSlot);
    const id = strArg(args, 0);
    const s = h.streams.get(id);
    if (!s) return false;
    s.close();
    h.streams.delete(id);
    return true;
  });
});

function stream(rt: Runtime, fn: string, args: Value[]): Stream {
  const id = strArg(args, 0);
  const s = rt.slot(handleSlot).streams.get(id);
  if (!s) throw HarnError.thrown(`${fn}: unknown stream handle '${id}'`);
  return s;
}

/** The HTTP_BUILTINS group's builtin modules (lazy/groups.ts), in install order. */
export const HTTP_MODULES: readonly BuiltinModule[] = [STREAMS_BUILTINS, EGRESS_BUILTINS, SIGNING_BUILTINS, COOKIES_BUILTINS, HTTP_BUILTINS];
