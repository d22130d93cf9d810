/**
 * `assemble_context(options)` (spec/workflows.md §4.3): artifacts cut into
 * chunks (paragraphs when an artifact is over the micro-compaction
 * threshold), duplicate chunks dropped, ordered by relevance, recency or
 * round robin, and taken within a token budget, with a reason per chunk.
 */
import { createHash } from "node:crypto";
import { float, HarnError, HDict, isNumeric, isPromise, toJsNumber, type CallContext, type Value } from "@harn/vm";
import { stringifyJsonKeepingFloats, toJson } from "../../core/json";
import { estimateTokens } from "./record";
import { artifactList } from "./select";

interface Chunk {
  id: string;
  artifactId: Value;
  index: number;
  text: string;
  tokens: number;
  score: number;
  order: number;
}

const STRATEGIES = ["relevance", "recency", "round_robin"];

function chunkId(text: string): string {
  return `chunk_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
}

/** Paragraphs merged while a chunk stays within `threshold` tokens. */
function split(text: string, threshold: number): string[] {
  if (estimateTokens(text) <= threshold) return [text];
  const out: string[] = [];
  let cur = "";
  for (const para of text.split("\n\n")) {
    const joined = cur === "" ? para : `${cur}\n\n${para}`;
    if (cur !== "" && estimateTokens(joined) > threshold) {
      out.push(cur);
      cur = para;
    } else cur = joined;
  }
  if (cur !== "") out.push(cur);
  return out;
}

function words(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

export async function assembleContext(options: HDict, ctx: CallContext): Promise<HDict> {
  const budget = isNumeric(options.get("budget_tokens")) ? toJsNumber(options.get("budget_tokens") as number) : Infinity;
  const strategy = typeof options.get("strategy") === "string" ? (options.get("strategy") as string) : "relevance";
  if (!STRATEGIES.includes(strategy)) throw HarnError.runtime(`assemble_context: unknown strategy '${strategy}' (expected relevance, recency or round_robin)`);
  const dedup = options.get("dedup") !== "none";
  const threshold = isNumeric(options.get("microcompact_threshold")) ? toJsNumber(options.get("microcompact_threshold") as number) : Number.MAX_SAFE_INTEGER;
  const chunks: Chunk[] = [];
  for (const a of artifactList(options.get("artifacts"))) {
    const t = a.get("text");
    const text = typeof t === "string" ? t : stringifyJsonKeepingFloats(toJson(a.get("data")));
    split(text, threshold).forEach((piece, index) => {
      chunks.push({ id: chunkId(piece), artifactId: a.get("id"), index, text: piece, tokens: estimateTokens(piece), score: 0, order: chunks.length });
    });
  }
  const reasons: HDict[] = [];
  const dropped: HDict[] = [];
  const drop = (c: Chunk, reason: string) => {
    reasons.push(HDict.of({ chunk_id: c.id, artifact_id: c.artifactId, strategy, included: false, reason, score: float(c.score) }));
    dropped.push(HDict.of({ chunk_id: c.id, artifact_id: c.artifactId, reason }));
  };
  let candidates = chunks;
  if (dedup) {
    const seen = new Set<string>();
    candidates = [];
    for (const c of chunks) {
      if (seen.has(c.id)) drop(c, "duplicate");
      else {
        seen.add(c.id);
        candidates.push(c);
      }
    }
  }
  if (strategy === "relevance") {
    const ranker = options.get("ranker_callback");
    const query = typeof options.get("query") === "string" ? (options.get("query") as string) : "";
    if (ranker !== null) {
      let r = ctx.call(ranker, [query, candidates.map((c) => HDict.of({ id: c.id, artifact_id: c.artifactId, index: c.index, text: c.text, estimated_tokens: c.tokens }))]);
      if (isPromise<Value>(r)) r = await r;
      const scores = Array.isArray(r) ? r : [];
      candidates.forEach((c, i) => (c.score = isNumeric(scores[i] ?? null) ? toJsNumber(scores[i] as number) : 0));
    } else {
      const q = [...new Set(words(query))];
      for (const c of candidates) {
        const have = new Set(words(c.text));
        c.score = q.length === 0 ? 0 : q.filter((w) => have.has(w)).length / q.length;
      }
    }
    candidates = candidates.slice().sort((a, b) => b.score - a.score || a.order - b.order);
  } else if (strategy === "round_robin") {
    const byArtifact = new Map<Value, Chunk[]>();
    for (const c of candidates) byArtifact.set(c.artifactId, [...(byArtifact.get(c.artifactId) ?? []), c]);
    const lists = [...byArtifact.values()];
    const out: Chunk[] = [];
    for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i]!);
    candidates = out;
  }
  const included: HDict[] = [];
  let total = 0;
  for (const c of candidates) {
    if (total + c.tokens > budget) {
      drop(c, "budget_exceeded");
      continue;
    }
    total += c.tokens;
    reasons.push(HDict.of({ chunk_id: c.id, artifact_id: c.artifactId, strategy, included: true, reason: "included", score: float(c.score) }));
    included.push(HDict.of({ id: c.id, artifact_id: c.artifactId, index: c.index, text: c.text, estimated_tokens: c.tokens, score: float(c.score) }));
  }
  return HDict.of({ budget_tokens: budget === Infinity ? null : budget, total_tokens: total, chunks: included, reasons, dropped });
}
