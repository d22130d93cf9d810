import { describe, expect, it } from "vitest";
import { display, HarnError, HDuration } from "@harn/vm";
import { raised, rig, settle } from "./harness";

describe("shared cells and maps", () => {
  it("cells: get/set return values, cas compares with ==", async () => {
    const r = rig();
    const c = r.call("shared_cell", 1);
    expect(display(c)).toBe("<shared_cell>");
    expect(r.call("type_of", c)).toBe("shared_cell");
    expect(r.call("shared_set", c, 2)).toBe(1);
    expect(r.call("shared_get", c)).toBe(2);
    expect(r.call("shared_cas", c, 1, 5)).toBe(false);
    expect(r.call("shared_cas", c, 2, 5)).toBe(true);
    expect(r.call("shared_snapshot", c)).toBe(5);
    expect((await raised(() => r.call("shared_get", 3))).caughtValue()).toBe("shared_get: first argument must be a shared cell, got int");
  });
  it("maps: keys are display strings, entries sorted", () => {
    const r = rig();
    const m = r.call("shared_map", r.call("json_parse", '{"b": 1}'));
    expect(r.call("shared_map_set", m, "a", 0)).toBe(null);
    expect(r.call("shared_map_get", m, "zz", "dflt")).toBe("dflt");
    expect(r.call("shared_map_cas", m, "new", null, 7)).toBe(true);
    expect(r.call("shared_map_cas", m, "new", null, 8)).toBe(false);
    expect(r.call("shared_map_delete", m, "b")).toBe(true);
    expect(display(r.call("shared_map_snapshot", m))).toBe("{a: 0, new: 7}");
    expect(display(r.call("shared_map_entries", m))).toBe("[{key: a, value: 0}, {key: new, value: 7}]");
    expect(display(r.call("shared_metrics"))).toBe("{cas_failures: 1, cells: 0, maps: 1, reads: 1, writes: 3}");
  });
});

describe("mailboxes", () => {
  it("queue messages by name, bounded, closable", async () => {
    const r = rig();
    const mb = r.call("mailbox_open", "inbox", 2);
    expect(display(mb)).toBe("<mailbox:inbox>");
    expect(r.call("mailbox_send", "inbox", "a")).toBe(true);
    expect(r.call("mailbox_send", mb, "b")).toBe(true);
    expect(r.call("mailbox_send", mb, "c")).toBe(false);
    expect(r.call("mailbox_try_receive", mb)).toBe("a");
    expect(await settle(r.callP("mailbox_receive", mb))).toBe("b");
    expect(r.call("mailbox_try_receive", mb)).toBe(null);
    expect(display(r.call("mailbox_metrics", mb))).toBe("{capacity: 2, closed: false, name: inbox, queued: 0, received: 2, sent: 2}");
    expect(display(r.call("mailbox_lookup", "inbox"))).toBe("<mailbox:inbox>");
    expect(r.call("mailbox_lookup", "nope")).toBe(null);
    expect((await raised(() => r.call("mailbox_send", "nope", 1))).caughtValue()).toBe("mailbox_send: no mailbox named 'nope'");
  });
  it("receive waits for a later send, times out with nil, ends on close and on cancellation", async () => {
    const r = rig();
    const mb = r.call("mailbox_open", "w");
    const waiting = r.callP("mailbox_receive", mb);
    setTimeout(() => r.call("mailbox_send", mb, 42), 5);
    expect(await settle(waiting)).toBe(42);
    expect(await settle(r.callP("mailbox_receive", mb, new HDuration(20)))).toBe(null);
    const closing = r.callP("mailbox_receive", mb);
    r.call("mailbox_close", mb);
    expect(await settle(closing)).toBe(null);
    const mb2 = r.call("mailbox_open", "w");
    const cancelled = r.callP("mailbox_receive", mb2, 60_000);
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
    expect(display(r.call("task_current"))).toBe("{id: task_root, parent_id: nil}");
    expect(r.call("runtime_context_clear", "k")).toBe(true);
    expect(r.call("runtime_context_get", "k", "gone")).toBe("gone");
  });
});
