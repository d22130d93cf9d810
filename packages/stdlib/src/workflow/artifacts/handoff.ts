/**
 * Handoffs (spec/workflows.md §4.4): `handoff(payload)` normalises a
 * handoff (or a handoff artifact's data), `handoff_context` renders it for
 * a prompt (std/agents `handoff_artifact` wraps it in an artifact).
 */
import { display, HDict, type Runtime, type Value } from "@harn/vm";
import { rfc3339 } from "../../core/wait";
import { fail, newId } from "./record";

const str = (v: Value): string | null => (typeof v === "string" ? v : null);
const list = (v: Value): Value[] => (Array.isArray(v) ? v : []);

function target(v: Value): HDict {
  if (typeof v === "string") return HDict.of({ kind: "persona", id: v, label: v });
  const d = v instanceof HDict ? v : HDict.empty();
  const kind = d.get("kind") === "human" ? "human" : "persona";
  const id = str(d.get("id"));
  return HDict.of({ kind, id, label: str(d.get("label")) ?? id });
}

function evidence(v: Value): HDict {
  if (typeof v === "string") return HDict.of({ artifact_id: null, path: null, label: v });
  const d = v instanceof HDict ? v : HDict.empty();
  const label = str(d.get("label")) ?? str(d.get("path")) ?? str(d.get("artifact_id")) ?? "";
  return HDict.of({ artifact_id: str(d.get("artifact_id")), path: str(d.get("path")), label });
}

/** `handoff(payload)`: a handoff dict, or a handoff artifact's data. */
export function normalizeHandoff(rt: Runtime, payload: Value): HDict {
  if (payload === null) throw fail("handoff: missing payload");
  if (!(payload instanceof HDict)) throw fail("handoff: invalid handoff payload");
  const p = payload.get("_type") === "artifact" ? payload.get("data") : payload;
  if (!(p instanceof HDict)) throw fail("handoff: invalid handoff payload");
  const id = str(p.get("id"));
  return HDict.of({
    id: id !== null && id !== "" ? id : newId(rt, "handoff"),
    source_persona: str(p.get("source_persona")),
    target_persona_or_human: target(p.get("target_persona_or_human") ?? p.get("target")),
    task: str(p.get("task")),
    reason: str(p.get("reason")),
    evidence_refs: list(p.get("evidence_refs")).map(evidence),
    files_or_entities_touched: list(p.get("files_or_entities_touched")),
    open_questions: list(p.get("open_questions")),
    blocked_on: list(p.get("blocked_on")),
    requested_capabilities: list(p.get("requested_capabilities")),
    allowed_side_effects: list(p.get("allowed_side_effects")),
    budget_remaining: p.get("budget_remaining"),
    deadline_checkback: str(p.get("deadline_checkback")),
    confidence: p.get("confidence"),
    receipt_links: list(p.get("receipt_links")),
    created_at: str(p.get("created_at")) ?? rfc3339(rt),
  });
}

function targetLabel(h: HDict): string {
  const t = h.get("target_persona_or_human") as HDict;
  return str(t.get("label")) ?? str(t.get("id")) ?? "unassigned";
}

/** The handoff as prompt text: every field, one section each. */
export function handoffContext(h: HDict): string {
  const t = h.get("target_persona_or_human") as HDict;
  const lines = [`Handoff ${String(h.get("id"))}`, `From: ${str(h.get("source_persona")) ?? "unknown"}`, `To (${String(t.get("kind"))}): ${targetLabel(h)}`];
  lines.push(`Task: ${str(h.get("task")) ?? ""}`, `Reason: ${str(h.get("reason")) ?? ""}`);
  const section = (title: string, items: Value[], render: (v: Value) => string = (v) => (typeof v === "string" ? v : display(v))) => {
    if (items.length === 0) return;
    lines.push(`${title}:`);
    for (const i of items) lines.push(`- ${render(i)}`);
  };
  section("Evidence", list(h.get("evidence_refs")), (v) => {
    const e = v as HDict;
    const where = str(e.get("path")) ?? str(e.get("artifact_id"));
    return where !== null && where !== e.get("label") ? `${String(e.get("label"))} (${where})` : String(e.get("label"));
  });
  section("Files or entities touched", list(h.get("files_or_entities_touched")));
  section("Open questions", list(h.get("open_questions")));
  section("Blocked on", list(h.get("blocked_on")));
  section("Requested capabilities", list(h.get("requested_capabilities")));
  section("Allowed side effects", list(h.get("allowed_side_effects")));
  if (h.get("budget_remaining") !== null) lines.push(`Budget remaining: ${display(h.get("budget_remaining"))}`);
  if (h.get("deadline_checkback") !== null) lines.push(`Check back by: ${String(h.get("deadline_checkback"))}`);
  if (h.get("confidence") !== null) lines.push(`Confidence: ${display(h.get("confidence"))}`);
  section("Receipts", list(h.get("receipt_links")));
  return lines.join("\n");
}
