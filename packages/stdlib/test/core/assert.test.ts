import { describe, expect, it } from "vitest";
import { display, float, HDict } from "@harn/vm";
import { raised, rig } from "./harness";

describe("assertions and error helpers", () => {
  const r = rig();

  it("assert throws the message or a default", async () => {
    expect(r.call("assert", 1)).toBe(null);
    expect((await raised(() => r.call("assert", 0))).caughtValue()).toBe("Assertion failed");
    expect((await raised(() => r.call("assert", "", ["m"]))).caughtValue()).toBe("[m]");
  });

  it("assert_eq names the second argument expected", async () => {
    expect(r.call("assert_eq", 1, float(1))).toBe(null);
    expect((await raised(() => r.call("assert_eq", 1, 2))).description()).toBe("Thrown: Assertion failed: expected 2, got 1");
    expect((await raised(() => r.call("assert_eq", 1, 2, "custom"))).caughtValue()).toBe("custom");
    expect((await raised(() => r.call("assert_eq", 1))).caughtValue()).toBe("assert_eq requires at least 2 arguments");
    expect((await raised(() => r.call("assert_ne", [1], [1]))).caughtValue()).toBe("Assertion failed: values should not be equal: [1]");
  });

  it("throw_error throws a {category, message} dict", async () => {
    const e = await raised(() => r.call("throw_error", "slow", "timeout"));
    expect(display(e.caughtValue())).toBe("{category: timeout, message: slow}");
    expect(display((await raised(() => r.call("throw_error", "x", "weird"))).caughtValue())).toBe("{category: generic, message: x}");
    expect(e.description()).toBe("Thrown: {category: timeout, message: slow}");
  });

  it("classifies error texts", () => {
    const cat = (v: string) => r.call("error_category", v);
    expect(cat("HTTP 429 Too Many Requests")).toBe("rate_limit");
    expect(cat("status 418 then 503")).toBe("overloaded");
    expect(cat("code 1234 and 401")).toBe("auth");
    expect(cat("context deadline exceeded")).toBe("timeout");
    expect(cat("api_error: boom")).toBe("server_error");
    expect(cat("Connection Reset by peer")).toBe("transient_network");
    expect(cat("nope")).toBe("generic");
    expect(r.call("error_category", HDict.of({ category: "auth" }))).toBe("auth");
    expect(r.call("error_category", 5)).toBe("generic");
    expect(r.call("is_timeout", "Deadline exceeded")).toBe(true);
    expect(r.call("is_rate_limited", HDict.of({ category: "rate_limit" }))).toBe(true);
    expect(r.call("is_rate_limited", 429)).toBe(false);
  });

  it("Result helpers", async () => {
    expect(display(r.call("Ok"))).toBe("Result.Ok(nil)");
    expect(r.call("unwrap", r.call("Ok", 3))).toBe(3);
    expect(r.call("unwrap", 7)).toBe(7);
    expect((await raised(() => r.call("unwrap", r.call("Err", "bad")))).description()).toBe("Runtime error: unwrap called on Err: bad");
    expect((await raised(() => r.call("unwrap_err", r.call("Ok", 1)))).description()).toBe("Runtime error: unwrap_err called on non-Err");
    expect(r.call("unwrap_or", r.call("Err", 1), 9)).toBe(9);
    expect(r.call("is_err", r.call("Err", 1))).toBe(true);
    expect(r.call("is_ok", 1)).toBe(false);
  });
});
