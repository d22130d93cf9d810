/**
 * The entry point of the provider layer. One `LlmClient` per Runtime (it
 * holds the env, the injected fetch/clock/random and the providers
 * registered by the agent layer, such as the mock); nothing is global.
 *
 *   const llm = new LlmClient({ env });
 *   const target = llm.resolve({ provider, model });      // §5.1
 *   llm.requireKey(target.provider);                      // missing-key error
 *   const res = await llm.completeWithRetries(
 *     { ...target, messages, tools, stream, timeout_ms },
 *     { signal, onEvent, budget, retries, backoffMs, fallbackChain, fallbackModels },
 *   );
 *
 * Failure modes: `LlmSetupError` (no call was possible), `LlmError`
 * (classified provider failure, after retries and fallbacks),
 * `LlmInterrupted` (the caller's signal aborted; carries the partial
 * response), or whatever `onEvent` threw.
 */

import { LlmAccumulator } from "./accumulate";
import { LlmError, LlmInterrupted, LlmSetupError } from "./errors";
import { fallbackModel, fallbackProviders, type StickyFallback } from "./fallback";
import { ANTHROPIC_VERSION, AnthropicProvider } from "./providers/anthropic";
import type { HttpProviderConfig } from "./providers/http";
import { OllamaProvider } from "./providers/ollama";
import { OpenAiChatProvider } from "./providers/openai-chat";
import { OpenAiResponsesProvider } from "./providers/openai-responses";
import {
  apiKey,
  BUILTIN_PROVIDERS,
  callsDisabled,
  callsDisabledError,
  endpointHint,
  endpointUrl,
  hasKey,
  implicitMockNotice,
  missingKeyError,
  resolveModel,
  resolveProvider,
  unknownProviderError,
  type Env,
  type ProviderSpec,
  type Target,
  type TargetInput,
  type WireStyle,
  IMPLICIT_OFFLINE_PROVIDER,
} from "./resolve";
import { budgetExhausted, DEFAULT_MAX_DELAY_MS, retryDelay, systemClock, type RetryBudget } from "./retry";
import type { LlmClock, LlmEvent, LlmProvider, LlmRequest, LlmResponse } from "./types";

export interface LlmClientOptions {
  env: Env;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Defaults to real time. */
  clock?: LlmClock;
  /** Uniform [0, 1) source for jitter; defaults to `Math.random`. */
  random?: () => number;
  /** One-line notices for the user (stderr): the offline mock answering
   * because nothing chose a provider, a fallback taking over. Each
   * distinct line is told once per client. */
  onNotice?: (line: string) => void;
  /** Told about every successful response from a provider that is not
   * offline (so never the mock's), complete and in call order: the hook
   * `--llm-mock-record` hangs on (record.ts). */
  onResponse?: (response: LlmResponse) => void;
}

export interface RetryNotice {
  provider: string;
  model: string;
  /** The retry about to be made (1 for the first retry). */
  attempt: number;
  delayMs: number;
  error: LlmError;
}

export interface CompleteOptions {
  /** Aborting it cancels the call: the HTTP stream is closed and
   * `LlmInterrupted` carries what had arrived. */
  signal?: AbortSignal;
  /** Called with every normalized event as it arrives; a returned promise
   * is awaited before the next event is read. If it throws, the stream is
   * closed and the error propagates unchanged. */
  onEvent?: (event: LlmEvent) => unknown;
  /** Called before each backoff sleep (progress displays). */
  onRetry?: (notice: RetryNotice) => void;
  /** The agent loop's shared retry budget (`retry_budget_ms`). */
  budget?: RetryBudget | null;
  /** `llm_retries` (default 0). */
  retries?: number;
  /** `llm_backoff_ms` (default 250). */
  backoffMs?: number;
  /** Cap of computed backoff delays (default 30 000). */
  maxDelayMs?: number;
  fallbackChain?: readonly string[] | string | null;
  fallbackModels?: Readonly<Record<string, string>> | null;
  /** Shared by the calls of one agent loop (or chat session): once a
   * fallback has answered, later calls go to it first. */
  sticky?: StickyFallback | null;
}

export const DEFAULT_BACKOFF_MS = 250;

interface CallState {
  /** An event reached the caller: from then on nothing may be retried or
   * re-asked elsewhere, or output would be duplicated. */
  emitted: boolean;
}

export class LlmClient {
  private readonly registered = new Map<string, { provider: LlmProvider; defaultModel?: string }>();
  private readonly clock: LlmClock;
  private readonly random: () => number;
  private readonly noticed = new Set<string>();

