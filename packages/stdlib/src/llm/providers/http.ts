/**
 * What every HTTP adapter shares: endpoint, credentials, the exchange
 * lifecycle and the choice of transport. An adapter only says how to build
 * its wire body and how to read its wire events; the non-streaming
 * transport reads the complete body into the *same* normalized events, so
 * one accumulator gives identical results for both (spec §5.2).
 */

import { isJsonObject, jsonNumber } from "../../core/json";
import { DEFAULT_TIMEOUT_MS, HttpExchange } from "../transport";
import type { LlmEvent, LlmProvider, LlmRequest } from "../types";

export type AuthStyle = "x-api-key" | "bearer" | "none";

export interface HttpProviderConfig {
  /** The provider name as scripts know it (`anthropic`, `local`, …). */
  name: string;
  /** Full endpoint URL (base URL + path). */
  url: string;
  auth: AuthStyle;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Shown with a 404: why the base URL may be wrong (resolve.ts
   * `endpointHint`). */
  endpointHint?: string;
  fetch?: typeof fetch;
  now?: () => number;
}

export abstract class HttpProvider implements LlmProvider {
  readonly name: string;
  protected readonly config: HttpProviderConfig;

  constructor(config: HttpProviderConfig) {
    this.name = config.name;
    this.config = config;
  }

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmEvent> {
    const streaming = request.stream !== false;
    const cfg = this.config;
    const ex = new HttpExchange({
      target: { provider: cfg.name, model: request.model },
      url: cfg.url,
      headers: { ...this.authHeaders(), ...cfg.headers },
      secrets: cfg.apiKey ? [cfg.apiKey] : [],
      endpointHint: cfg.endpointHint,
      signal,
      timeoutMs: request.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      idleTimeout: streaming,
      now: cfg.now ?? Date.now,
      fetch: cfg.fetch ?? fetch,
    });
    try {
      const body = this.body(request, streaming);
      if (request.extra) Object.assign(body, request.extra);
      const res = await ex.open(body);
      // Some OpenAI-compatible servers ignore `stream: true` and answer
      // with one JSON document; read that as the non-streaming body.
      if (streaming && !isJsonDocument(res)) yield* this.readStream(ex, res, request);
      else yield* this.readBody(ex, await ex.json(res), request);
    } finally {
      ex.close();
    }
  }

  private authHeaders(): Record<string, string> {
    return authHeaders(this.config.auth, this.config.apiKey);
  }

  /** The wire request body (without `extra`). */
  protected abstract body(request: LlmRequest, streaming: boolean): Record<string, unknown>;
  /** Normalized events of a streaming body. At the format's end marker
   * call `ex.endOfMessage()` and read on to the end of the body (so the
   * connection can be reused); throw `ex.truncated()` if the body ends
   * before the marker. */
  protected abstract readStream(ex: HttpExchange, res: Response, request: LlmRequest): AsyncGenerator<LlmEvent>;
  /** Normalized events of a complete (non-streaming) response body. */
  protected abstract readBody(ex: HttpExchange, body: unknown, request: LlmRequest): Iterable<LlmEvent>;
}

/** The headers that carry `key` in the provider's auth style. */
export function authHeaders(auth: AuthStyle, key: string | undefined): Record<string, string> {
  if (!key) return {};
  switch (auth) {
    case "x-api-key":
      return { "x-api-key": key };
    case "bearer":
      return { authorization: `Bearer ${key}` };
    case "none":
      return {};
  }
}

function isJsonDocument(res: Response): boolean {
  return /^application\/json\b/i.test(res.headers.get("content-type") ?? "");
}

/** Small helpers for reading untyped wire JSON without `any`. */
export type Json = Record<string, unknown>;

export function obj(v: unknown): Json {
  return isJsonObject(v) ? v : {};
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** A count or index (a `10.0` in the body counts too), else 0. */
export function num(v: unknown): number {
  const n = jsonNumber(v);
  return n !== undefined && Number.isFinite(n) ? n : 0;
}
