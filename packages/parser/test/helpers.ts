import { expect } from "vitest";
import { parse } from "../src/index";
import { shape } from "./shape";

/** Parses `src`, requires success, and returns one shape per top-level item. */
export function shapes(src: string): string[] {
  const r = parse(src);
  expect(r.errors.map((e) => e.message)).toEqual([]);
  return r.program.items.map(shape);
}

/** The single top-level item's shape. */
export function one(src: string): string {
  const s = shapes(src);
  expect(s).toHaveLength(1);
  return s[0]!;
}

/** Shape of `let _ = EXPR` — for expression tests. */
export function expr(src: string): string {
  const s = one(`let _ = ${src}`);
  return s.slice("(let _ ".length, -1);
}

/** The first error message (what `harn run` reports); fails if none. */
export function firstError(src: string): string {
  const r = parse(src);
  expect(r.errors.length, `expected a syntax error for ${JSON.stringify(src)}`).toBeGreaterThan(0);
  return r.errors[0]!.message;
}

export function errors(src: string): string[] {
  return parse(src).errors.map((e) => e.message);
}
