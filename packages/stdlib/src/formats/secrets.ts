/**
 * `secret_scan(text, opts?)` (spec/stdlib.md §23): finds credential-like
 * strings. Each finding is `{kind, line, column, redacted}` (1-based
 * positions; the match itself is never echoed back whole). `opts.kinds`
 * restricts the detectors.
 */
import { cpLength, display, HDict, type Value } from "@harn/vm";
import { builtinModule } from "../registry/define";

const DETECTORS: [string, RegExp][] = [
  ["aws_access_key_id", /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g],
  ["github_token", /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g],
  ["slack_token", /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g],
  ["openai_api_key", /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}\b/g],
  ["anthropic_api_key", /\bsk-ant-[A-Za-z0-9_-]{20,}\b/g],
  ["google_api_key", /\bAIza[0-9A-Za-z_-]{35}\b/g],
  ["stripe_key", /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b/g],
  ["jwt", /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g],
  ["private_key", /-----BEGIN (?:RSA |EC |OPENSSH |DSA |ENCRYPTED )?PRIVATE KEY-----/g],
  ["generic_secret", /\b(?:api[_-]?key|secret|token|password|passwd)\b\s*[:=]\s*["']?[^\s"']{8,}["']?/gi],
];

function redact(s: string): string {
  return s.length <= 8 ? "****" : s.slice(0, 4) + "****";
}

export function scanSecrets(text: string, kinds: Set<string> | null): Value[] {
  const findings: { kind: string; index: number; match: string }[] = [];
  for (const [kind, re] of DETECTORS) {
    if (kinds && !kinds.has(kind)) continue;
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      // a specific detector wins over the generic one at the same place
      if (kind === "generic_secret" && findings.some((f) => f.index >= m.index! && f.index < m.index! + m[0].length)) continue;
      findings.push({ kind, index: m.index!, match: m[0] });
    }
  }
  findings.sort((a, b) => a.index - b.index);
  return findings.map((f) => {
    const before = text.slice(0, f.index);
    const line = before.split("\n").length;
    const column = cpLength(before.slice(before.lastIndexOf("\n") + 1)) + 1;
    return HDict.of({ kind: f.kind, line, column, redacted: redact(f.match) });
  });
}

export const SECRET_SCAN_BUILTINS = builtinModule("formats/secrets", (def) => {
  def("secret_scan", (args) => {
    const v = args[0] ?? null;
    const text = typeof v === "string" ? v : display(v);
    const o = args[1] instanceof HDict ? args[1] : null;
    const k = o?.get("kinds");
    const kinds = Array.isArray(k) ? new Set(k.map((x) => (typeof x === "string" ? x : display(x)))) : null;
    return scanSecrets(text, kinds);
  });
});
