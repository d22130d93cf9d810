/**
 * The workflow helpers of std/agents (spec/workflows.md §5.1), in Harn,
 * built on the workflow runtime: `workflow(config)`, `task_run`,
 * `workflow_continue`, compaction and reset, result records, workflow
 * sessions and `continue_as_new(prev, options)`. Appended to the module's
 * worker accessors (sources.ts).
 *
 * Written as a TypeScript literal: Harn's `\n` escapes are `\\n` here.
 */
export const AGENTS_WORKFLOW = `
import { context_render } from "std/context"

fn __wf_opt(options, key) {
  if options == nil {
    return nil
  }
  return options[key]
}

// A stage of the shorthand: a dict, or a prompt string; a std/context
// \`context\` is rendered under the prompt.
fn __wf_stage(config, stage) {
  if stage == nil {
    return nil
  }
  var s = if type_of(stage) == "string" { {prompt: stage} } else { stage }
  let ctx = s?.context
  if ctx != nil {
    let rendered = if type_of(ctx) == "string" { ctx } else { context_render(ctx) }
    if rendered != "" {
      s = s + {prompt: ((s?.prompt ?? "") + "\\n\\n" + rendered).trim()}
    }
  }
  if config?.persistent == true && s?.mode == nil {
    s = s + {mode: "agent"}
  }
  return s
}

pub fn workflow(config) {
  var shorthand = {}
  for key in ["name", "provider", "model", "model_tier", "tier", "done_sentinel", "temperature", "max_tokens", "metadata"] {
    if config[key] != nil {
      shorthand = shorthand + {[key]: config[key]}
    }
  }
  for key in ["act", "verify", "repair"] {
    let s = __wf_stage(config, config[key])
    if s != nil {
      shorthand = shorthand + {[key]: s}
    }
  }
  return workflow_graph(shorthand)
}

fn __wf_stage_of(run, node_id) {
  var found = nil
  for s in run.stages {
    if s.node_id == node_id {
      found = s
    }
  }
  return found
}

fn __wf_result(flow, r) {
  let act = __wf_stage_of(r.run, "act")
  let check = __wf_stage_of(r.run, "verify")
  let repair = __wf_stage_of(r.run, "repair")
  let last = repair ?? act ?? (if len(r.run.stages) > 0 { r.run.stages[len(r.run.stages) - 1] } else { nil })
  let passed = check == nil || check.verification?.ok == true
  let text = last?.visible_text ?? ""
  return {
    status: if passed { "completed" } else { "needs_attention" },
    text: text,
    visible_text: text,
    transcript: r.transcript ?? transcript(),
    verification: check?.verification,
    repair: repair,
    run: r.run,
    artifacts: r.artifacts,
    workflow: flow,
    workflow_id: flow.id,
    persisted_path: r.path,
  }
}

fn __wf_run(task, flow, overrides, session_id) {
  let g = workflow_graph(flow)
  var options = overrides ?? {}
  if session_id != nil {
    options = options + {session_id: session_id}
  }
  return __wf_result(g, workflow_execute(task, g, [], options))
}

pub fn task_run(task, flow, overrides = nil) {
  return __wf_run(task, flow, overrides, nil)
}

pub fn workflow_continue(prev, task, flow, overrides = nil) {
  let sid = agent_session_open(nil)
  for m in prev?.transcript?.messages ?? [] {
    agent_session_inject(sid, m)
  }
  return __wf_run(task, flow, overrides, sid)
}

fn __wf_transcript(prev) {
  if prev?._type == "transcript" {
    return prev
  }
  return prev?.transcript ?? transcript()
}

pub fn workflow_compact(prev, options = nil) {
  var opts = {keep_last: __wf_opt(options, "keep_last") ?? 2, strategy: __wf_opt(options, "strategy") ?? "truncate"}
  let compacted = transcript_compact(__wf_transcript(prev), opts)
  if compacted.summary == nil {
    return compacted + {summary: "[compacted " + to_string(len(__wf_transcript(prev).messages) - len(compacted.messages)) + " messages]"}
  }
  return compacted
}

pub fn workflow_session_compact(prev, options = nil) {
  return workflow_compact(prev, options)
}

pub fn workflow_reset(prev, carry_summary = false) {
  let summary = __wf_transcript(prev).summary
  let fresh = transcript_reset()
  if carry_summary && summary != nil {
    return fresh + {summary: summary}
  }
  return fresh
}

pub fn workflow_result_text(result) {
  return result?.visible_text ?? result?.text ?? ""
}

pub fn workflow_result_transcript(task, workflow_name, result, metadata = nil) {
  let t = result?.transcript
  if t?._type == "transcript" {
    return t
  }
  return transcript({task: task, workflow_name: workflow_name} + (metadata ?? {}))
}

pub fn workflow_result_run(task, workflow_name, result, artifacts = nil, options = nil) {
  let text = workflow_result_text(result)
  return run_record({
    workflow_id: __wf_opt(options, "workflow_id") ?? workflow_name,
    workflow_name: workflow_name,
    task: task,
    status: "completed",
    stages: [{
      node_id: workflow_name,
      kind: "stage",
      status: "completed",
      outcome: "success",
      branch: "success",
      visible_text: text,
      transcript: workflow_result_transcript(task, workflow_name, result),
    }],
    artifacts: artifacts ?? [],
    transcript: result?.transcript,
    metadata: __wf_opt(options, "metadata") ?? {},
  })
}

pub fn workflow_result_persist(task, workflow_name, result, artifacts = nil, options = nil) {
  let run = workflow_result_run(task, workflow_name, result, artifacts, options)
  return run_record_save(run, __wf_opt(options, "path")).run
}

fn __wf_count(t) {
  return len(t?.messages ?? [])
}

pub fn workflow_session(value) {
  if value?._type == "workflow_session" {
    return value
  }
  let t = __wf_transcript(value)
  let run = value?.run
  return {
    _type: "workflow_session",
    workflow_id: value?.workflow_id ?? run?.workflow_id,
    workflow: value?.workflow,
    status: value?.status ?? run?.status ?? "active",
    transcript_state: "active",
    message_count: __wf_count(t),
    summary: t.summary,
    transcript: t,
    run: run,
    persisted_path: value?.persisted_path ?? run?.persisted_path,
  }
}

pub fn workflow_session_new(metadata = nil) {
  return workflow_session({transcript: transcript(metadata), status: "active"})
}

pub fn workflow_session_fork(s) {
  let session = workflow_session(s)
  return session + {transcript_state: "forked", transcript: transcript_fork(session.transcript)}
}

pub fn workflow_session_archive(s) {
  return workflow_session(s) + {transcript_state: "archived"}
}

pub fn workflow_session_resume(s) {
  return workflow_session(s) + {transcript_state: "active"}
}

pub fn workflow_session_reset(s, carry_summary = false) {
  let session = workflow_session(s)
  let t = workflow_reset(session.transcript, carry_summary)
  return session + {transcript: t, message_count: 0, summary: t.summary, transcript_state: "active"}
}

pub fn workflow_session_persist(result, path) {
  let session = workflow_session(result)
  var run = session.run
  if run == nil {
    run = workflow_result_run("", session.workflow_id ?? "workflow", result)
  }
  let saved = run_record_save(run, path)
  return session + {run: saved.run, persisted_path: saved.path}
}

pub fn workflow_session_restore(value) {
  let run = if type_of(value) == "string" { run_record_load(value) } else { value?.run ?? value }
  return workflow_session({run: run, transcript: run.transcript, workflow_id: run.workflow_id, status: run.status, persisted_path: run.persisted_path})
}

pub fn continue_as_new(prev, options = nil) {
  let session = workflow_session(prev)
  let target = __wf_opt(options, "workflow_id") ?? session.workflow_id
  if target != nil {
    __workflow_continue_as_new(target)
  }
  let carry = __wf_opt(options, "carry_summary") ?? true
  let reset = workflow_session_reset(session, carry)
  return reset + {run: nil, persisted_path: nil}
}
`;
