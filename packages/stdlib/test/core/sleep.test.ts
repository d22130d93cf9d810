/**
 * `sleep(0)` takes no time but yields to other tasks (semantics.md §9.7),
 * so a polling loop lets them, and I/O they wait for, go on.
 */
import { describe, expect, it } from "vitest";
import { lines } from "../agent/harness";

describe("sleep(0)", () => {
  it("lets a task that is ready run before it returns; a float still does nothing", async () => {
    const out = await lines(`
pipeline main() {
  let a = atomic(0)
  let t = spawn { atomic_set(a, 1) }
  sleep(0.0)
  println(atomic_get(a))
  sleep(0)
  println(atomic_get(a))
  let b = atomic(0)
  let u = spawn { atomic_set(b, 1) }
  sleep(0ms)
  println(atomic_get(b))
  await(t)
  await(u)
}
`);
    expect(out).toEqual(["0", "1", "1"]);
  });

  it("a loop polling with sleep(0) sees a daemon's events handled", async () => {
    const out = await lines(`
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let root = path_join(temp_dir(), "sleep0-" + uuid())
  defer { delete_file(root) }
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: root})
  for i in 1 to 20 { daemon_trigger(d, {i: i}) }
  var polls = 0
  while daemon_snapshot(d).queued_event_count > 0 { sleep(0); polls = polls + 1 }
  println(daemon_snapshot(d).total_iterations)
  daemon_stop(d)
}
`);
    expect(out).toEqual(["21"]);
  });
});
