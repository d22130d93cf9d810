/**
 * The permission check of one loop (spec/agents-surface.md §5.1–§5.2),
 * run for every tool call before dispatch: first the execution policy's
 * tool ceiling, then each dynamic-permission policy in force from outer to
 * inner (any denial wins, otherwise the last grant is used). Every
 * decision is recorded in the loop's transcript as `PermissionGrant`,
 * `PermissionDeny` or `PermissionEscalation` events.
 */
import { HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { fromJson, stringifyJson } from "../../core/json";
import type { ToolCall } from "../tools/dispatch";
import { runtimeEvent } from "../transcript/values";
import { decide, escalate, type Decision } from "./dynamic";
import { toolAdmitted, type Governance } from "./policy";

/** Why a call is refused: the denial reason given to the model and the
 * metadata of its `tool_execution` event. */
export interface Refusal {
  reason: string;
  meta: Record<string, Value>;
}

export interface Permitted {
  meta: Record<string, Value>;
}

export class PermissionGate {
  /** Session grants: `policy index \0 tool \0 arguments`. */
  private readonly grants = new Set<string>();

  constructor(
    private readonly rt: Runtime,
    private readonly sessionId: string,
    readonly governance: Governance,
    private readonly record: (event: HDict) => void,
  ) {}

  private event(kind: string, tool: string, args: Value, reason: string, escalated: boolean, extra: Record<string, Value> = {}): void {
    this.record(runtimeEvent(this.rt, kind, "tool", "internal", reason, HDict.of({ tool_name: tool, arguments: args, reason, escalated, ...extra })));
  }

  /** The refusal, or (the call may run) what its `tool_execution` event
   * adds; grants are recorded here. */
  async check(call: ToolCall, ctx: CallContext, annotations: HDict | null): Promise<Refusal | Permitted> {
    const { policy, permissions } = this.governance;
    const args = fromJson(call.arguments) as HDict;
    if (policy !== null && !toolAdmitted(policy, call.name, annotations)) {
      const display = `Error [tool_rejected]: tool '${call.name}' exceeds tool ceiling`;
      this.event("PermissionDeny", call.name, args, display, false);
      return {
        reason: `${display}. Use one of the declared tools exactly as named and put extra fields inside that tool's arguments.`,
        meta: { error_category: "permission_denied" },
      };
    }
    let grant: (Decision & { escalated: boolean; approver: Value }) | null = null;
    const argKey = stringifyJson(args);
    for (let i = 0; i < permissions.length; i++) {
      const p = permissions[i]!;
      const key = `${i}\u0000${call.name}\u0000${argKey}`;
      if (this.grants.has(key)) {
        grant = { granted: true, reason: "session grant", escalated: false, approver: null };
        continue;
      }
      const d = await decide(p, call.name, args, ctx);
      if (d.granted) {
        grant = { ...d, escalated: false, approver: null };
        continue;
      }
      let escalated = false;
      let reason = d.reason;
      let approver: Value = null;
      if (p.onEscalation !== null) {
        escalated = true;
        this.event("PermissionEscalation", call.name, args, d.reason, true);
        const request = HDict.of({
          _type: "PermissionRequest",
          tool: call.name,
          args,
          session_id: this.sessionId,
          reason: d.reason,
          grant_options: ["once", "session", false],
        });
        const e = await escalate(p, request, ctx);
        reason = e.reason;
        approver = e.approver;
        if (e.granted) {
          if (e.scope === "session") this.grants.add(key);
          grant = { granted: true, reason, escalated: true, approver };
          continue;
        }
      }
      this.event("PermissionDeny", call.name, args, reason, escalated, approver === null ? {} : { approver });
      return { reason, meta: { error_category: "permission_denied", permission: "denied", escalated } };
    }
    if (grant === null) return { meta: {} };
    this.event("PermissionGrant", call.name, args, grant.reason, grant.escalated, grant.approver === null ? {} : { approver: grant.approver });
    return { meta: { permission: "granted", escalated: grant.escalated } };
  }
}

export function isRefusal(r: Refusal | Permitted): r is Refusal {
  return "reason" in r;
}