  constructor(private readonly options: LlmClientOptions) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
  }

  /** Serve a provider name with this object (the mock, custom
   * providers). Replaces a built-in of the same name. */
  register(provider: LlmProvider, opts: { defaultModel?: string } = {}): void {
    this.registered.set(provider.name, { provider, defaultModel: opts.defaultModel });
  }

  knownProviders(): string[] {
    return [...new Set([...Object.keys(BUILTIN_PROVIDERS), ...this.registered.keys()])];
  }

  /** Provider and model for these options (no key check). */
  resolve(input: TargetInput): Target {
    const env = this.options.env;
    const chosen = resolveProvider(input, env);
    const provider = chosen ?? IMPLICIT_OFFLINE_PROVIDER;
    if (chosen === undefined) this.notice(implicitMockNotice());
    const reg = this.registered.get(provider);
    if (reg?.defaultModel !== undefined && !input.model && !input.model_tier) {
      return { provider, model: reg.defaultModel };
    }
    if (!reg && !BUILTIN_PROVIDERS[provider]) throw unknownProviderError(provider, this.knownProviders());
    return { provider, model: resolveModel(provider, input, env, BUILTIN_PROVIDERS[provider]) };
  }

  /** Throw the exact missing-key error if the provider needs a key that
   * the environment does not have. */
  requireKey(provider: string): void {
    if (this.registered.has(provider)) return;
    const spec = BUILTIN_PROVIDERS[provider];
    if (!spec) throw unknownProviderError(provider, this.knownProviders());
    if (!hasKey(spec, this.options.env)) throw missingKeyError(spec);
  }

  /** The wire format a provider name speaks (`undefined` for registered
   * providers and unknown names). */
  wireStyle(provider: string): WireStyle | undefined {
    if (this.registered.has(provider)) return undefined;
    return BUILTIN_PROVIDERS[provider]?.style;
  }

  /** Whether a provider could serve a call right now (fallback filter). */
  usable(provider: string): boolean {
    const reg = this.registered.get(provider);
    const offline = reg ? reg.provider.offline === true : BUILTIN_PROVIDERS[provider]?.style === "offline";
    if (!reg && (!BUILTIN_PROVIDERS[provider] || offline)) return false;
    if (!offline && callsDisabled(this.options.env)) return false;
    return reg !== undefined || hasKey(BUILTIN_PROVIDERS[provider]!, this.options.env);
  }

  /** The provider object for a name (checks the key). */
  provider(name: string): LlmProvider {
    const reg = this.registered.get(name);
    if (reg) return reg.provider;
    const spec = BUILTIN_PROVIDERS[name];
    if (!spec) throw unknownProviderError(name, this.knownProviders());
    if (spec.style === "offline") throw new LlmSetupError(`provider '${name}' is not available in this runtime`, "runtime");
    if (!hasKey(spec, this.options.env)) throw missingKeyError(spec);
    return buildHttpProvider(spec, {
      name,
      url: endpointUrl(spec, this.options.env),
      endpointHint: endpointHint(spec, this.options.env),
      auth: spec.auth,
      apiKey: apiKey(spec, this.options.env),
      headers: spec.style === "anthropic" ? { "anthropic-version": ANTHROPIC_VERSION } : undefined,
      fetch: this.options.fetch,
      now: () => this.clock.now(),
    });
  }

  /** Tell the user `line`, once per client. */
  private notice(line: string): void {
    if (this.noticed.has(line)) return;
    this.noticed.add(line);
    this.options.onNotice?.(line);
  }

  /** The model a provider uses when none is named (undefined when it
   * needs one). */
  private defaultModel(name: string): string | undefined {
    const reg = this.registered.get(name);
    if (reg) return reg.defaultModel;
    try {
      return resolveModel(name, {}, this.options.env, BUILTIN_PROVIDERS[name]);
    } catch {
      return undefined;
    }
  }

  /**
   * One model call with everything around it: kill switch, retries with
   * backoff/jitter/Retry-After within the budget, then the fallback chain
   * (a primary that nothing answers for is not retried when a fallback can
   * answer). With `opts.sticky`, a call whose primary failed over before
   * goes to that fallback first. Retries and fallbacks only happen while
   * no event has reached the caller. If every target fails, the primary's
   * error is thrown.
   */
  async completeWithRetries(request: LlmRequest, opts: CompleteOptions = {}): Promise<LlmResponse> {
    const signal = opts.signal ?? new AbortController().signal;
    const primary = this.provider(request.provider);
    if (!primary.offline && callsDisabled(this.options.env)) throw callsDisabledError(request.provider);
    const state: CallState = { emitted: false };
    if (primary.offline) return this.withRetries(primary, request, opts, signal, state, false);
    const fallbacks = fallbackProviders({
      primary: request.provider,
      chain: opts.fallbackChain,
      usable: (name) => this.usable(name),
    });
    const sticky = opts.sticky ?? null;
    const stuck = fallbacks.length > 0 ? sticky?.target(request.provider, this.clock.now()) : null;
    if (stuck) {
      try {
        return await this.withRetries(this.provider(stuck.provider), { ...request, ...stuck }, opts, signal, state, false);
      } catch (e) {
        // The fallback failed as well: ask the primary again, then the rest.
        if (!(e instanceof LlmError) || state.emitted) throw e;
      }
    }
    let primaryError: LlmError;
    try {
      const res = await this.withRetries(primary, request, opts, signal, state, fallbacks.length > 0);
      const left = sticky?.primaryAnswered(request.provider);
      if (left) this.notice(`note: ${request.provider} answers again; leaving the fallback ${left}`);
      return res;
    } catch (e) {
      if (!(e instanceof LlmError) || state.emitted) throw e;
      primaryError = e;
    }
    for (const name of fallbacks) {
      if (name === stuck?.provider) continue;
      const model = fallbackModel(name, request.model, opts.fallbackModels, (p) => this.defaultModel(p));
      this.notice(`note: ${request.provider} failed (${this.failureWords(primaryError)}) — falling back to ${name}/${model}`);
      try {
        const res = await this.withRetries(this.provider(name), { ...request, provider: name, model }, opts, signal, state, false);
        sticky?.fellBack(request.provider, name, model, this.clock.now());
        return res;
      } catch (e) {
        if (!(e instanceof LlmError) || state.emitted) throw e;
      }
    }
    throw primaryError;
  }

  /** A failure in a notice's words; a rejected key says which variable
   * holds it (a fallback must not hide a broken key). */
  private failureWords(e: LlmError): string {
    const keys = BUILTIN_PROVIDERS[e.provider]?.keyEnv ?? [];
    return e.reason === "auth_failure" && keys.length > 0 ? `${e.summary}: check ${keys.join(" or ")}` : e.summary;
  }

  private async withRetries(
    provider: LlmProvider,
    request: LlmRequest,
    opts: CompleteOptions,
    signal: AbortSignal,
    state: CallState,
    fallbackReady: boolean,
  ): Promise<LlmResponse> {
    const policy = {
      retries: Math.max(0, Math.floor(opts.retries ?? 0)),
      backoffMs: opts.backoffMs ?? DEFAULT_BACKOFF_MS,
      maxDelayMs: opts.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
    };
    const budget = opts.budget ?? null;
    for (let attempt = 0; ; attempt++) {
      const started = this.clock.now();
      try {
        return await this.once(provider, request, signal, opts.onEvent, state);
      } catch (e) {
        if (attempt > 0) budget?.charge(this.clock.now() - started);
        if (!(e instanceof LlmError) || state.emitted || !e.retryable || attempt >= policy.retries) throw e;
        // Nothing listens there: a fallback answers sooner than a retry.
        if (e.unreachable && fallbackReady) throw e;
        const k = attempt + 1;
        // The mock retries at once and without jitter (§3.5), so scripted
        // failures stay deterministic.
        const delayMs = provider.offline ? 0 : retryDelay(k, policy, e.retryAfterMs, this.random);
        if (budget && !budget.allows(delayMs)) throw budgetExhausted(e, budget, k);
        opts.onRetry?.({ provider: request.provider, model: request.model, attempt: k, delayMs, error: e });
        const slept = this.clock.now();
        try {
          await this.clock.sleep(delayMs, signal);
        } catch (err) {
          if (signal.aborted) throw new LlmInterrupted(new LlmAccumulator(request.provider, request.model).result());
          throw err;
        }
        budget?.charge(this.clock.now() - slept);
      }
    }
  }

  /** One attempt: stream, fold, pass events on. */
  private async once(
    provider: LlmProvider,
    request: LlmRequest,
    signal: AbortSignal,
    onEvent: CompleteOptions["onEvent"],
    state: CallState,
  ): Promise<LlmResponse> {
    const acc = new LlmAccumulator(request.provider, request.model);
    let callbackFailure: { error: unknown } | undefined;
    try {
      for await (const ev of provider.stream(request, signal)) {
        // Events parsed from the last chunk read before an interrupt are
        // dropped: the partial reply is what the user saw when they stopped it.
        if (signal.aborted) break;
        acc.push(ev);
        state.emitted = true;
        if (!onEvent) continue;
        try {
          const r = onEvent(ev);
          if (r instanceof Promise) await r;
        } catch (error) {
          // Leaving the loop closes the stream (the iterator's finally).
          callbackFailure = { error };
          break;
        }
      }
    } catch (e) {
      if (signal.aborted) throw new LlmInterrupted(acc.result());
      throw e;
    }
    if (callbackFailure) throw callbackFailure.error;
    if (signal.aborted) throw new LlmInterrupted(acc.result());
    const res = acc.result();
    if (!provider.offline) this.options.onResponse?.(res);
    return res;
  }
}

function buildHttpProvider(spec: ProviderSpec, config: HttpProviderConfig): LlmProvider {
  switch (spec.style) {
    case "anthropic":
      return new AnthropicProvider(config);
    case "openai-chat":
      return new OpenAiChatProvider(config, {
        maxTokensField: spec.name === "openai" ? "max_completion_tokens" : "max_tokens",
        acceptsTopK: spec.name !== "openai",
      });
    case "openai-responses":
      return new OpenAiResponsesProvider(config);
    case "ollama":
      return new OllamaProvider(config);
    case "offline":
      throw new LlmSetupError(`provider '${spec.name}' is not available in this runtime`, "runtime");
  }
}
