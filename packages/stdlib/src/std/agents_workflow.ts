/**
 * The workflow helpers of std/agents (spec/workflows.md §5.1), in Harn,
 * built on the workflow runtime: `workflow(config)`, `task_run`,
 * `workflow_continue`, compaction and reset, result records, workflow
 * sessions and `continue_as_new(prev, options)`. Appended to the module's
 * worker accessors (sources.ts).
 *
 * Written as a TypeScript literal: Harn's `\\n` escapes are `\\n` here.
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

fn __wf_run(task, flow, options) {
  let g = workflow_graph(flow)
  return __wf_result(g, workflow_execute(task, g, [], options))
}

pub fn task_run(task, flow, overrides = nil) {
  return __wf_run(task, flow, overrides ?? {})
}

pub fn workflow_continue(prev, task, flow, overrides = nil) {
  return __wf_run(task, flow, (overrides ?? {}) + {transcript: prev?.transcript ?? transcript()})
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

// Action graphs (§5.1): a plan's steps as phased actions, batched by phase
// and tool class, rendered, and run as a linear workflow.

fn __ag_phase(kind) {
  let k = lowercase(kind ?? "")
  if k == "research" || k == "verify" {
    return k
  }
  return "execute"
}

fn __ag_matches(name, words) {
  let n = lowercase(name)
  for w in words {
    if contains(n, w) {
      return true
    }
  }
  return false
}

let __AG_WRITE = ["edit", "write", "patch", "apply", "create", "delete", "move", "rename", "replace"]
let __AG_RUN = ["run", "exec", "shell", "command", "test", "build"]

// write when any tool edits, run when any runs, else read (a step without
// tools is classified by its kind the same way).
fn __ag_tool_class(tools, kind) {
  let names = if len(tools) > 0 { tools } else { [kind ?? ""] }
  for t in names {
    if __ag_matches(to_string(t), __AG_WRITE) {
      return "write"
    }
  }
  for t in names {
    if __ag_matches(to_string(t), __AG_RUN) {
      return "run"
    }
  }
  return "read"
}

pub fn action_graph(raw, options = nil) {
  let steps = if type_of(raw) == "list" { raw } else { raw?.steps ?? raw?.actions ?? [] }
  var alias_of = {}
  var drafts = []
  var i = 0
  for step in steps {
    i = i + 1
    let s = if type_of(step) == "string" { {title: step} } else { step }
    let id = "action-" + to_string(i)
    let source = s?.id ?? s?.name ?? s?.title ?? id
    var aliases = [id]
    for a in [s?.id, s?.name, s?.title] {
      if a != nil && !aliases.contains(to_string(a)) {
        aliases = aliases + [to_string(a)]
      }
    }
    for a in aliases {
      alias_of = alias_of + {[a]: id}
    }
    let tools = s?.tools ?? []
    drafts = drafts + [{
      id: id,
      source_id: to_string(source),
      title: s?.title ?? s?.name ?? to_string(source),
      kind: s?.kind ?? "execute",
      phase: __ag_phase(s?.kind),
      tools: tools,
      tool_class: __ag_tool_class(tools, s?.kind),
      explicit: s?.depends_on ?? s?.dependsOn,
      aliases: aliases,
    }]
  }
  var actions = []
  var last_of_phase = {}
  var previous_phase_last = nil
  var current_phase = nil
  for d in drafts {
    if d.phase != current_phase {
      previous_phase_last = if current_phase == nil { nil } else { last_of_phase[current_phase] }
      current_phase = d.phase
    }
    var deps = []
    if d.explicit != nil {
      for dep in d.explicit {
        let canonical = alias_of[to_string(dep)] ?? to_string(dep)
        if !deps.contains(canonical) {
          deps = deps + [canonical]
        }
      }
    } else if d.phase == "execute" && previous_phase_last != nil {
      deps = [previous_phase_last]
    }
    actions = actions + [{id: d.id, source_id: d.source_id, title: d.title, kind: d.kind, phase: d.phase, tools: d.tools, tool_class: d.tool_class, depends_on: deps, aliases: d.aliases}]
    last_of_phase = last_of_phase + {[d.phase]: d.id}
  }
  return {
    _type: "action_graph",
    task: __wf_opt(options, "task") ?? raw?.task,
    summary: __wf_opt(options, "summary") ?? raw?.summary,
    actions: actions,
    action_count: len(actions),
  }
}

pub fn action_graph_batches(graph, completed = nil) {
  let done = completed ?? []
  var batches = []
  for phase in ["research", "execute", "verify"] {
    var current = nil
    for a in graph.actions {
      if a.phase != phase || done.contains(a.id) {
        continue
      }
      if current != nil && current.tool_class == a.tool_class {
        current = current + {actions: current.actions + [a], count: current.count + 1}
      } else {
        if current != nil {
          batches = batches + [current]
        }
        current = {index: 0, phase: phase, tool_class: a.tool_class, count: 1, actions: [a]}
      }
    }
    if current != nil {
      batches = batches + [current]
    }
  }
  var out = []
  var i = 0
  for b in batches {
    out = out + [b + {index: i}]
    i = i + 1
  }
  return out
}

fn __ag_line(a) {
  var line = "- " + a.id + ": " + a.title + " [" + a.tool_class + "]"
  if len(a.depends_on) > 0 {
    line = line + " (depends on: " + a.depends_on.join(", ") + ")"
  }
  return line
}

pub fn action_graph_render(graph) {
  var parts = []
  for phase in ["research", "execute", "verify"] {
    let lines = graph.actions.filter({ a -> a.phase == phase }).map({ a -> __ag_line(a) })
    if len(lines) > 0 {
      parts = parts + ["## " + uppercase(phase) + "\\n" + lines.join("\\n")]
    }
  }
  return parts.join("\\n\\n")
}

fn __ag_template(t) {
  if t == nil {
    return {}
  }
  if type_of(t) == "string" {
    return {prompt: t}
  }
  return t
}

pub fn action_graph_flow(graph, config = nil) {
  var nodes = {}
  var order = []
  for b in action_graph_batches(graph) {
    let id = "batch_" + to_string(b.index + 1) + "_" + b.phase
    let tpl = __ag_template(__wf_opt(config, b.phase) ?? __wf_opt(config, "execute"))
    let lines = b.actions.map({ a -> __ag_line(a) }).join("\\n")
    let head = tpl?.prompt ?? ("Carry out the " + b.phase + " actions.")
    nodes = nodes + {[id]: tpl + {kind: "stage", prompt: head + "\\n\\n" + lines, metadata: {phase: b.phase, tool_class: b.tool_class, action_ids: b.actions.map({ a -> a.id })}}}
    order = order + [id]
  }
  let v = __wf_opt(config, "verify")
  if v != nil {
    nodes = nodes + {verify: {kind: "verify", verify: {command: v?.command, assert_text: v?.assert_text, expect_status: v?.expect_status}}}
    order = order + ["verify"]
  }
  let ev = __wf_opt(config, "evaluate")
  if ev != nil {
    nodes = nodes + {evaluate: __ag_template(ev) + {kind: "stage"}}
    order = order + ["evaluate"]
  }
  var edges = []
  var i = 1
  while i < len(order) {
    edges = edges + [{from: order[i - 1], to: order[i]}]
    i = i + 1
  }
  return workflow_graph({name: __wf_opt(config, "name") ?? "action_graph", entry: if len(order) > 0 { order[0] } else { nil }, nodes: nodes, edges: edges, metadata: {task: graph.task}})
}

pub fn action_graph_run(task, graph, config = nil, overrides = nil) {
  let r = workflow_execute(task, action_graph_flow(graph, config), [], overrides ?? {})
  return r + {batches: action_graph_batches(graph)}
}
`;
