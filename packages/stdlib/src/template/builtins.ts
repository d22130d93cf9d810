/**
 * `render`, `render_prompt`, `render_string` (spec/stdlib.md §20). Parsed
 * templates are cached per runtime by source text; files are re-read on
 * each render so edits are seen. Failures are thrown strings:
 * `Failed to read template <path>: <os error>` or
 * `[<template path> ]at <line>:<col>: <what>`.
 */
import { nodeCrypto } from "../core/node-builtins";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { dirname } from "node:path";
import { cpLength, HarnError, HDict, RuntimeSlot, type CallContext, type Runtime, type Value } from "@harn/vm";
import { strArg } from "../core/args";
import { osErrorText } from "../core/oserror";
import { sourceDir } from "../core/paths";
import { AssetPathError, resolveAsset } from "./assets";
import { parseTemplate, TemplateError, type Template } from "./parser";
import { renderTemplate, type RenderHost, type RenderState, type Span } from "./render";
import { builtinModule, type BuiltinModule } from "../registry/define";

const CACHE_LIMIT = 256;

const cacheSlot = new RuntimeSlot<Map<string, Template | TemplateError>>("template.cache", () => new Map());

/** Parse (or fetch from the cache); throws TemplateError. */
function compile(rt: Runtime, source: string): Template {
  const cache = rt.slot(cacheSlot);
  let t = cache.get(source);
  if (t === undefined) {
    try {
      t = parseTemplate(source);
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      t = e;
    }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(source, t);
  }
  if (t instanceof TemplateError) throw t;
  return t;
}

function host(rt: Runtime): RenderHost {
  return {
    include(path, fromDir) {
      let resolved: string;
      try {
        resolved = resolveAsset(fromDir, path);
      } catch (e) {
        if (e instanceof AssetPathError) throw e.message;
        throw e;
      }
      let source: string;
      try {
        source = readFileSync(resolved, "utf8");
      } catch {
        throw `failed to read included template ${resolved}`;
      }
      try {
        return { path: resolved, dir: dirname(resolved), template: compile(rt, source) };
      } catch (e) {
        if (e instanceof TemplateError) throw new TemplateError(e.pos, e.what, resolved);
        throw e;
      }
    },
  };
}

function templateFailure(e: TemplateError, path: string | null): HarnError {
  const where = e.path ?? path;
  return HarnError.thrown(`${where ? where + " " : ""}at ${e.pos.line}:${e.pos.col}: ${e.what}`);
}

function bindingsArg(args: Value[]): HDict | null {
  const b = args.length > 1 ? args[1]! : null;
  return b instanceof HDict ? b : null;
}

/** Render template text (from `path` in `dir`, for includes and messages). */
export function renderSource(ctx: CallContext, source: string, path: string | null, dir: string, bindings: HDict | null, spans?: Span[]): string {
  const state: RenderState = { host: host(ctx.runtime), path, dir, stack: path ? [path] : [], spans };
  try {
    return renderTemplate(compile(ctx.runtime, source), bindings, state);
  } catch (e) {
    if (e instanceof TemplateError) throw templateFailure(e, path);
    throw e;
  }
}

function renderFile(args: Value[], ctx: CallContext, spans?: Span[]): string {
  const p = strArg(args, 0);
  let resolved: string;
  try {
    resolved = resolveAsset(sourceDir(ctx), p);
  } catch (e) {
    if (e instanceof AssetPathError) throw HarnError.thrown(`Failed to read template ${p}: ${e.message}`);
    throw e;
  }
  let source: string;
  try {
    source = readFileSync(resolved, "utf8");
  } catch (e) {
    throw HarnError.thrown(`Failed to read template ${resolved}: ${osErrorText(e)}`);
  }
  return renderSource(ctx, source, resolved, dirname(resolved), bindingsArg(args), spans);
}

const markSlot = new RuntimeSlot<Map<string, number>>("template.marks", () => new Map());

/** `render_with_provenance`: the text plus where each part came from. */
function renderWithProvenance(args: Value[], ctx: CallContext): Value {
  const spans: Span[] = [];
  const text = renderFile(args, ctx, spans);
  const resolved = resolveAsset(sourceDir(ctx), strArg(args, 0));
  const uri = pathToFileURL(resolved).href;
  const promptId = "prompt-" + nodeCrypto().createHash("sha256").update(uri + "\u0000" + text).digest("hex").slice(0, 16);
  // offsets in code points, like every other string index in Harn
  const cp = (i: number) => cpLength(text.slice(0, i));
  return HDict.of({
    text,
    template_uri: uri,
    prompt_id: promptId,
    spans: spans.map((s) =>
      HDict.of({ kind: s.kind, start: cp(s.start), end: cp(s.end), line: s.line === 0 ? null : s.line, col: s.col === 0 ? null : s.col }),
    ),
  });
}

export const TEMPLATES_BUILTINS = builtinModule("template/builtins", (def) => {
  def("render", (args, ctx) => renderFile(args, ctx));
  def("render_prompt", (args, ctx) => renderFile(args, ctx));
  def("render_with_provenance", renderWithProvenance);
  def("prompt_mark_rendered", (args, ctx) => {
    const id = args[0];
    if (typeof id !== "string") throw HarnError.type("prompt_mark_rendered: prompt_id must be a string");
    const marks = ctx.runtime.slot(markSlot);
    const n = (marks.get(id) ?? 0) + 1;
    marks.set(id, n);
    return n;
  });
  def("render_string", (args, ctx) => renderSource(ctx, strArg(args, 0), null, sourceDir(ctx), bindingsArg(args)));
});

/** The template group's builtin modules (lazy/groups.ts). */
export const TEMPLATE_MODULES: readonly BuiltinModule[] = [TEMPLATES_BUILTINS];
