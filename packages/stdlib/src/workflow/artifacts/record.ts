/**
 * Artifact records (spec/workflows.md §4.1): `artifact(payload)`
 * normalises a dict into the record every workflow piece exchanges, with
 * kind aliases, the default priority by kind and the token estimate; the
 * helper constructors fill title/text/data/metadata for common kinds.
 */
import { HarnError, HDict, isNumeric, toJsNumber, float, type Runtime, type Value } from "@harn/vm";
import { structuredPatch } from "diff";
import { uuidV7 } from "../../core/encoding";
import { rfc3339 } from "../../core/wait";

const KIND_ALIASES: Record<string, string> = {
  file: "workspace_file",
  transcript: "transcript_summary",
  verification: "verification_result",
  test: "test_result",
};

const PRIORITY: [number, string[]][] = [
  [100, ["verification_result", "test_result"]],
  [95, ["verification_bundle"]],
  [92, ["handoff"]],
  [90, ["diff", "git_diff", "patch", "patch_set", "patch_proposal", "diff_review", "review_decision", "apply_intent"]],
  [80, ["plan"]],
  [70, ["workspace_file", "workspace_snapshot", "editor_selection", "resource"]],
  [60, ["summary", "transcript_summary"]],
  [50, ["command_result"]],
];

export function newId(rt: Runtime, prefix: string): string {
  return `${prefix}_${uuidV7(rt)}`;
}

export function canonicalKind(kind: Value): string {
  const k = typeof kind === "string" ? kind.trim() : "";
  if (k === "") return "artifact";
  return KIND_ALIASES[k] ?? k;
}

export function defaultPriority(kind: string): number {
  for (const [p, kinds] of PRIORITY) if (kinds.includes(kind)) return p;
  return 40;
}

/** `ceil(bytes / 4)`. */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / 4);
}

const strOrNil = (v: Value): string | null => (typeof v === "string" ? v : null);

/** The normalised record of `payload` (§4.1). */
export function normalizeArtifact(rt: Runtime, payload: HDict): HDict {
  const kind = canonicalKind(payload.get("kind"));
  const text = strOrNil(payload.get("text"));
  const priority = payload.get("priority");
  const tokens = payload.get("estimated_tokens");
  const relevance = payload.get("relevance");
  const lineage = payload.get("lineage");
  const metadata = payload.get("metadata");
  const id = payload.get("id");
  const created = payload.get("created_at");
  return HDict.of({
    _type: "artifact",
    id: typeof id === "string" && id !== "" ? id : newId(rt, "artifact"),
    kind,
    title: strOrNil(payload.get("title")),
    text,
    data: payload.get("data"),
    source: strOrNil(payload.get("source")),
    created_at: typeof created === "string" && created !== "" ? created : rfc3339(rt),
    freshness: strOrNil(payload.get("freshness")),
    priority: isNumeric(priority) ? Math.trunc(toJsNumber(priority)) : defaultPriority(kind),
    lineage: Array.isArray(lineage) ? lineage.filter((x) => typeof x === "string") : [],
    relevance: isNumeric(relevance) ? float(toJsNumber(relevance)) : null,
    estimated_tokens: isNumeric(tokens) ? Math.trunc(toJsNumber(tokens)) : text === null ? null : estimateTokens(text),
    stage: strOrNil(payload.get("stage")),
    metadata: metadata instanceof HDict ? metadata : HDict.empty(),
  });
}

/** A unified diff of `before` -> `after` under `a/PATH` / `b/PATH`. */
export function unifiedDiff(path: string, before: string, after: string): string {
  const patch = structuredPatch(`a/${path}`, `b/${path}`, before, after, "", "", { context: 3 });
  const lines = [`--- a/${path}`, `+++ b/${path}`];
  for (const h of patch.hunks) {
    lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    lines.push(...h.lines);
  }
  return lines.join("\n") + "\n";
}

export const fail = (text: string) => HarnError.runtime(text);
