import { describe, expect, it } from "vitest";
import { display, HarnError, HDuration } from "@harn/vm";
import { raised, rig, settle } from "./harness";

describe("shared cells and maps", () => {
  it("cells: scoped handles, previous values, CAS by value or snapshot", async () => {
    const r = rig();
    const c = r.call("shared_cell", r.call("json_parse", '{"key": "n", "initial": 1}'));
    expect(display(c)).toBe("{_type: shared_cell, key: n, scope: task_group:task_root}");
    expect(r.call("shared_set", c, 2)).toBe(1);
    expect(r.call("shared_get", "n")).toBe(2);
    expect(r.call("shared_cas", c, 1, 5)).toBe(false);
    const snap = r.call("shared_snapshot", c);
    expect(display(snap)).toBe("{_type: shared_snapshot, value: 2, version: 1}");
    expect(r.call("shared_cas", c, snap, 5)).toBe(true);
    expect(r.call("shared_cas", c, snap, 6)).toBe(false);
    expect(display(r.call("shared_metrics", c))).toBe("{cas_failure_count: 2, cas_success_count: 1, read_count: 2, stale_read_count: 1, version: 2, write_count: 2}");
    expect((await raised(() => r.call("shared_get", ""))).description()).toBe("Runtime error: shared_get: name must not be empty");
  });
  it("maps: keys are display strings; nil CAS deletes", () => {
    const r = rig();
    const m = r.call("shared_map", "m", r.call("json_parse", '{"b": 1}'));
    expect(r.call("shared_map_set", m, "a", 0)).toBe(null);
    expect(r.call("shared_map_get", m, "zz", "dflt")).toBe("dflt");
    expect(r.call("shared_map_cas", m, "new", null, 7)).toBe(true);
    expect(r.call("shared_map_cas", m, "new", 7, null)).toBe(true);
    expect(r.call("shared_map_delete", m, "b")).toBe(1);
    expect(r.call("shared_map_delete", m, "b")).toBe(null);
    expect(display(r.call("shared_map_entries", m))).toBe("{a: 0}");
  });
});

describe("mailboxes", () => {
  it("bounded FIFO queues by scope and name", async () => {
    const r = rig();
    const mb = r.call("mailbox_open", "inbox", 2);
    expect(display(mb)).toBe("{_type: mailbox, key: inbox, scope: task_group:task_root}");
    expect(r.call("mailbox_send", "inbox", "a")).toBe(true);
    expect(r.call("mailbox_send", mb, "b")).toBe(true);
    const full = r.callP("mailbox_send", mb, "c");
    expect(r.call("mailbox_try_receive", mb)).toBe("a");
    expect(await settle(full)).toBe(true);
    expect(await settle(r.callP("mailbox_receive", mb))).toBe("b");
    expect(r.call("mailbox_try_receive", mb)).toBe("c");
    expect(display(r.call("mailbox_metrics", mb))).toBe("{capacity: 2, closed: false, depth: 0, failed_send_count: 0, received_count: 3, sent_count: 3}");
    expect(r.call("mailbox_lookup", "nope")).toBe(null);
    expect(r.call("mailbox_send", "nope", 1)).toBe(false);
  });
  it("receive waits for a later send, ends on close and on cancellation", async () => {
    const r = rig();
    const mb = r.call("mailbox_open", "w");
    const waiting = r.callP("mailbox_receive", mb);
    setTimeout(() => r.call("mailbox_send", mb, 42), 5);
    expect(await settle(waiting)).toBe(42);
    expect(await settle(r.callP("mailbox_receive", mb, new HDuration(20)))).toBe(null);
    const closing = r.callP("mailbox_receive", mb);
    expect(r.call("mailbox_close", mb)).toBe(true);
    expect(await settle(closing)).toBe(null);
    const mb2 = r.call("mailbox_open", "w2");
    const cancelled = r.callP("mailbox_receive", mb2);
    r.abort.abort(HarnError.thrown("kind:cancelled:VM cancelled by host"));
    expect((await raised(() => cancelled)).caughtValue()).toBe("kind:cancelled:VM cancelled by host");
  });
});

describe("task context outside any task", () => {
  it("a value set is read back (the runtime owns it)", () => {
    const r = rig();
    expect(r.call("runtime_context_set", "k", 1)).toBe(null);
    expect(r.call("runtime_context_get", "k")).toBe(1);
    expect(display(r.call("runtime_context_values"))).toBe("{k: 1}");
    expect(display(r.call("task_current"))).toContain("task_id: task_root,");
    expect(r.call("runtime_context_clear", "k")).toBe(1);
    expect(r.call("runtime_context_get", "k", "gone")).toBe("gone");
  });
});
