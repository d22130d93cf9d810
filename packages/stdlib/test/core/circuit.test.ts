import { describe, expect, it } from "vitest";
import { rig } from "./harness";

describe("circuit breakers", () => {
  it("open at the threshold, half-open after reset_ms, close on success", () => {
    const r = rig();
    r.call("mock_time", 1_000_000);
    expect(r.call("circuit_breaker", "api", 2, 1000)).toBe("api");
    expect(r.call("circuit_check", "api")).toBe("closed");
    expect(r.call("circuit_record_failure", "api")).toBe(false);
    expect(r.call("circuit_record_failure", "api")).toBe(true);
    expect(r.call("circuit_check", "api")).toBe("open");
    expect(r.call("circuit_record_failure", "api")).toBe(false);
    r.call("advance_time", 1000);
    expect(r.call("circuit_check", "api")).toBe("half_open");
    expect(r.call("circuit_record_failure", "api")).toBe(true);
    expect(r.call("circuit_check", "api")).toBe("open");
    r.call("circuit_record_success", "api");
    expect(r.call("circuit_check", "api")).toBe("closed");
    expect(r.call("circuit_check", "unknown")).toBe("closed");
    expect(r.call("circuit_breaker")).toBe("default");
  });
});
