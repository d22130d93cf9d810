/**
 * What a request may ask of its model (spec/agents-surface.md §8.7–§8.8,
 * §8.10): the runtime's provider-capability overrides, the capability
 * gates (`vision`, `audio`, `pdf`, `cache`) checked against the resolved
 * provider and model, and the validation of image content blocks.
 */
import { HarnError, RuntimeSlot, type Runtime } from "@harn/vm";
import { capabilitiesOf, type Capabilities, type Overrides } from "../../llm/capabilities";
import type { LlmMessage } from "../../llm/types";
import { mockState } from "../mock/state";
import type { LlmSettings } from "./options";

export const CAPABILITY_OVERRIDES = new RuntimeSlot<{ overrides: Overrides | null }>("agent.capabilityOverrides", () => ({ overrides: null }));

export function capabilities(rt: Runtime, provider: string, model: string): Capabilities {
  return capabilitiesOf(provider, model, rt.slot(CAPABILITY_OVERRIDES).overrides);
}

/** Options that need a capability of the model. */
export interface Asked {
  vision: boolean;
  audio: boolean;
  pdf: boolean;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === "object" && !Array.isArray(x);
}

function blocksOf(m: LlmMessage): Record<string, unknown>[] {
  const c = (m as { content?: unknown }).content;
  return Array.isArray(c) ? c.filter(isObject) : [];
}

function hasImages(messages: readonly LlmMessage[]): boolean {
  return messages.some((m) => {
    const images = (m as { images?: unknown }).images;
    return (Array.isArray(images) && images.length > 0) || blocksOf(m).some((b) => b.type === "image");
  });
}

/** §8.10: each image block has exactly one of url/base64 and a media
 * type; `detail` is low, high or auto; Ollama takes base64 only. */
export function checkImages(messages: readonly LlmMessage[], provider: string): void {
  for (const m of messages) {
    for (const b of blocksOf(m)) {
      if (b.type !== "image") continue;
      const url = b.url ?? b.file_uri;
      const data = b.base64 ?? b.data;
      const has = (v: unknown) => v !== undefined && v !== null;
      if (has(url) === has(data)) throw HarnError.thrown("llm_call image content requires exactly one of url or base64");
      if (!has(b.media_type ?? b.mime_type)) throw HarnError.thrown("llm_call image content requires media_type");
      if (has(b.detail) && !["low", "high", "auto"].includes(b.detail as string)) throw HarnError.thrown('llm_call image detail must be "low", "high", or "auto"');
      if (provider === "ollama" && has(url)) throw HarnError.thrown('llm_call: provider "ollama" requires image base64; url image content is not supported');
    }
  }
}

/**
 * §8.8: refuse options the model does not support, before any request.
 * Not while mocks are queued or fixtures replay (they answer anything);
 * the `mock` provider with nothing queued is checked like the others.
 */
export function checkGates(rt: Runtime, llm: LlmSettings, messages: readonly LlmMessage[]): void {
  if (mockState(rt).intercepting) return;
  const caps = capabilities(rt, llm.provider, llm.model);
  const asked = llm.asked;
  const gates: [string, boolean, boolean][] = [
    ["vision", asked.vision || hasImages(messages), caps.vision_supported],
    ["audio", asked.audio, caps.audio],
    ["pdf", asked.pdf, caps.pdf],
    ["cache", llm.cache, caps.prompt_caching],
  ];
  for (const [option, wanted, supported] of gates) {
    if (wanted && !supported) {
      throw HarnError.thrown(
        `option \`${option}\` is not supported by \`${llm.model}\` (provider \`${llm.provider}\`). See \`harn check --provider-matrix\` for compatibility.`,
      );
    }
  }
}
