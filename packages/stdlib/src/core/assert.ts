/**
 * Assertions and error helpers (spec/stdlib.md §17, semantics.md §8.10).
 * Assertion failures throw strings (catch binds the text; uncaught reports
 * read `Thrown: …`).
 */
import { display, HarnError, HDict, equals, truthy, type Value } from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";

/** The error categories of `error_category` and `llm_mock` error entries
 * (stdlib.md §17; `generic` is the fallback). */
export const ERROR_CATEGORIES: ReadonlySet<string> = new Set([
  "timeout",
  "auth",
  "rate_limit",
  "overloaded",
  "server_error",
  "transient_network",
  "schema_validation",
  "tool_error",
  "tool_rejected",
  "egress_blocked",
  "cancelled",
  "not_found",
  "circuit_open",
  "budget_exceeded",
  "generic",
]);

const STATUS_CATEGORY: Record<number, string> = {
  401: "auth",
  403: "auth",
  404: "not_found",
  410: "not_found",
  408: "timeout",
  504: "timeout",
  522: "timeout",
  524: "timeout",
  429: "rate_limit",
  503: "overloaded",
  529: "overloaded",
  500: "server_error",
  502: "server_error",
};

const MARKERS: [string[], string][] = [
  [["Deadline exceeded", "context deadline exceeded"], "timeout"],
  [["overloaded_error"], "overloaded"],
  [["api_error"], "server_error"],
  [["insufficient_quota", "billing_hard_limit_reached"], "rate_limit"],
  [["invalid_api_key", "authentication_error"], "auth"],
  [["not_found_error", "model_not_found"], "not_found"],
  [["circuit_open"], "circuit_open"],
];

const NETWORK = ["connection reset", "connection refused", "connection closed", "broken pipe", "dns error", "stream error", "unexpected eof"];

/** A standalone 3-digit number (a whole word). */
const THREE_DIGITS = /\b[0-9]{3}\b/g;

/** Classify an error text into a category (§17 "String classification"). */
export function classifyError(text: string): string {
  for (const m of text.matchAll(THREE_DIGITS)) {
    const c = STATUS_CATEGORY[Number(m[0])];
    if (c) return c;
  }
  for (const [needles, category] of MARKERS) if (needles.some((n) => text.includes(n))) return category;
  const lower = text.toLowerCase();
  if (NETWORK.some((n) => lower.includes(n))) return "transient_network";
  return "generic";
}

export function errorCategory(v: Value): string {
  if (v instanceof HDict) return v.has("category") ? display(v.get("category")) : "generic";
  if (typeof v === "string") return classifyError(v);
  return "generic";
}

export const ASSERT_BUILTINS = builtinModule("core/assert", (def) => {
  def("assert", (args) => {
    if (truthy(arg(args, 0))) return null;
    throw HarnError.thrown(args.length > 1 ? display(args[1]!) : "Assertion failed");
  });

  def("assert_eq", (args) => {
    if (args.length < 2) throw HarnError.thrown("assert_eq requires at least 2 arguments");
    const actual = args[0]!;
    const expected = args[1]!;
    if (equals(actual, expected)) return null;
    throw HarnError.thrown(
      args.length > 2 ? display(args[2]!) : `Assertion failed: expected ${display(expected)}, got ${display(actual)}`,
    );
  });

  def("assert_ne", (args) => {
    if (args.length < 2) throw HarnError.thrown("assert_ne requires at least 2 arguments");
    if (!equals(args[0]!, args[1]!)) return null;
    throw HarnError.thrown(args.length > 2 ? display(args[2]!) : `Assertion failed: values should not be equal: ${display(args[0]!)}`);
  });

  def("throw_error", (args) => {
    const category = args.length > 1 && args[1] !== null ? display(args[1]!) : "generic";
    throw HarnError.thrown(
      HDict.of({ category: ERROR_CATEGORIES.has(category) ? category : "generic", message: args.length > 0 ? display(args[0]!) : "" }),
    );
  });

  def("error_category", (args) => errorCategory(arg(args, 0)));
  def("is_timeout", (args) => isCategory(arg(args, 0), "timeout"));
  def("is_rate_limited", (args) => isCategory(arg(args, 0), "rate_limit"));
});

function isCategory(v: Value, category: string): boolean {
  if (v instanceof HDict) return v.has("category") && display(v.get("category")) === category;
  if (typeof v === "string") return classifyError(v) === category;
  return false;
}
