/**
 * `std/plan` (spec/workflows.md §5.6), in Harn over the `plan_artifact` and
 * `plan_entries` builtins (agent/tools/plan.ts, which the agent loop also
 * uses to record a `plan` transcript event when the model calls
 * `emit_plan` or `update_plan`) and `request_approval`.
 */
import type { Runtime } from "@harn/vm";

const PLAN = String.raw`// std/plan: bundled with the runtime
pub fn plan_from(plan) {
  return plan_artifact(plan)
}

pub fn plan_acp_entries(plan) {
  return plan_entries(plan)
}

fn __plan_parameters() {
  return {
    summary: {type: "string", description: "One-sentence summary of the plan."},
    steps: {
      type: "array",
      description: "The steps in order.",
      items: {
        type: "object",
        properties: {
          id: {type: "string"},
          content: {type: "string", description: "What the step does."},
          status: {type: "string", enum: ["pending", "in_progress", "completed"]},
        },
        required: ["content"],
      },
    },
    assumptions: {type: "array", items: {type: "string"}, required: false},
    open_questions: {type: "array", items: {type: "string"}, required: false},
    verification_commands: {type: "array", items: {type: "string"}, required: false},
  }
}

pub fn plan_tools(registry = nil) {
  var reg = registry ?? tool_registry()
  reg = tool_define(reg, "emit_plan", "Record your plan for the task before acting: a summary and ordered steps with their status.", {parameters: __plan_parameters(), executor: "harn"})
  reg = tool_define(reg, "update_plan", "Replace the recorded plan with an updated one (step statuses as they are now).", {parameters: __plan_parameters(), executor: "harn"})
  return reg
}

fn __approval(state, reviewers, reason) {
  return {state: state, reviewers: reviewers ?? [], reason: reason}
}

pub fn plan_approved(plan, approval) {
  let a = approval ?? {}
  var state = a?.state
  if state == nil {
    state = if a?.approved == false { "rejected" } else { "approved" }
  }
  var reviewers = a?.reviewers
  if reviewers == nil && a?.reviewer != nil {
    reviewers = [a.reviewer]
  }
  return plan_artifact(plan) + {approval: __approval(state, reviewers, a?.reason)}
}

pub fn request_plan_approval(plan, options = nil) {
  let p = plan_artifact(plan)
  var opts = {detail: p}
  if options?.reviewers != nil {
    opts = opts + {reviewers: options.reviewers}
  }
  var outcome = nil
  try {
    let approved = request_approval("plan: " + p.summary, opts)
    outcome = __approval("approved", approved?.reviewers, approved?.reason)
  } catch (e) {
    if type_of(e) != "dict" || e?.name != "ApprovalDeniedError" {
      throw e
    }
    outcome = __approval("rejected", e?.reviewers, e?.reason ?? e?.message)
  }
  return p + {approval: outcome}
}
`;

export function installPlanStdModule(rt: Runtime): void {
  rt.stdModules.set("std/plan", PLAN);
}
