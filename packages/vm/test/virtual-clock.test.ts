/**
 * The virtual clock of `harn test --deterministic` (vm virtual-clock.ts):
 * jumps when idle, holds still while real work is open, FIFO or seeded
 * orders for ties, cancellation, and nothing left running after dispose.
 */
import { describe, expect, it } from "vitest";
import { VIRTUAL_EPOCH_MS, VirtualClock } from "../src/virtual-clock";

describe("VirtualClock", () => {
  it("jumps to each timer when idle, in due order, and reads the virtual time", async () => {
    const clock = new VirtualClock();
    const seen: string[] = [];
    const at = (name: string) => () => seen.push(`${name}@${clock.monotonic()}`);
    clock.timer(3_600_000, at("hour"));
    clock.timer(50, at("fifty"));
    await clock.sleep(60_000);
    expect(seen).toEqual(["fifty@50"]);
    expect(clock.now()).toBe(VIRTUAL_EPOCH_MS + 60_000);
    await clock.sleep(3_600_000);
    expect(seen).toEqual(["fifty@50", "hour@3600000"]);
    expect(clock.elapsed()).toBe(3_660_000);
    clock.dispose();
  });

  it("a cancelled timer never fires, an aborted sleep rejects with the reason", async () => {
    const clock = new VirtualClock();
    let fired = false;
    const cancel = clock.timer(10, () => (fired = true));
    cancel();
    const ac = new AbortController();
    const sleeping = clock.sleep(1000, ac.signal);
    ac.abort(new Error("stop"));
    await expect(sleeping).rejects.toThrow("stop");
    await clock.sleep(20);
    expect(fired).toBe(false);
    clock.dispose();
  });

  it("orders ties FIFO without a seed, and by the seed with one", async () => {
    const order = async (seed: number | null) => {
      const clock = new VirtualClock({ seed });
      const out: number[] = [];
      await Promise.all([0, 1, 2, 3, 4, 5].map((i) => clock.sleep(100).then(() => out.push(i))));
      clock.dispose();
      return out.join("");
    };
    expect(await order(null)).toBe("012345");
    const seeded = await Promise.all([1, 2, 3, 4, 5, 6].map(order));
    expect(await Promise.all([1, 2, 3, 4, 5, 6].map(order))).toEqual(seeded);
    expect(new Set(seeded).size).toBeGreaterThan(1);
  });

  it("starts tasks waiting in turn() one at a time, in the seed's order", async () => {
    const clock = new VirtualClock({ seed: 42 });
    const out: number[] = [];
    await Promise.all([0, 1, 2, 3].map((i) => clock.turn().then(() => out.push(i))));
    expect(out.slice().sort()).toEqual([0, 1, 2, 3]);
    clock.dispose();
  });

  it("does not jump while real work is open", async () => {
    const clock = new VirtualClock();
    let fired = false;
    const end = clock.beginReal();
    clock.timer(3_600_000, () => (fired = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(fired).toBe(false);
    end();
    await clock.sleep(3_600_000);
    expect(fired).toBe(true);
    clock.dispose();
  });
});
