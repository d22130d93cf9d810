/**
 * `--format github`: GitHub Actions workflow commands, one annotation per
 * finding (`::warning file=..,line=..,col=..::message`). Data and
 * property values are escaped as the runner expects.
 */
import type { FileReport } from "./report";

const escapeData = (s: string): string => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

const COMMAND = { error: "error", warning: "warning", info: "notice" } as const;

export function formatGithub(reports: readonly FileReport[]): string {
  const lines: string[] = [];
  for (const r of reports) {
    const file = escapeProperty(r.path);
    for (const d of r.diagnostics) {
      const s = d.span;
      const at = s ? [`line=${s.line}`, `col=${s.column}`, `endLine=${s.endLine}`, `endColumn=${s.endColumn}`] : [];
      const title = !r.fatal ? `harn lint: ${d.code}` : d.code === "syntax" ? "harn: parse error" : "harn: unreadable file";
      const props = [`file=${file}`, ...at, `title=${escapeProperty(title)}`].join(",");
      const text = d.help ? `${d.message}\nhelp: ${d.help}` : d.message;
      lines.push(`::${COMMAND[d.severity]} ${props}::${escapeData(text)}`);
    }
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
