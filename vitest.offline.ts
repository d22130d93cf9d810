/**
 * No test reaches a real model provider because of the developer's shell:
 * harn picks a provider from whichever API key or server address is set
 * (docs/providers.md), so the provider variables are removed before vitest
 * starts its workers, which (with every harn process they start) inherit
 * the cleaned environment. A test that wants a provider sets its variables
 * itself, pointing at a server it started.
 */

/** Variables that choose, configure or restrict a model provider. */
export const PROVIDER_ENV = /(_API_KEY$|^HF_TOKEN$|_BASE_URL$|^OLLAMA_HOST$|^LOCAL_LLM_|^HARN_LLM_|^LLM_PROVIDER$|^HARN_DEFAULT_PROVIDER$|^HARN_RATE_LIMIT_)/;

export default function setup(): () => void {
  const removed: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || !PROVIDER_ENV.test(k)) continue;
    removed[k] = v;
    delete process.env[k];
  }
  return () => void Object.assign(process.env, removed);
}
