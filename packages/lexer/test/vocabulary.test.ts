/** The chevrotain vocabulary is built without validation at run time; this
 * test builds it with validation and first-char optimisation enforced. */
import { describe, expect, it } from "vitest";
import { createLexer } from "../src/vocabulary";

describe("token vocabulary", () => {
  it("passes chevrotain's validations and keeps first-char optimisation", () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.join(" "));
    try {
      expect(() => createLexer(true)).not.toThrow();
    } finally {
      console.error = original;
    }
    expect(errors).toEqual([]);
  });
});
