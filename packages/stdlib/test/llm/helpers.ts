import { LlmClient, type LlmClock, type LlmRequest } from "../../src/llm";
import * as wire from "./wire";
import type { Script } from "./wire";
import type { StreamReply } from "./server";

/** Virtual time: sleeps return at once and advance the clock; every
 * requested delay is recorded. */
export class FakeClock implements LlmClock {
  t = Date.UTC(2025, 0, 15, 10, 0, 0);
  readonly sleeps: number[] = [];
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw signal.reason;
    this.sleeps.push(ms);
    this.t += ms;
  }
}

export const SECRET = "sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0";

export interface WireFormat {
  provider: string;
  path: string;
  env(url: string): Record<string, string>;
  stream(s: Script, opts?: { dieAfterText?: boolean }): StreamReply;
  body(s: Script): unknown;
}

export const FORMATS: WireFormat[] = [
  {
    provider: "anthropic",
    path: "/v1/messages",
    env: (url) => ({ ANTHROPIC_API_KEY: SECRET, ANTHROPIC_BASE_URL: url }),
    stream: wire.anthropicStream,
    body: wire.anthropicBody,
  },
  {
    provider: "openai",
    path: "/v1/chat/completions",
    env: (url) => ({ OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: `${url}/v1` }),
    stream: wire.openAiChatStream,
    body: wire.openAiChatBody,
  },
  {
    provider: "openai_responses",
    path: "/v1/responses",
    env: (url) => ({ OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: `${url}/v1` }),
    stream: wire.openAiResponsesStream,
    body: wire.openAiResponsesBody,
  },
  {
    provider: "ollama",
    path: "/api/chat",
    env: (url) => ({ OLLAMA_HOST: url.replace("http://", "") }),
    stream: wire.ollamaStream,
    body: wire.ollamaBody,
  },
  {
    provider: "local",
    path: "/v1/chat/completions",
    env: (url) => ({ LOCAL_LLM_BASE_URL: url }),
    stream: wire.openAiChatStream,
    body: wire.openAiChatBody,
  },
];

export function request(provider: string, extra: Partial<LlmRequest> = {}): LlmRequest {
  return { provider, model: "test-model", messages: [{ role: "user", content: "hi" }], ...extra };
}

export function client(env: Record<string, string>, clock = new FakeClock(), random = () => 0.5): LlmClient {
  return new LlmClient({ env, clock, random });
}
