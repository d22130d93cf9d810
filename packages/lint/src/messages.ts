/** Rule messages: `meta.messages` templates with `{name}` placeholders. */
import type { MessageTemplate } from "./types";

/** `{name}` placeholders filled from `data`; unknown ones stay as written
 * (a message may show `{key, value}` literally). */
export function fillMessage(template: string, data: Readonly<Record<string, string | number>> | undefined): string {
  if (data === undefined) return template;
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (k in data ? String(data[k]) : m));
}

/** A template's message and help, filled. */
export function renderMessage(t: MessageTemplate, data?: Readonly<Record<string, string | number>>): { message: string; help?: string } {
  return t.help === undefined ? { message: fillMessage(t.message, data) } : { message: fillMessage(t.message, data), help: fillMessage(t.help, data) };
}
