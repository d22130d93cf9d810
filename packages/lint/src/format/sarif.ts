/**
 * `--format sarif`: a SARIF 2.1.0 log for GitHub code scanning. One run;
 * the driver describes every rule (short and full description, help as
 * text and markdown, a `helpUri` to its page under `docs/rules/`); one
 * result per finding with its region (columns in UTF-16 code units, as
 * GitHub reads them) and fixes as artifact changes. A file that does not
 * parse gets `syntax` results; one that cannot be read is a tool execution
 * notification (no result can point into it).
 */
import { utf16Column, type Diagnostic, type Severity, type Span } from "@harn/parser";
import { ALL_RULES } from "../rules/index";
import type { FileReport } from "./report";

const SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
const SYNTAX = "syntax";
const LEVEL: Record<Severity, "error" | "warning" | "note"> = { error: "error", warning: "warning", info: "note" };

/** A rule's documentation page (docs/rules/ID.md). */
export interface RuleDoc {
  /** The page's first paragraph: what the rule finds. */
  summary: string;
  markdown: string;
}

export interface SarifOptions {
  toolVersion: string;
  /** Where the rule pages live (a URI ending in `/`): `helpUri` is this
   * plus `ID.md`, `informationUri` this directory. */
  docsBase: string;
  /** The page of a rule, when the installation has it. */
  ruleDoc?: (id: string) => RuleDoc | null;
}

/** Each path segment percent-encoded (`:`, `#`, `?`, spaces, non-ASCII),
 * so any file name is a valid URI reference; absolute paths become
 * `file://` URIs. */
export function pathToUri(path: string): string {
  const p = path.replace(/\\/g, "/");
  const encoded = p
    .split("/")
    .map((seg) => (seg === "." || seg === ".." ? seg : encodeURIComponent(seg)))
    .join("/");
  if (p.startsWith("/")) return `file://${encoded}`;
  return encoded.replace(/^(\.\/)+/, "");
}

function region(source: string, s: Span): Record<string, number> {
  return { startLine: s.line, startColumn: utf16Column(source, s.start), endLine: s.endLine, endColumn: utf16Column(source, s.end) };
}

function artifact(uri: string): object {
  return uri.startsWith("file:") ? { uri } : { uri, uriBaseId: "%SRCROOT%" };
}

/** Markdown without its markup, for `help.text`. */
function plainText(markdown: string): string {
  return markdown
    .replace(/^#+\s*/gm, "")
    .replace(/`{3}\w*\n?/g, "")
    .replace(/`([^`]*)`/g, "$1");
}

function describeRules(options: SarifOptions): object[] {
  const doc = (id: string): RuleDoc | null => options.ruleDoc?.(id) ?? null;
  const entry = (id: string, short: string, level: string, fixable: boolean | null): object => {
    const page = doc(id);
    const full = page?.summary ?? short;
    const markdown = page?.markdown ?? `${short}\n`;
    return {
      id,
      shortDescription: { text: short },
      fullDescription: { text: full },
      help: { text: plainText(markdown), markdown },
      helpUri: `${options.docsBase}${id}.md`,
      defaultConfiguration: { level },
      ...(fixable === null ? {} : { properties: { fixable } }),
    };
  };
  return [
    ...ALL_RULES.map((r) => entry(r.id, r.meta.description, LEVEL[r.meta.severity], r.meta.fixable)),
    entry(SYNTAX, "The file does not lex or parse, so it was not linted", "error", null),
  ];
}

export function toSarif(reports: readonly FileReport[], options: SarifOptions): object {
  const rules = describeRules(options);
  const index = new Map(rules.map((r, i) => [(r as { id: string }).id, i]));
  const results: object[] = [];
  const notifications: object[] = [];
  for (const r of reports) {
    const uri = pathToUri(r.path);
    for (const d of r.diagnostics) {
      if (d.span === null) {
        notifications.push({
          level: "error",
          message: { text: d.message },
          locations: [{ physicalLocation: { artifactLocation: artifact(uri) } }],
        });
        continue;
      }
      results.push(result(d, d.span, r, uri, index));
    }
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
            informationUri: options.docsBase,
            rules,
          },
        },
        invocations: [{ executionSuccessful: notifications.length === 0, toolExecutionNotifications: notifications }],
        columnKind: "utf16CodeUnits",
        results,
      },
    ],
  };
}

function result(d: Diagnostic, span: Span, r: FileReport, uri: string, index: Map<string, number>): object {
  const code = r.fatal ? SYNTAX : d.code;
  const res: Record<string, unknown> = {
    ruleId: code,
    ruleIndex: index.get(code),
    level: LEVEL[d.severity],
    message: { text: d.help ? `${d.message}\nhelp: ${d.help}` : d.message },
    locations: [{ physicalLocation: { artifactLocation: artifact(uri), region: region(r.source, span) } }],
  };
  if (d.fix && d.fix.length > 0) {
    res.fixes = [
      {
        description: { text: d.help ?? "apply the suggested edit" },
        artifactChanges: [
          {
            artifactLocation: artifact(uri),
            replacements: d.fix.map((e) => ({
              deletedRegion: region(r.source, e.span),
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
