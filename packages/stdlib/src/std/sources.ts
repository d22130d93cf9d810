/**
 * Std modules written in Harn (spec/stdlib.md §24): thin layers over the
 * host-call and mock builtins, where Harn's own `try`/`finally` gives the
 * scope handling its exact semantics (errors propagate unchanged).
 *
 * Kept as plain strings: the sources avoid `${` and backslashes so they
 * read the same here as in a `.harn` file.
 */
import { AGENTS_WORKFLOW } from "./agents_workflow";
import type { Runtime } from "@harn/vm";
import { installWaitStdModules } from "./waits";

const RUNTIME = `// std/runtime: bundled with the runtime
fn __default_shell_id() {
  let shells = host_call("process.list_shells", {})
  return shells?.default_shell_id
}

fn __host_or(op, params, fallback) {
  let r = try { host_call(op, params) } catch (e) { fallback }
  return r ?? fallback
}

pub fn process_exec(command) {
  return host_call("process.exec", {mode: "shell", command: command, shell_id: __default_shell_id()})
}

pub fn process_exec_with_timeout(command, timeout_ms) {
  return host_call("process.exec", {mode: "shell", command: command, shell_id: __default_shell_id(), timeout_ms: timeout_ms})
}

pub fn runtime_task() {
  return __host_or("runtime.task", {}, "")
}

pub fn runtime_pipeline_input() {
  return __host_or("runtime.pipeline_input", {}, "")
}

pub fn runtime_dry_run() {
  return __host_or("runtime.dry_run", {}, false)
}

pub fn runtime_approved_plan() {
  return __host_or("runtime.approved_plan", {}, "")
}

pub fn interaction_ask(question) {
  return __host_or("interaction.ask", {question: question}, "")
}

pub fn interaction_ask_with_kind(question, kind) {
  return __host_or("interaction.ask", {question: question, kind: kind}, "")
}

pub fn record_run_metadata(run, workflow_name) {
  return __host_or("runtime.record_run_metadata", {run: run, workflow_name: workflow_name}, nil)
}
`;

const TESTING = `// std/testing: bundled with the runtime
pub fn clear_host_mocks() {
  return host_mock_clear()
}

pub fn mock_host_result(cap, op, result, params = nil) {
  if params == nil {
    return host_mock(cap, op, result)
  }
  return host_mock(cap, op, result, params)
}

pub fn mock_host_error(cap, op, message, params = nil) {
  if params == nil {
    return host_mock(cap, op, {error: message})
  }
  return host_mock(cap, op, {error: message, params: params})
}

pub fn mock_host_response(cap, op, config) {
  return host_mock(cap, op, config)
}

pub fn host_calls() {
  return host_mock_calls()
}

pub fn host_calls_for(cap, op) {
  return host_mock_calls().filter({ c -> c.capability == cap && c.operation == op })
}

pub fn host_call_count() {
  return len(host_mock_calls())
}

pub fn host_call_count_for(cap, op) {
  return len(host_calls_for(cap, op))
}

fn __params_match(call_params, expected) {
  let actual = call_params ?? {}
  for entry in expected {
    if actual[entry.key] != entry.value {
      return false
    }
  }
  return true
}

pub fn host_was_called(cap, op, expected_params = nil) {
  for c in host_calls_for(cap, op) {
    if expected_params == nil {
      return true
    }
    if __params_match(c.params, expected_params) {
      return true
    }
  }
  return false
}

pub fn assert_host_called(cap, op, params = nil, message = nil) {
  if host_was_called(cap, op, params) {
    return nil
  }
  var fallback = "Expected host call " + cap + "." + op + " to be recorded"
  if params != nil {
    fallback = "Expected host call " + cap + "." + op + " with params " + to_string(params) + " to be recorded"
  }
  assert(false, message ?? fallback)
}

pub fn assert_host_call_count(n, cap = nil, op = nil, message = nil) {
  var actual = 0
  if cap == nil {
    actual = host_call_count()
  } else {
    actual = host_call_count_for(cap, op)
  }
  assert_eq(actual, n, message ?? "Expected " + to_string(n) + " host calls, got " + to_string(actual))
}

fn __register_host_mock(entry) {
  if type_of(entry) != "dict" {
    throw "with_host_mocks: each entry must be a dict, got " + type_of(entry)
  }
  if entry.capability == nil || entry.operation == nil {
    throw "with_host_mocks: each entry must include 'capability' and 'operation'"
  }
  if entry.error != nil {
    if entry.params != nil {
      host_mock(entry.capability, entry.operation, {error: entry.error, params: entry.params})
    } else {
      host_mock(entry.capability, entry.operation, {error: entry.error})
    }
  } else {
    if entry.params != nil {
      host_mock(entry.capability, entry.operation, entry.result, entry.params)
    } else {
      host_mock(entry.capability, entry.operation, entry.result)
    }
  }
}

pub fn with_host_mocks(mocks, body) {
  host_mock_push_scope()
  try {
    for entry in mocks {
      __register_host_mock(entry)
    }
    return body()
  } finally {
    host_mock_pop_scope()
  }
}

pub fn llm_calls() {
  return llm_mock_calls()
}

pub fn llm_call_count() {
  return len(llm_mock_calls())
}

fn __register_llm_mock(entry, message_prefix) {
  if type_of(entry) != "dict" {
    throw message_prefix + type_of(entry)
  }
  llm_mock(entry)
}

pub fn with_llm_mocks(mocks, body) {
  llm_mock_push_scope()
  try {
    for entry in mocks {
      __register_llm_mock(entry, "with_llm_mocks: each entry must be a dict, got ")
    }
    return body()
  } finally {
    llm_mock_pop_scope()
  }
}

pub fn with_mocks(config, body) {
  host_mock_push_scope()
  try {
    llm_mock_push_scope()
    try {
      for entry in config?.host_mocks ?? [] {
        __register_host_mock(entry)
      }
      for entry in config?.llm_mocks ?? [] {
        __register_llm_mock(entry, "with_mocks: each llm_mocks entry must be a dict, got ")
      }
      return body()
    } finally {
      llm_mock_pop_scope()
    }
  } finally {
    host_mock_pop_scope()
  }
}
`;

