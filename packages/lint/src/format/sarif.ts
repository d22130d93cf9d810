/**
 * `--format sarif`: a SARIF 2.1.0 log for code-scanning upload. One run,
 * every rule described in `tool.driver.rules`, one result per finding with
 * its region (columns count code points: `columnKind`), and fixes as
 * artifact changes. Files that could not be linted get a `parse-error`
 * result so the upload shows them.
 */
import type { Span } from "@harn/parser";
import { ALL_RULES } from "../rules/index";
import type { LintDiagnostic, Severity } from "../types";
import type { FileReport } from "./report";

const SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
const PARSE_ERROR = "parse-error";
const LEVEL: Record<Severity, "error" | "warning" | "note"> = { error: "error", warning: "warning", info: "note" };

export interface SarifOptions {
  toolVersion: string;
}

/** A relative path as a URI reference; absolute paths become file URIs. */
export function pathToUri(path: string): string {
  const p = path.replace(/\\/g, "/");
  if (p.startsWith("/")) return `file://${encodeURI(p)}`;
  return encodeURI(p.replace(/^\.\//, ""));
}

function region(s: Span): Record<string, number> {
  return { startLine: s.line, startColumn: s.column, endLine: s.endLine, endColumn: s.endColumn };
}

function location(uri: string, s: Span | null): object {
  const artifactLocation = uri.startsWith("file:") ? { uri } : { uri, uriBaseId: "%SRCROOT%" };
  return { physicalLocation: { artifactLocation, ...(s ? { region: region(s) } : {}) } };
}

export function toSarif(reports: readonly FileReport[], options: SarifOptions): object {
  const rules = [
    ...ALL_RULES.map((r) => ({
      id: r.id,
      shortDescription: { text: r.description },
      defaultConfiguration: { level: LEVEL[r.severity] },
      properties: { fixable: r.fixable },
    })),
    {
      id: PARSE_ERROR,
      shortDescription: { text: "The file could not be read, lexed or parsed, so it was not linted" },
      defaultConfiguration: { level: "error" },
    },
  ];
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const results: object[] = [];
  for (const r of reports) {
    const uri = pathToUri(r.path);
    for (const f of r.fatal) {
      results.push({
        ruleId: PARSE_ERROR,
        ruleIndex: index.get(PARSE_ERROR),
        level: "error",
        message: { text: f.message },
        locations: [location(uri, f.span)],
      });
    }
    for (const d of r.diagnostics) results.push(result(d, uri, index));
  }
  return {
    $schema: SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "harn-lint",
            semanticVersion: options.toolVersion,
            rules,
          },
        },
        columnKind: "unicodeCodePoints",
        results,
      },
    ],
  };
}

function result(d: LintDiagnostic, uri: string, index: Map<string, number>): object {
  const res: Record<string, unknown> = {
    ruleId: d.rule,
    ruleIndex: index.get(d.rule),
    level: LEVEL[d.severity],
    message: { text: d.help ? `${d.message}\nhelp: ${d.help}` : d.message },
    locations: [location(uri, d.span)],
  };
  if (d.fix && d.fix.length > 0) {
    res.fixes = [
      {
        description: { text: d.help ?? "apply the suggested edit" },
        artifactChanges: [
          {
            artifactLocation: uri.startsWith("file:") ? { uri } : { uri, uriBaseId: "%SRCROOT%" },
            replacements: d.fix.map((e) => ({
              deletedRegion: region(e.span),
              insertedContent: { text: e.replacement },
            })),
          },
        ],
      },
    ];
  }
  return res;
}

export function formatSarif(reports: readonly FileReport[], options: SarifOptions): string {
  return `${JSON.stringify(toSarif(reports, options), null, 2)}\n`;
}
