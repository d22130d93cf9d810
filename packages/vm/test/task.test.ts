/** Task cancellation (spec/semantics.md §9). */
import { describe, expect, it } from "vitest";
import { HarnError, Task } from "../src/index";

/** A chain root → … → leaf, each task spawned by the previous one and
 * linked to its signal as `spawn` does (concurrency.ts linkToSignal). */
function chain(n: number): Task[] {
  const tasks = [new Task("root", null, () => {})];
  for (let i = 1; i < n; i++) {
    const parent = tasks[i - 1]!;
    const child = new Task(`${parent.id}:spawn`, parent, null);
    parent.signal.addEventListener("abort", () => child.cancel(parent.signal.reason), { once: true });
    tasks.push(child);
  }
  return tasks;
}

describe("Task.cancel", () => {
  it("aborts a chain of spawned tasks deeper than the JS stack", () => {
    // Found by bench/fuzz: Ctrl-C on `fn f(n) { return await(spawn { f(n) }) }`
    // crashed harn with a RangeError stack trace from the recursive cancel.
    const tasks = chain(200_000);
    const reason = HarnError.thrown("stop");
    expect(() => tasks[0]!.cancel(reason)).not.toThrow();
    expect(tasks.every((t) => t.signal.aborted && t.signal.reason === reason)).toBe(true);
  });

  it("aborts parents before children, siblings in spawn order", () => {
    const root = new Task("root", null, () => {});
    const a = new Task("a", root, null);
    const a1 = new Task("a1", a, null);
    const b = new Task("b", root, null);
    const order: string[] = [];
    for (const t of [root, a, a1, b]) t.signal.addEventListener("abort", () => order.push(t.id));
    root.cancel();
    expect(order).toEqual(["root", "a", "a1", "b"]);
  });

  it("cancels only the subtree it is called on; a task created under an aborted parent starts aborted", () => {
    const root = new Task("root", null, () => {});
    const a = new Task("a", root, null);
    const b = new Task("b", root, null);
    a.cancel();
    expect([root, a, b].map((t) => t.signal.aborted)).toEqual([false, true, false]);
    const late = new Task("late", a, null);
    expect(late.signal.aborted).toBe(true);
    root.cancel();
    expect(b.signal.aborted).toBe(true);
  });
});
