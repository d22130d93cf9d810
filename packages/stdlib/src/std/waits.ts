/**
 * `std/waitpoint`, `std/waitpoints` and `std/monitors` (spec/core-gaps.md
 * §3, §4): thin Harn layers over the natives of core/waitpoint.ts and
 * core/monitor.ts, and the types the reference's modules declare.
 */
import type { Runtime } from "@harn/vm";

const WAITPOINT = `// std/waitpoint: bundled with the runtime
type WaitpointStatus = "open" | "completed" | "cancelled"
type Waitpoint = {id: string, status: WaitpointStatus, value: any, metadata: any, reason?: string, created_at: string, completed_at?: string, completed_by?: string, cancelled_at?: string, cancelled_by?: string}
type WaitpointWaitOptions = {timeout?: any}
type WaitpointTerminalOptions = {by?: string, reason?: string, metadata?: any}
type WaitpointTimeoutError = {name: string, category: string, message: string, wait_id: string}
type WaitpointCancelledError = {name: string, category: string, message: string, wait_id: string, waitpoint_ids: list<string>, reason?: string}

pub fn create(id_or_options = nil) {
  return __waitpoint_create(id_or_options)
}

pub fn wait(waitpoints = nil, options = nil) {
  return __waitpoint_wait(waitpoints, options)
}

pub fn complete(waitpoint, value = nil, options = nil) {
  return __waitpoint_complete(waitpoint, value, options)
}

pub fn cancel(waitpoint, options = nil) {
  return __waitpoint_cancel(waitpoint, options)
}
`;

const WAITPOINTS = `// std/waitpoints: bundled with the runtime (the waitpoint_* builtins are global)
type WaitpointHandle = {id: string, status: string, created_at: string, created_by?: string, metadata: dict}
type WaitpointWaitResult = {wait_id: string, status: string, waitpoint_ids: list<string>, waitpoints: list, cancelled_waitpoint_id?: string, reason?: string, started_at: string, resolved_at: string, trace_id: string}
`;

const MONITORS = `// std/monitors: bundled with the runtime
type MonitorWaitStatus = "matched" | "timed_out" | "interrupted"
type MonitorPollContext = {wait_id: string, poll_count: int, last_push_event: any}
type MonitorSource = {poll: any, label?: string, prefers_push?: bool, push_filter: any}
type MonitorWaitOptions = {condition: any, source: any, timeout: any, poll_interval: any, wait_id?: string}
type MonitorWaitResult = {wait_id: string, status: MonitorWaitStatus, state: any, condition_value: any, poll_count: int, push_wake_count: int, reason?: string, source_label?: string, started_at: string, resolved_at: string, trace_id: string}

pub fn wait_for(options) {
  return monitor_wait_for_native(options)
}
`;

export function installWaitStdModules(rt: Runtime): void {
  rt.stdModules.set("std/waitpoint", WAITPOINT);
  rt.stdModules.set("std/waitpoints", WAITPOINTS);
  rt.stdModules.set("std/monitors", MONITORS);
}
