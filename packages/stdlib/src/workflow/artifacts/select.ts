/**
 * Choosing and rendering artifacts for a prompt (spec/workflows.md §4.2,
 * §1.6): the context policy, `select_artifacts` ordering and budgets, the
 * adaptive pre-pass (stale evidence, duplicates, micro-compaction) and the
 * `<artifact>` rendering.
 */
import { HarnError, HDict, isNumeric, toJsNumber, type Value } from "@harn/vm";
import { stringifyJsonKeepingFloats, toJson } from "../../core/json";
import { estimateTokens } from "./record";

export interface ContextPolicy {
  maxArtifacts: number | null;
  maxTokens: number | null;
  reserveTokens: number | null;
  includeKinds: string[];
  excludeKinds: string[];
  prioritizeKinds: string[];
  pinnedIds: string[];
  includeStages: string[];
  preferRecent: boolean;
  preferFresh: boolean;
  render: string | null;
}

class PolicyError {
  constructor(readonly detail: string) {}
}

function int(p: HDict, key: string): number | null {
  const v = p.get(key);
  if (v === null) return null;
  if (typeof v !== "number" && typeof v !== "bigint") throw new PolicyError(`${key}: expected an integer`);
  return Number(v);
}

function list(p: HDict, key: string): string[] {
  const v = p.get(key);
  if (v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw new PolicyError(`${key}: expected a list of strings`);
  return v as string[];
}

function bool(p: HDict, key: string): boolean {
  const v = p.get(key);
  if (v === null) return false;
  if (typeof v !== "boolean") throw new PolicyError(`${key}: expected a bool`);
  return v;
}

/** The context policy of a dict (nil: the empty policy); runtime error
 * `context policy parse error: DETAIL`. */
export function parseContextPolicy(v: Value): ContextPolicy {
  const p = v instanceof HDict ? v : HDict.empty();
  try {
    if (v !== null && !(v instanceof HDict)) throw new PolicyError("expected a dict");
    const render = p.get("render");
    if (render !== null && typeof render !== "string") throw new PolicyError("render: expected a string");
    return {
      maxArtifacts: int(p, "max_artifacts"),
      maxTokens: int(p, "max_tokens"),
      reserveTokens: int(p, "reserve_tokens"),
      includeKinds: list(p, "include_kinds"),
      excludeKinds: list(p, "exclude_kinds"),
      prioritizeKinds: list(p, "prioritize_kinds"),
      pinnedIds: list(p, "pinned_ids"),
      includeStages: list(p, "include_stages"),
      preferRecent: bool(p, "prefer_recent"),
      preferFresh: bool(p, "prefer_fresh"),
      render,
    };
  } catch (e) {
    if (e instanceof PolicyError) throw HarnError.runtime(`context policy parse error: ${e.detail}`);
    throw e;
  }
}

const str = (a: HDict, k: string): string => {
  const v = a.get(k);
  return typeof v === "string" ? v : "";
};
const num = (a: HDict, k: string, dflt: number): number => {
  const v = a.get(k);
  return isNumeric(v) ? toJsNumber(v) : dflt;
};

function freshnessRank(f: string): number {
  if (f === "fresh" || f === "live") return 3;
  if (f === "recent") return 2;
  if (f === "stale") return 0;
  return 1;
}

/** Artifact dicts of a list (other values are skipped). */
export function artifactList(v: Value): HDict[] {
  return Array.isArray(v) ? v.filter((x): x is HDict => x instanceof HDict) : [];
}

/** `select_artifacts` (§4.2): filter, order, then take within the counts. */
export function selectArtifacts(artifacts: readonly HDict[], p: ContextPolicy): HDict[] {
  const kept = artifacts.filter((a) => {
    const kind = str(a, "kind");
    if (p.includeKinds.length > 0 && !p.includeKinds.includes(kind)) return false;
    if (p.excludeKinds.includes(kind)) return false;
    if (p.includeStages.length > 0 && !p.includeStages.includes(str(a, "stage"))) return false;
    return true;
  });
  const keys = (a: HDict): number[] => [
    p.pinnedIds.includes(str(a, "id")) ? 0 : 1,
    p.prioritizeKinds.includes(str(a, "kind")) ? 0 : 1,
    -num(a, "priority", 0),
    p.preferFresh ? -freshnessRank(str(a, "freshness")) : 0,
    0, // created_at, compared as text below
    -num(a, "relevance", 0),
    num(a, "estimated_tokens", 0),
  ];
  const sorted = kept
    .map((a, i) => ({ a, i, k: keys(a) }))
    .sort((x, y) => {
      for (let j = 0; j < x.k.length; j++) {
        if (j === 4) {
          if (!p.preferRecent) continue;
          const c = str(y.a, "created_at").localeCompare(str(x.a, "created_at"));
          if (c !== 0) return c;
          continue;
        }
        if (x.k[j] !== y.k[j]) return x.k[j]! - y.k[j]!;
      }
      return x.i - y.i;
    });
  const limit = p.maxTokens === null ? Infinity : p.maxTokens - (p.reserveTokens ?? 0);
  const out: HDict[] = [];
  let used = 0;
  for (const { a } of sorted) {
    if (p.maxArtifacts !== null && out.length >= p.maxArtifacts) break;
    const t = num(a, "estimated_tokens", 0);
    if (used + t > limit) continue;
    used += t;
    out.push(a);
  }
  return out;
}

function pathsOf(a: HDict, key: string): string[] {
  const m = a.get("metadata");
  const v = m instanceof HDict ? m.get(key) : null;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** `select_artifacts_adaptive` (§4.2): drop stale evidence and repeated
 * texts, micro-compact oversized artifacts, then select. */
export function selectAdaptive(artifacts: readonly HDict[], p: ContextPolicy): HDict[] {
  const isFresh = (a: HDict) => ["fresh", "live", "recent"].includes(str(a, "freshness"));
  const changed = new Set(artifacts.filter(isFresh).flatMap((a) => pathsOf(a, "changed_paths")));
  let list = artifacts.filter((a) => isFresh(a) || !pathsOf(a, "evidence_paths").some((x) => changed.has(x)));
  const seen = new Set<string>();
  list = list.filter((a) => {
    const t = str(a, "text");
    if (t === "") return true;
    if (seen.has(t)) return false;
    seen.add(t);
    return true;
  });
  if (p.maxTokens !== null && list.length > 0) {
    const cap = Math.min(Math.max(Math.floor(p.maxTokens / list.length), 500), p.maxTokens);
    list = list.map((a) => {
      const text = str(a, "text");
      if (num(a, "estimated_tokens", 0) <= 2 * cap || cap * 4 < 200) return a;
      const cut = microcompact(text, cap * 4);
      return a.with("text", cut).with("estimated_tokens", estimateTokens(cut));
    });
  }
  return selectArtifacts(list, p);
}

/** The head and tail of a long text around an omission marker, at most
 * `chars` characters. */
function microcompact(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const marker = "\n...[truncated]...\n";
  const half = Math.max(0, Math.floor((chars - marker.length) / 2));
  return text.slice(0, half) + marker + text.slice(text.length - half);
}

/** The `<artifact>` blocks of a selection (§1.6), or one compact JSON
 * object per artifact with `render: "json"`. */
export function renderArtifacts(artifacts: readonly HDict[], render: string | null): string {
  if (render === "json") return artifacts.map((a) => stringifyJsonKeepingFloats(toJson(a))).join("\n\n");
  return artifacts
    .map((a) => {
      const text = a.get("text");
      const body = typeof text === "string" ? text : stringifyJsonKeepingFloats(toJson(a.get("data")));
      const title = str(a, "title") || `${str(a, "kind")} ${str(a, "id")}`;
      return [
        "<artifact>",
        `<title>${title}</title>`,
        `<kind>${str(a, "kind")}</kind>`,
        `<source>${str(a, "source") || "unknown"}</source>`,
        `<freshness>${str(a, "freshness") || "normal"}</freshness>`,
        `<priority>${num(a, "priority", 0)}</priority>`,
        "<body>",
        body,
        "</body>",
        "</artifact>",
      ].join("\n");
    })
    .join("\n\n");
}
