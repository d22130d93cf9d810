/**
 * Provider capabilities (spec/agents-surface.md §8.7): what a provider and
 * model support, from ordered rules per provider (the first matching rule
 * wins; a user's override rules for a provider are tried first), a family
 * chain for OpenAI-compatible providers, and `version_min` gates parsed
 * from Claude and GPT model ids.
 */
import { parse as parseToml } from "smol-toml";
import { glob } from "./catalog";

export interface Capabilities {
  native_tools: boolean;
  defer_loading: boolean;
  tool_search: string[];
  max_tools: number | null;
  prompt_caching: boolean;
  thinking_modes: string[];
  interleaved_thinking_supported: boolean;
  anthropic_beta_features: string[];
  vision_supported: boolean;
  audio: boolean;
  pdf: boolean;
  preserve_thinking: boolean;
  requires_completion_tokens: boolean;
  reasoning_effort_supported: boolean;
}

export interface Rule extends Partial<Capabilities> {
  model_match: string;
  version_min?: [number, number];
}

export function noCapabilities(): Capabilities {
  return {
    native_tools: false,
    defer_loading: false,
    tool_search: [],
    max_tools: null,
    prompt_caching: false,
    thinking_modes: [],
    interleaved_thinking_supported: false,
    anthropic_beta_features: [],
    vision_supported: false,
    audio: false,
    pdf: false,
    preserve_thinking: false,
    requires_completion_tokens: false,
    reasoning_effort_supported: false,
  };
}

const SEARCH: Partial<Capabilities> = {
  native_tools: true,
  defer_loading: true,
  tool_search: ["bm25", "regex"],
  max_tools: 10000,
  prompt_caching: true,
  vision_supported: true,
};

const CLAUDE: Rule[] = [
  ...["claude-haiku-*", "claude-sonnet-*"].map((m): Rule => ({ model_match: m, version_min: [4, 7], ...SEARCH, thinking_modes: ["adaptive"] })),
  { model_match: "claude-opus-*", version_min: [4, 7], ...SEARCH, thinking_modes: ["adaptive"], interleaved_thinking_supported: true },
  { model_match: "claude-haiku-*", version_min: [4, 5], ...SEARCH, thinking_modes: ["enabled"] },
  { model_match: "claude-opus-*", version_min: [4, 6], ...SEARCH, thinking_modes: ["enabled"], interleaved_thinking_supported: true },
  { model_match: "claude-opus-*", version_min: [4, 0], ...SEARCH, thinking_modes: ["enabled"], interleaved_thinking_supported: true },
  { model_match: "claude-sonnet-*", version_min: [4, 0], ...SEARCH, thinking_modes: ["enabled"] },
  { model_match: "claude-*", native_tools: true, prompt_caching: true, vision_supported: true, thinking_modes: ["enabled"] },
];

const REASONING: Partial<Capabilities> = { native_tools: true, thinking_modes: ["effort"], requires_completion_tokens: true, reasoning_effort_supported: true };

const GPT: Rule[] = [
  { model_match: "gpt-4o*", native_tools: true, vision_supported: true, audio: true },
  { model_match: "gpt-4.1*", native_tools: true, vision_supported: true },
  { model_match: "gpt-*", version_min: [5, 4], native_tools: true, defer_loading: true, tool_search: ["hosted", "client"], vision_supported: true },
  { model_match: "gpt-*", native_tools: true },
  { model_match: "o1*", ...REASONING },
  { model_match: "o3*", ...REASONING },
  { model_match: "o4*", ...REASONING, vision_supported: true },
];

function prefixed(rules: Rule[], prefix: string): Rule[] {
  return [...rules, ...rules.map((r) => ({ ...r, model_match: prefix + r.model_match }))];
}

const QWEN: Partial<Capabilities> = { native_tools: true, thinking_modes: ["enabled"] };

export const BUILTIN_RULES: Readonly<Record<string, readonly Rule[]>> = {
  anthropic: prefixed(CLAUDE, "anthropic/"),
  openai: prefixed(GPT, "openai/"),
  ollama: [
    ...["llava*", "bakllava*", "llama3.2-vision*", "gemma3*"].map((m): Rule => ({ model_match: m, vision_supported: true })),
    { model_match: "qwen3.6*", ...QWEN, preserve_thinking: true },
    { model_match: "qwen3*", ...QWEN },
  ],
  gemini: [{ model_match: "gemini-*", vision_supported: true }, { model_match: "models/gemini-*", vision_supported: true }],
  vertex: [{ model_match: "gemini-*", native_tools: true }],
  bedrock: [{ model_match: "*", native_tools: true }],
  azure_openai: ["gpt-*", "o1*", "o3*", "o4*"].map((m): Rule => ({ model_match: m, native_tools: true })),
};

/** Providers whose models, when no rule of their own matches, are read as
 * another provider's. */
export const BUILTIN_FAMILY: Readonly<Record<string, string>> = Object.fromEntries(
  ["openrouter", "together", "groq", "deepseek", "fireworks", "huggingface", "local", "dashscope", "llamacpp", "mlx"].map((p) => [p, "openai"]),
);

