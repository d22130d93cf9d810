/**
 * Executing a request: mocks first, then the network, with the retry policy
 * of spec/stdlib.md §19.1. A mocked request with no retry delay completes
 * synchronously (no promise), like every other pure builtin.
 */
import { HarnError, HDict, isPromise, type CallContext, type Value } from "@harn/vm";
import { clockSleep } from "../time/clock";
import { unseededRandom } from "../core/random";
import { takeMock } from "./mocks";
import type { RequestSpec } from "./request";
import { send, TransportError } from "./transport";
import { checkEgress } from "./egress";

export interface Response {
  status: number;
  headers: HDict;
  body: Uint8Array;
}

const MAX_DELAY_MS = 60_000;
const decoder = () => new TextDecoder("utf-8");

export function responseDict(r: Response): HDict {
  return HDict.of({
    status: r.status,
    headers: r.headers,
    body: decoder().decode(r.body),
    ok: r.status >= 200 && r.status <= 299,
  });
}

/** Run `spec` (retrying as configured) and return the raw response. */
/** `egressOnNetwork`: check the egress policy only for requests no mock
 * answers (`http_download`; the verbs check before calling). */
export function execute(ctx: CallContext, spec: RequestSpec, attempt = 0, egressOnNetwork = false): Response | Promise<Response> {
  const mocked = takeMock(ctx.runtime, spec);
  if (mocked) {
    const r: Response = { status: mocked.status, headers: mocked.headers, body: new TextEncoder().encode(mocked.body) };
    const delay = retryDelay(spec, attempt, r, unseededRandom(ctx.runtime));
    if (delay === null) return r;
    if (delay <= 0) return execute(ctx, spec, attempt + 1, egressOnNetwork);
    return clockSleep(delay, ctx).then(() => execute(ctx, spec, attempt + 1, egressOnNetwork));
  }
  if (egressOnNetwork) checkEgress(ctx.runtime, spec.fn, spec.url);
  return executeNetwork(ctx, spec, attempt);
}

async function executeNetwork(ctx: CallContext, spec: RequestSpec, attempt: number): Promise<Response> {
  let r: Response;
  try {
    r = await send(ctx, spec);
  } catch (e) {
    if (!(e instanceof TransportError)) throw e;
    if (e.retryable && canRetry(spec, attempt)) {
      await clockSleep(backoff(spec, attempt, unseededRandom(ctx.runtime)), ctx);
      const next = execute(ctx, spec, attempt + 1);
      return isPromise(next) ? await next : next;
    }
    throw HarnError.thrown(`http: request failed: ${e.detail}`);
  }
  const delay = retryDelay(spec, attempt, r, unseededRandom(ctx.runtime));
  if (delay === null) return r;
  if (delay > 0) await clockSleep(delay, ctx);
  const next = execute(ctx, spec, attempt + 1);
  return isPromise(next) ? await next : next;
}

function canRetry(spec: RequestSpec, attempt: number): boolean {
  return attempt < spec.retry.max && spec.retry.methods.has(spec.method);
}

function backoff(spec: RequestSpec, attempt: number, random: () => number): number {
  const base = spec.retry.backoffMs * 2 ** attempt;
  if (base <= 0) return 0;
  const jitter = base * (random() * 0.5 - 0.25);
  return Math.min(MAX_DELAY_MS, Math.max(0, Math.round(base + jitter)));
}

/** Milliseconds to wait before the next attempt, or null to stop here. */
function retryDelay(spec: RequestSpec, attempt: number, r: Response, random: () => number): number | null {
  if (!canRetry(spec, attempt) || !spec.retry.retryOn.has(r.status)) return null;
  let delay = backoff(spec, attempt, random);
  if (spec.retry.respectRetryAfter && (r.status === 429 || r.status === 503)) {
    const after = retryAfterMs(r.headers);
    if (after !== null) delay = Math.max(delay, Math.min(after, MAX_DELAY_MS));
  }
  return delay;
}

/** `Retry-After` as seconds or an HTTP date, in ms. */
function retryAfterMs(headers: HDict): number | null {
  let v: Value = null;
  for (const k of headers.keys()) if (k.toLowerCase() === "retry-after") v = headers.get(k);
  if (typeof v === "number") return Math.max(0, v * 1000);
  if (typeof v !== "string") return null;
  const t = v.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const date = Date.parse(t);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}
