/**
 * Plans (spec/workflows.md §5.6): the normalised `plan_artifact` that
 * std/plan's `plan_from` returns and the loop records when the model calls
 * `emit_plan` / `update_plan`, and its ACP plan entries.
 */
import { display, HDict, HarnError, type Value } from "@harn/vm";
import { fromJson, toJson } from "../../core/json";
import { builtinModule } from "../../registry/define";

export const PLAN_SCHEMA_VERSION = "harn.plan.v1";

const STATUS: Readonly<Record<string, string>> = {
  pending: "pending",
  todo: "pending",
  in_progress: "in_progress",
  "in-progress": "in_progress",
  active: "in_progress",
  running: "in_progress",
  completed: "completed",
  complete: "completed",
  done: "completed",
};

const text = (v: Value): string | null => (typeof v === "string" ? v : v === null ? null : display(v));
const list = (v: Value): Value[] => (Array.isArray(v) ? v : v === null ? [] : [v]);

function step(v: Value, i: number): HDict {
  const d = v instanceof HDict ? v : HDict.of({ content: v });
  const content = text(d.get("content") ?? d.get("step") ?? d.get("title") ?? d.get("description") ?? d.get("text")) ?? "";
  const id = text(d.get("id"));
  const raw = typeof d.get("status") === "string" ? (d.get("status") as string).trim().toLowerCase() : "";
  const out = new Map<string, Value>([
    ["id", id !== null && id !== "" ? id : `step-${i + 1}`],
    ["content", content],
    ["status", STATUS[raw] ?? "pending"],
  ]);
  const priority = d.get("priority");
  if (typeof priority === "string" && priority !== "") out.set("priority", priority);
  return new HDict(out);
}

/** The plan inside a value: a dict (or `{plan: dict}` as tools receive it), a JSON text, or a bare summary. */
function planDict(v: Value, builtin: string): HDict {
  if (v instanceof HDict) {
    const inner = v.get("plan");
    return inner instanceof HDict && v.get("steps") === null ? inner : v;
  }
  if (typeof v === "string") {
    try {
      const parsed = fromJson(JSON.parse(v));
      if (parsed instanceof HDict) return parsed;
    } catch {
      // not JSON: the text is the summary
    }
    return HDict.of({ summary: v });
  }
  if (Array.isArray(v)) return HDict.of({ steps: v });
  throw HarnError.runtime(`${builtin}: expected a plan dict`);
}

/** `plan_from(plan)` / `plan_artifact(plan)`. */
export function planArtifact(v: Value, builtin = "plan_artifact"): HDict {
  const p = planDict(v, builtin);
  const out = new Map<string, Value>([
    ["_type", "plan_artifact"],
    ["schema_version", PLAN_SCHEMA_VERSION],
    ["summary", text(p.get("summary") ?? p.get("title")) ?? ""],
    ["steps", list(p.get("steps") ?? p.get("plan_steps")).map(step)],
    ["assumptions", list(p.get("assumptions")).map((x) => text(x) ?? "")],
    ["open_questions", list(p.get("open_questions")).map((x) => text(x) ?? "")],
    ["verification_commands", list(p.get("verification_commands")).map((x) => text(x) ?? "")],
  ]);
  const approval = p.get("approval");
  if (approval instanceof HDict) out.set("approval", fromJson(toJson(approval)));
  return new HDict(out);
}

/** One ACP plan entry per step: `{content, status, priority}` (priority `medium` unless the step has one). */
export function planEntries(v: Value): Value[] {
  const plan = v instanceof HDict && v.get("_type") === "plan_artifact" ? v : planArtifact(v, "plan_entries");
  return list(plan.get("steps")).map((s) => {
    const d = s instanceof HDict ? s : HDict.empty();
    return HDict.of({ content: d.get("content"), status: d.get("status"), priority: d.get("priority") ?? "medium" });
  });
}

export const PLAN_BUILTINS = builtinModule("agent/plan", (def) => {
  def("plan_artifact", (args) => planArtifact(args[0] ?? null));
  def("plan_entries", (args) => planEntries(args[0] ?? null));
});