// The worker accessors of std/agents (workflows.md §5.1); the workflow
// helpers are agents_workflow.ts.
const AGENTS = `// std/agents: bundled with the runtime
pub fn handoff_artifact(value) {
  let h = handoff(value)
  let t = h.target_persona_or_human
  return artifact({kind: "handoff", title: "handoff " + (t.label ?? t.id ?? "unassigned"), text: handoff_context(h), data: h})
}

pub fn worker_request(w) {
  return w?.request
}

pub fn worker_result(w) {
  return w?.result
}

pub fn worker_provenance(w) {
  return w?.provenance
}

pub fn worker_research_questions(w) {
  return w?.request?.research_questions ?? []
}

pub fn worker_action_items(w) {
  return w?.request?.action_items ?? []
}

pub fn worker_workflow_stages(w) {
  return w?.request?.workflow_stages ?? []
}

pub fn worker_verification_steps(w) {
  return w?.request?.verification_steps ?? []
}
`;

// std/checkpoint (agents-surface.md §7): stages cached in checkpoints.
const CHECKPOINT = `// std/checkpoint: bundled with the runtime
pub fn checkpoint_stage(name, f) {
  if checkpoint_exists(name) {
    return checkpoint_get(name)
  }
  let v = f()
  checkpoint(name, v)
  return v
}

pub fn checkpoint_stage_retry(name, max_retries, f) {
  if checkpoint_exists(name) {
    return checkpoint_get(name)
  }
  var last = nil
  var attempt = 0
  while attempt < max_retries {
    attempt = attempt + 1
    let outcome = try { {ok: true, value: f()} } catch (e) { {ok: false, error: e} }
    if outcome.ok {
      checkpoint(name, outcome.value)
      return outcome.value
    }
    last = outcome.error
  }
  throw "checkpoint_stage_retry failed after " + to_string(max_retries) + " attempts: " + to_string(last)
}
`;

export function installSourceStdModules(rt: Runtime): void {
  rt.stdModules.set("std/checkpoint", CHECKPOINT);
  rt.stdModules.set("std/agents", AGENTS + AGENTS_WORKFLOW);
  rt.stdModules.set("std/runtime", RUNTIME);
  rt.stdModules.set("std/testing", TESTING);
  installWaitStdModules(rt);
}
