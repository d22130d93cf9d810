/**
 * What a request may ask of its model (spec/agents-surface.md §8.7–§8.8,
 * §8.10): the runtime's provider-capability overrides, the capability
 * gates (`vision`, `audio`, `pdf`, `cache`) checked against the resolved
 * provider and model, and the validation of image content blocks.
 */
import { HarnError, RuntimeSlot, type Runtime } from "@harn/vm";
import { isJsonObject } from "../../core/json";
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

/** §8.10: each image block has exactly one of url/base64 and a media
 * type; `detail` is low, high or auto; Ollama takes base64 only. Whether
 * the message carries an image at all (the `vision` gate). */
function checkMessageImages(m: LlmMessage, provider: string): boolean {
  const images = (m as { images?: unknown }).images;
  let found = Array.isArray(images) && images.length > 0;
  const c = (m as { content?: unknown }).content;
  if (!Array.isArray(c)) return found;
  const has = (v: unknown) => v !== undefined && v !== null;
  for (const b of c) {
    if (!isJsonObject(b) || b.type !== "image") continue;
    found = true;
    const url = b.url ?? b.file_uri;
    const data = b.base64 ?? b.data;
    if (has(url) === has(data)) throw HarnError.thrown("llm_call image content requires exactly one of url or base64");
    if (!has(b.media_type ?? b.mime_type)) throw HarnError.thrown("llm_call image content requires media_type");
    if (has(b.detail) && !["low", "high", "auto"].includes(b.detail as string)) throw HarnError.thrown('llm_call image detail must be "low", "high", or "auto"');
    if (provider === "ollama" && has(url)) throw HarnError.thrown('llm_call: provider "ollama" requires image base64; url image content is not supported');
  }
  return found;
}

/** How far a message list was checked, for which provider. */
interface Checked {
  n: number;
  last: LlmMessage | undefined;
  provider: string;
  images: boolean;
}

/** The agent loop sends one growing array turn after turn (its
 * RequestBuilder only appends until it rebuilds a new array), so a
 * daemon's thousandth turn checks what was appended since the last one,
 * not its whole history. A list seen shorter, with another last checked
 * message, or for another provider is checked again from the start. */
const CHECKED = new RuntimeSlot<WeakMap<readonly LlmMessage[], Checked>>("agent.imagesChecked", () => new WeakMap());

/** Validates the image blocks of `messages` (§8.10) and says whether
 * there are any. */
export function checkImages(rt: Runtime, messages: readonly LlmMessage[], provider: string): boolean {
  const seen = rt.slot(CHECKED);
  let c = seen.get(messages);
  if (c === undefined || c.provider !== provider || messages.length < c.n || messages[c.n - 1] !== c.last) {
    c = { n: 0, last: undefined, provider, images: false };
    seen.set(messages, c);
  }
  for (let i = c.n; i < messages.length; i++) {
    // Before recording progress: a throw leaves this message unchecked.
    if (checkMessageImages(messages[i]!, provider)) c.images = true;
    c.n = i + 1;
    c.last = messages[i];
  }
  return c.images;
}

/**
 * §8.8: refuse options the model does not support, before any request.
 * Not while mocks are queued or fixtures replay (they answer anything);
 * the `mock` provider with nothing queued is checked like the others.
 */
export function checkGates(rt: Runtime, llm: LlmSettings, hasImages: boolean): void {
  if (mockState(rt).intercepting) return;
  const caps = capabilities(rt, llm.provider, llm.model);
  const asked = llm.asked;
  const gates: [string, boolean, boolean][] = [
    ["vision", asked.vision || hasImages, caps.vision_supported],
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
