/**
 * The case table of the handle rules (`long-running-without-cleanup`,
 * `long-running-handle-discarded`, `cleanup-cancels-wrong-handle`),
 * written in the spirit of the CI user's 55 cases of issue 18: each case is
 * a small program, and a line ending in `//! RULE` is where a finding of
 * that rule is expected (`//! leak`, `//! discarded`, `//! wrong`; `//!
 * info` for an `info` leak). A case with no marker must give no finding.
 *
 * `known` marks a case the analysis still gets wrong, with why: it is left
 * out of the pass/fail table but counted in precision and recall.
 */

export interface HandleCase {
  name: string;
  code: string;
  /** What the analysis gets wrong here, if anything. */
  known?: string;
  /** Handle summaries of imported functions, for cross-module cases. */
  imports?: Record<string, { settles: boolean[]; returnsHandle: boolean }>;
}

const c = (name: string, code: string, extra: Partial<HandleCase> = {}): HandleCase => ({ name, code, ...extra });

export const HANDLE_CASES: HandleCase[] = [
  // --- the basics: a start and its cleanup ---------------------------------
  c("no cleanup at all", `pipeline main() {
  let h = walk_dir(".", {long_running: true}) //! leak
  log(h)
}`),
  c("defer cancel right after the start", `pipeline main() {
  let h = walk_dir(".", {long_running: true})
  defer { cancel_handle(h) }
  log(h)
}`),
  c("finally cancel", `pipeline main() {
  let h = glob("**/*.md", {long_running: true})
  try {
    log(h)
  } finally {
    cancel_handle(h)
  }
}`),
  c("catch-only cancel leaks on the normal path", `pipeline main() {
  let h = walk_dir(".", {long_running: true}) //! leak
  try {
    log(h)
  } catch (e) {
    cancel_handle(h)
  }
}`),
  c("cancel at the end of the body", `pipeline main() {
  let h = run_command(["sleep", "30"], {long_running: true})
  log(h)
  cancel_handle(h)
}`),
  c("handle_wait settles", `pipeline main() {
  let h = run_test(["make", "test"], {background: true})
  let r = handle_wait(h)
  log(r)
}`),
  c("hostlib_tools_cancel_handle settles", `pipeline main() {
  let h = run_command(["sleep", "5"], {long_running: true})
  defer { hostlib_tools_cancel_handle(h) }
  log(h)
}`),
  c("host cancel with handle_id", `pipeline main() {
  let h = walk_dir("docs", {long_running: true})
  defer { host_tool_call("cancel_handle", {handle_id: h.handle_id}) }
  log(h)
}`),
  c("tools.cancel_handle in a defer", `pipeline main() {
  let h = http_get("http://127.0.0.1:9/x", {long_running: true})
  defer { tools.cancel_handle(h) }
  log(h)
}`),
  c("cancel through an alias of the id", `pipeline main() {
  let h = walk_dir(".", {long_running: true})
  let id = h.handle_id
  defer { cancel_handle(id) }
  log(id)
}`),
  c("let-wrapped cancel in a defer", `pipeline main() {
  let h = run_command(["sleep", "30"], {long_running: true})
  defer {
    let outcome = host_tool_call("cancel_handle", {handle_id: h.handle_id})
  }
}`),

  // --- every callee ---------------------------------------------------------
  c("walk_dir", `pipeline main() {
  let h = walk_dir("src", {long_running: true}) //! leak
  log(h)
}`),
  c("glob", `pipeline main() {
  let h = glob("*.harn", {long_running: true}) //! leak
  log(h)
}`),
  c("http_get", `pipeline main() {
  let h = http_get("http://127.0.0.1:9/", {background: true}) //! leak
  log(h)
}`),
  c("http_request", `pipeline main() {
  let h = http_request("GET", "http://127.0.0.1:9/", {long_running: true}) //! leak
  log(h)
}`),
  c("http_download", `pipeline main() {
  let h = http_download("http://127.0.0.1:9/f", "f", {long_running: true}) //! leak
  log(h)
}`),
  c("run_build_command", `pipeline main() {
  let h = run_build_command(["make"], {background: true}) //! leak
  log(h)
}`),
  c("find_text", `pipeline main() {
  let h = find_text("src", "TODO", {long_running: true}) //! leak
  log(h)
}`),
  c("host_tool_call run_command", `pipeline main() {
  let job = host_tool_call("tools.run_test", {argv: ["make", "check"], background: true}) //! leak
  log(job.handle_id)
}`),
  c("tools.run_command", `pipeline main() {
  let job = tools.run_command({argv: ["sleep", "9"], background: true}) //! leak
  log(job)
}`),
  c("tools.run_command cancelled", `pipeline main() {
  let job = tools.run_command({argv: ["sleep", "9"], background: true})
  defer { tools.cancel_handle(job) }
  log(job)
}`),

  // --- options: literal, quoted, false, variables, spreads ------------------
  c("no flag: not long-running", `pipeline main() {
  let h = walk_dir("src")
  log(h)
}`),
  c("flag false", `pipeline main() {
  let h = walk_dir("src", {long_running: false})
  log(h)
}`),
  c("quoted key", `pipeline main() {
  let h = walk_dir("src", {"long_running": true}) //! leak
  log(h)
}`),
  c("flag in the third argument", `pipeline main() {
  let h = http_request("GET", "http://127.0.0.1:9/", {background: true}) //! leak
  log(h)
}`),
  c("options in a variable", `pipeline main() {
  let opts = {background: true}
  let h = walk_dir("src", opts) //! leak
  log(h)
}`),
  c("options in a var", `pipeline main() {
  var opts = {long_running: true, max_depth: 2}
  let h = walk_dir("src", opts) //! leak
  log(h)
}`),
  c("a flag variable", `pipeline main() {
  let bg = true
  let h = walk_dir("src", {long_running: bg}) //! leak
  log(h)
}`),
  c("a spread", `pipeline main() {
  let base = {long_running: true}
  let h = walk_dir("src", {...base, max_depth: 3}) //! leak
  log(h)
}`),
  c("a spread of a spread", `pipeline main() {
  let a = {background: true}
  let b = {...a}
  let h = glob("*", {...b}) //! leak
  log(h)
}`),
  c("options in a variable, cancelled", `pipeline main() {
  let opts = {background: true}
  let h = walk_dir("src", opts)
  defer { cancel_handle(h) }
  log(h)
}`),
  c("a flag from a parameter is not known: info", `fn scan(bg) {
  let h = walk_dir("src", {long_running: bg}) //! info
  log(h)
}`),
  c("a flag variable bound to false", `pipeline main() {
  let bg = false
  let h = walk_dir("src", {long_running: bg})
  log(h)
}`),
  c("not a long-running callee", `fn my_scan(a, b) { return a }
pipeline main() {
  let h = my_scan("src", {long_running: true})
  log(h)
}`),

  // --- paths ---------------------------------------------------------------
  c("early return before the defer leaks", `fn f(x) {
  let h = walk_dir(".", {long_running: true}) //! leak
  if x { return 1 }
  defer { cancel_handle(h) }
  return 2
}`),
  c("early throw before the try leaks", `fn f(x) {
  let h = walk_dir(".", {long_running: true}) //! leak
  if x { throw "no" }
  try {
    log(h)
  } finally {
    cancel_handle(h)
  }
}`),
  c("return before the start is fine", `fn f(x) {
  if x { return 1 }
  let h = walk_dir(".", {long_running: true})
  defer { cancel_handle(h) }
  return 2
}`),
  c("a defer in one branch covers only that branch", `fn f(x) {
  let h = walk_dir(".", {long_running: true}) //! leak
  if x {
    defer { cancel_handle(h) }
    log(1)
  }
  return 0
}`),
  c("cancel in both branches", `fn f(x) {
  let h = walk_dir(".", {long_running: true})
  if x {
    cancel_handle(h)
  } else {
    cancel_handle(h)
  }
}`),
  c("cancel in one branch only", `fn f(x) {
  let h = walk_dir(".", {long_running: true}) //! leak
  if x {
    cancel_handle(h)
  }
}`),
  c("defer registered before the start covers it", `fn f() {
  var h = nil
  defer { if h != nil { cancel_handle(h) } }
  h = walk_dir(".", {long_running: true})
  log(h)
}`),
  c("a defer in an if on the same path as the start", `fn f(x) {
  if x {
    let h = walk_dir(".", {long_running: true})
    defer { cancel_handle(h) }
    log(h)
  }
}`),
  c("start inside an if without cleanup", `fn f(x) {
  if x {
    let h = walk_dir(".", {long_running: true}) //! leak
    log(h)
  }
}`),
  c("break out of the loop before the cancel", `fn f(xs) {
  for x in xs {
    let h = walk_dir(x, {long_running: true}) //! leak
    if x == "" { break }
    cancel_handle(h)
  }
}`),
  c("a loop starting and cancelling each time", `fn f(xs) {
  for x in xs {
    let h = walk_dir(x, {long_running: true})
    log(h)
    cancel_handle(h)
  }
}`),
  c("a loop starting without cancelling", `fn f(xs) {
  for x in xs {
    let h = walk_dir(x, {long_running: true}) //! leak
    log(h)
  }
}`),
  c("handles collected and all cancelled by a loop", `fn f(xs) {
  var jobs = []
  for x in xs {
    jobs = jobs + [walk_dir(x, {long_running: true})]
  }
  for j in jobs { cancel_handle(j) }
}`),
  c("a failing call in a try without finally", `fn f() {
  let h = walk_dir(".", {long_running: true}) //! leak
  try {
    risky()
    cancel_handle(h)
  } catch (e) {
    log(e)
  }
}`),
  c("a failing call in a try with finally", `fn f() {
  let h = walk_dir(".", {long_running: true})
  try {
    risky()
  } catch (e) {
    log(e)
  } finally {
    cancel_handle(h)
  }
}`),

  // --- user functions ------------------------------------------------------
  c("passed to a function that cancels it", `fn stop(job) {
  cancel_handle(job)
}
pipeline main() {
  let h = walk_dir(".", {long_running: true})
  stop(h)
}`),
  c("passed to a function that only logs it", `fn show(job) {
  log(job)
}
pipeline main() {
  let h = walk_dir(".", {long_running: true}) //! leak
  show(h)
}`),
  c("defer { stop(h) } where stop cancels", `fn stop(job) {
  cancel_handle(job.handle_id)
}
pipeline main() {
  let h = walk_dir(".", {long_running: true})
  defer { stop(h) }
  log(h)
}`),
  c("defer { show(h) } where show only logs", `fn show(job) {
  log(job)
}
pipeline main() {
  let h = walk_dir(".", {long_running: true}) //! leak
  defer { show(h) }
  log(h)
}`),
  c("handed on through two functions", `fn stop(job) {
  cancel_handle(job)
}
fn finish(job) {
  log("finishing")
  stop(job)
}
pipeline main() {
  let h = walk_dir(".", {long_running: true})
  finish(h)
}`),
  c("a function that settles its second parameter only", `fn stop(label, job) {
  log(label)
  cancel_handle(job)
}
pipeline main() {
  let h = walk_dir(".", {long_running: true}) //! leak
  stop(h, "x")
}`),
  c("a function that waits for it", `fn await_it(job) {
  return handle_wait(job)
}
pipeline main() {
  let h = walk_dir(".", {long_running: true})
  log(await_it(h))
}`),
  c("an imported function that cancels", `import { stop } from "./jobs"
pipeline main() {
  let h = walk_dir(".", {long_running: true})
  stop(h)
}`, { imports: { stop: { settles: [true], returnsHandle: false } } }),
  c("an imported function that does not cancel", `import { show } from "./jobs"
pipeline main() {
  let h = walk_dir(".", {long_running: true}) //! leak
  show(h)
}`, { imports: { show: { settles: [false], returnsHandle: false } } }),
  c("a function the linter cannot see is trusted", `pipeline main(stop) {
  let h = walk_dir(".", {long_running: true})
  stop(h)
}`),
  c("a recursive function that cancels", `fn stop_all(jobs) {
  if len(jobs) == 0 { return nil }
  cancel_handle(jobs[0])
  stop_all(jobs[1:])
}
pipeline main() {
  let h = walk_dir(".", {long_running: true})
  stop_all([h])
}`),

  // --- returns: the obligation moves to the caller --------------------------
  c("returned to the caller is settled here", `fn start() {
  let h = walk_dir(".", {long_running: true})
  return h
}`),
  c("a caller that keeps the returned handle without cleanup", `fn start() {
  return walk_dir(".", {long_running: true})
}
pipeline main() {
  let h = start() //! leak
  log(h)
}`),
  c("a caller that cancels the returned handle", `fn start() {
  let h = walk_dir(".", {long_running: true})
  return h
}
pipeline main() {
  let h = start()
  defer { cancel_handle(h) }
  log(h)
}`),
  c("a caller that discards the returned handle", `fn start() {
  return walk_dir(".", {long_running: true})
}
pipeline main() {
  start() //! discarded
}`),
  c("a factory of a factory", `fn start() {
  return walk_dir(".", {long_running: true})
}
fn start_again() {
  return start()
}
pipeline main() {
  let h = start_again() //! leak
  log(h)
}`),
  c("an imported factory", `import { start } from "./jobs"
pipeline main() {
  let h = start() //! leak
  log(h)
}`, { imports: { start: { settles: [], returnsHandle: true } } }),
  c("a function returning a handle it was given is no factory", `fn pass(job) {
  return job
}
pipeline main() {
  let h = walk_dir(".", {long_running: true})
  defer { cancel_handle(h) }
  let same = pass(h)
  log(same)
}`),
  c("a factory whose caller returns it on", `fn start() {
  return walk_dir(".", {long_running: true})
}
fn wrap() {
  let h = start()
  log("started")
  return h
}`),

  // --- variables -----------------------------------------------------------
  c("a reassigned var keeps the first handle's obligation", `pipeline main() {
  var h = walk_dir("a", {long_running: true}) //! leak
  h = walk_dir("b", {long_running: true})
  defer { cancel_handle(h) }
  log(h)
}`),
  c("a var cancelled before it is reassigned", `pipeline main() {
  var h = walk_dir("a", {long_running: true})
  cancel_handle(h)
  h = walk_dir("b", {long_running: true})
  cancel_handle(h)
}`),
  c("a var overwritten with nil", `pipeline main() {
  var h = walk_dir("a", {long_running: true}) //! leak
  h = nil
  log(h)
}`),
  c("stored into an outer variable", `var current = nil
fn start() {
  let h = walk_dir(".", {long_running: true})
  current = h
}`),
  c("captured by a closure that only logs it", `pipeline main() {
  let h = walk_dir(".", {long_running: true}) //! leak
  let show = { -> log(h) }
  show()
}`),
  c("captured by a closure that cancels it", `pipeline main() {
  let h = walk_dir(".", {long_running: true})
  let stop = { -> cancel_handle(h) }
  defer { stop() }
}`),
  c("logging the handle settles nothing", `pipeline main() {
  let h = walk_dir(".", {long_running: true}) //! leak
  log(h)
  println(h.handle_id)
}`),
  c("put in a local dict, cancelled through it", `pipeline main() {
  let h = walk_dir(".", {long_running: true})
  let state = {job: h}
  defer { cancel_handle(state.job) }
  log(state)
}`),
  c("put in a local dict and forgotten", `pipeline main() {
  let h = walk_dir(".", {long_running: true}) //! leak
  let state = {job: h}
  log(state)
}`),
  c("returned inside a dict", `fn start() {
  let h = walk_dir(".", {long_running: true})
  return {job: h, started: true}
}`),

  // --- discarded and wrong handles ------------------------------------------
  c("a bare statement", `pipeline main() {
  walk_dir(".", {long_running: true}) //! discarded
}`),
  c("passed straight to log", `pipeline main() {
  log(walk_dir(".", {long_running: true})) //! discarded
}`),
  c("passed straight to cancel_handle", `pipeline main() {
  cancel_handle(walk_dir(".", {long_running: true}))
}`),
  c("the cleanup cancels another handle", `pipeline main() {
  let a = walk_dir("a", {long_running: true})
  let b = walk_dir("b", {long_running: true}) //! wrong
  defer { cancel_handle(a) }
  log(b)
}`),
  c("two handles, both cancelled", `pipeline main() {
  let a = walk_dir("a", {long_running: true})
  let b = walk_dir("b", {long_running: true})
  defer {
    cancel_handle(a)
    cancel_handle(b)
  }
}`),
  c("cancelling a stale id", `pipeline main() {
  let h = walk_dir(".", {long_running: true}) //! wrong
  defer { host_tool_call("cancel_handle", {handle_id: "stale"}) }
  log(h)
}`),

  // --- owners --------------------------------------------------------------
  c("a closure is its own owner", `pipeline main() {
  defer { host_tool_call("cancel_handle", {handle_id: "stale"}) }
  let kick = { -> walk_dir(".", {long_running: true}) }
  kick()
}`),
  c("a closure that starts and drops a handle", `pipeline main() {
  let kick = { ->
    let h = walk_dir(".", {long_running: true}) //! leak
    log(h)
    nil
  }
  kick()
}`),
  c("a nested fn is its own owner", `pipeline main() {
  let h = walk_dir(".", {long_running: true})
  defer { cancel_handle(h) }
  fn inner() {
    let g = glob("*", {long_running: true}) //! leak
    log(g)
  }
  inner()
}`),
  c("top-level script code", `let h = walk_dir(".", {long_running: true}) //! leak
log(h)`),
  c("top-level script code with a defer", `let h = walk_dir(".", {long_running: true})
defer { cancel_handle(h) }
log(h)`),
  c("a spawn body with its own defer", `pipeline main() {
  let t = spawn {
    let h = walk_dir(".", {long_running: true})
    defer { cancel_handle(h) }
    log(h)
  }
  await(t)
}`),
  c("a tool body", `tool scan(root: string) -> string {
  let h = walk_dir(root, {long_running: true}) //! leak
  return "started"
}`),
  c("agent_loop adopts outstanding handles", `pipeline main() {
  let h = walk_dir(".", {long_running: true})
  let r = agent_loop("audit", "You audit.", {})
  log(r)
}`),
  c("a feedback drain settles", `pipeline main() {
  let h = walk_dir(".", {long_running: true})
  let done = pending_feedback_drain()
  log(done)
}`),
  c("a retry body that cancels", `pipeline main() {
  retry 3 {
    let h = walk_dir(".", {long_running: true})
    defer { cancel_handle(h) }
    log(h)
  }
}`),
  c("a while loop with a cancel after it", `fn f(n) {
  let h = walk_dir(".", {long_running: true})
  var i = 0
  while i < n {
    i = i + 1
  }
  cancel_handle(h)
}`),
  c("a match arm that forgets to cancel", `fn f(x) {
  let h = walk_dir(".", {long_running: true}) //! leak
  match x {
    1 -> { cancel_handle(h) }
    _ -> { log(x) }
  }
}`),
  c("a match whose every arm cancels", `fn f(x) {
  let h = walk_dir(".", {long_running: true})
  match x {
    1 -> { cancel_handle(h) }
    _ -> { cancel_handle(h) }
  }
}`),
  c("a guard whose else returns before the cancel", `fn f(x) {
  let h = walk_dir(".", {long_running: true}) //! leak
  guard x else { return nil }
  cancel_handle(h)
}`),

  // --- shapes of values ----------------------------------------------------
  c("handles in a list literal, cancelled in a loop", `pipeline main() {
  let jobs = [walk_dir("a", {long_running: true}), walk_dir("b", {long_running: true})]
  defer { for j in jobs { cancel_handle(j) } }
  log(jobs)
}`),
  c("a handle in a dict literal, cancelled through it", `pipeline main() {
  let state = {job: walk_dir(".", {long_running: true})}
  defer { cancel_handle(state.job) }
  log(state)
}`),
  c("a handle in a dict literal, forgotten", `pipeline main() {
  let state = {job: walk_dir(".", {long_running: true})} //! leak
  log(state)
}`),
  c("a guarded cancel in the defer", `pipeline main() {
  let h = walk_dir(".", {long_running: true})
  defer {
    if h != nil { cancel_handle(h) }
  }
  log(h)
}`),
  c("a conditional start", `fn f(x) {
  let h = if x { walk_dir(".", {long_running: true}) } else { nil } //! leak
  log(h)
}`),
  c("a conditional start, cancelled", `fn f(x) {
  let h = x ? walk_dir(".", {long_running: true}) : nil
  defer { if h != nil { cancel_handle(h) } }
  log(h)
}`),
  c("a cleanup closure called from the defer", `pipeline main() {
  let h = walk_dir(".", {long_running: true})
  let cleanup = { -> cancel_handle(h) }
  defer { cleanup() }
  log(h)
}`),
  c("waited for in the return", `fn f() {
  let h = run_command(["make"], {long_running: true})
  return handle_wait(h)
}`),
  c("a nested try whose inner finally cancels", `fn f() {
  let h = walk_dir(".", {long_running: true})
  try {
    try {
      risky()
    } finally {
      cancel_handle(h)
    }
  } catch (e) {
    log(e)
  }
}`),
  c("cancelled from a spawned task", `pipeline main() {
  let h = walk_dir(".", {long_running: true})
  let t = spawn { cancel_handle(h) }
  await(t)
}`),
  c("a start inside a parallel body without cleanup", `pipeline main() {
  let out = parallel each ["a", "b"] { d ->
    let h = walk_dir(d, {long_running: true}) //! leak
    len(d)
  }
  log(out)
}`),
  c("a var reused across iterations, the previous one cancelled first", `fn f(xs) {
  var h = nil
  for x in xs {
    if h != nil { cancel_handle(h) }
    h = walk_dir(x, {long_running: true})
  }
  if h != nil { cancel_handle(h) }
}`),
  c("destructured id, cancelled", `pipeline main() {
  let {handle_id} = walk_dir(".", {long_running: true})
  defer { cancel_handle(handle_id) }
  log(handle_id)
}`),
  c("passed to a method of the script's own impl that cancels it", `struct Jobs { name: string }
impl Jobs {
  fn stop(self, job) { cancel_handle(job) }
}
pipeline main() {
  let jobs = Jobs({name: "x"})
  let h = walk_dir(".", {long_running: true})
  jobs.stop(h)
}`, { known: "methods are not summarised: a handle passed to any method call is taken to stay with the caller" }),
];