/** `(major, minor)` of dotted `4.7`, dashed `4-7` (a date-like second part
 * ≥ 1000 reads as minor 0) or a lone major. */
function versionOf(rest: string): [number, number] | null {
  const m = /^(\d+)(?:[.-](\d+))?/.exec(rest);
  if (!m) return null;
  const major = Number(m[1]);
  const minor = m[2] === undefined || Number(m[2]) >= 1000 ? 0 : Number(m[2]);
  return [major, minor];
}

export function modelVersion(model: string): [number, number] | null {
  const lower = model.toLowerCase();
  if (lower.startsWith("claude-") || lower.includes("/claude-")) {
    const m = /(?:opus|sonnet|haiku)-(.*)$/.exec(lower);
    return m ? versionOf(m[1]!) : null;
  }
  const name = lower.includes("/") ? lower.slice(lower.lastIndexOf("/") + 1) : lower;
  if (name.startsWith("gpt-")) return versionOf(name.slice(4));
  return null;
}

function matches(r: Rule, model: string): boolean {
  if (!glob(r.model_match, model, true)) return false;
  if (r.version_min === undefined) return true;
  const v = modelVersion(model);
  if (v === null) return false;
  return v[0] > r.version_min[0] || (v[0] === r.version_min[0] && v[1] >= r.version_min[1]);
}

/** User overrides (`provider_capabilities_install`). */
export interface Overrides {
  rules: Record<string, Rule[]>;
  family: Record<string, string>;
}

function ruleFor(provider: string, model: string, o: Overrides | null): Rule | null {
  for (const r of o?.rules[provider] ?? []) if (matches(r, model)) return r;
  for (const r of BUILTIN_RULES[provider] ?? []) if (matches(r, model)) return r;
  return null;
}

/** The capabilities of `model` at `provider`; unknown pairs get all
 * defaults. */
export function capabilitiesOf(provider: string, model: string, o: Overrides | null): Capabilities {
  const chain: string[] = provider === "mock" ? ["anthropic", "openai"] : [];
  if (provider !== "mock") {
    const seen = new Set<string>();
    for (let p: string | undefined = provider; p !== undefined && !seen.has(p); p = o?.family[p] ?? BUILTIN_FAMILY[p]) {
      seen.add(p);
      chain.push(p);
    }
  }
  for (const p of chain) {
    const r = ruleFor(p, model, o);
    if (r === null) continue;
    const { model_match: _m, version_min: _v, ...fields } = r;
    return { ...noCapabilities(), ...fields };
  }
  return noCapabilities();
}

const LIST_FIELDS = new Set(["tool_search", "thinking_modes", "anthropic_beta_features"]);
const BOOL_FIELDS = new Set(Object.keys(noCapabilities()).filter((k) => !LIST_FIELDS.has(k) && k !== "max_tools"));

/** Override rules from TOML text (`[[provider.<name>]]` tables and an
 * optional `[provider_family]`); throws the parse detail as a string. */
export function parseOverrides(toml: string): Overrides {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(toml) as Record<string, unknown>;
  } catch (e) {
    throw (e as Error).message.split("\n")[0]!;
  }
  const out: Overrides = { rules: {}, family: {} };
  const providers = (doc.provider ?? {}) as Record<string, unknown>;
  for (const [name, list] of Object.entries(providers)) {
    if (!Array.isArray(list)) throw `provider.${name} must be an array of tables ([[provider.${name}]])`;
    out.rules[name] = list.map((t, i) => ruleOf(t as Record<string, unknown>, `provider.${name}[${i}]`));
  }
  const family = (doc.provider_family ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(family)) {
    if (typeof v !== "string") throw `provider_family.${k} must be a string`;
    out.family[k] = v;
  }
  return out;
}

function ruleOf(t: Record<string, unknown>, where: string): Rule {
  if (typeof t.model_match !== "string") throw `${where}: model_match must be a string`;
  const r: Rule = { model_match: t.model_match };
  const vm = t.version_min;
  if (vm !== undefined) {
    if (!Array.isArray(vm) || vm.length !== 2 || vm.some((x) => typeof x !== "number" && typeof x !== "bigint")) throw `${where}: version_min must be [major, minor]`;
    r.version_min = [Number(vm[0]), Number(vm[1])];
  }
  for (const [k0, v] of Object.entries(t)) {
    const k = k0 === "vision" ? "vision_supported" : k0;
    if (k === "model_match" || k === "version_min") continue;
    const rec = r as unknown as Record<string, unknown>;
    if (LIST_FIELDS.has(k)) {
      if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw `${where}: ${k0} must be a list of strings`;
      rec[k] = v;
    } else if (BOOL_FIELDS.has(k)) {
      if (typeof v !== "boolean") throw `${where}: ${k0} must be a boolean`;
      rec[k] = v;
    } else if (k === "max_tools") {
      if (typeof v !== "number" && typeof v !== "bigint") throw `${where}: max_tools must be an integer`;
      rec[k] = Number(v);
    }
  }
  return r;
}
