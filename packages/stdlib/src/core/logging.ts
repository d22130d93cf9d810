/**
 * Structured logging and tracing (spec/stdlib.md §3 "Structured logging",
 * "Tracing helpers"). Log lines are compact JSON objects written to the
 * program's stdout in order with everything else; the active trace span (a
 * per-runtime stack) adds `trace_id`/`span_id` to each line.
 */
import { display, HarnError, HDict, HFloat, RuntimeSlot, type CallContext, type Runtime, type Value } from "@harn/vm";
import { arg, strArg } from "./args";
import { formatPlainFloat, quoteJson } from "./json";
import { nowMs } from "../time/clock";
import { nodeCrypto } from "./node-builtins";
import { builtinModule } from "../registry/define";

const LEVELS = ["debug", "info", "warn", "error"] as const;
type Level = (typeof LEVELS)[number];

interface Span {
  trace_id: string;
  span_id: string;
  name: string;
  start_ms: number;
}

interface FinishedSpan extends Span {
  duration_ms: number;
}

interface LogState {
  minLevel: number;
  spans: Span[];
  finished: FinishedSpan[];
  tracing: boolean;
}

const LOG = new RuntimeSlot<LogState>("stdlib.logging", () => ({ minLevel: 0, spans: [], finished: [], tracing: true }));

function hexId(): string {
  return nodeCrypto().randomBytes(4).toString("hex");
}

/** JSON encoding of a log field value (§3): strings quoted, numbers plain,
 * non-finite floats null, anything else its display text as a string. */
export function logFieldJson(v: Value): string {
  if (typeof v === "string") return quoteJson(v);
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (v === null) return "null";
  if (v instanceof HFloat) return Number.isFinite(v.v) ? formatPlainFloat(v.v) : "null";
  return quoteJson(display(v));
}

function isoNow(rt: Runtime): string {
  return new Date(nowMs(rt)).toISOString();
}

/** Write one structured line; `context` is the span whose ids it carries. */
function writeLog(ctx: CallContext, level: Level, msg: string, fields: HDict | null, context: Span | undefined): void {
  let line = `{"ts":${quoteJson(isoNow(ctx.runtime))},"level":"${level}","msg":${quoteJson(msg)}`;
  if (context) line += `,"trace_id":${quoteJson(context.trace_id)},"span_id":${quoteJson(context.span_id)}`;
  if (fields) for (const k of fields.keys()) line += `,${quoteJson(k)}:${logFieldJson(fields.map.get(k)!)}`;
  ctx.out(line + "}\n");
}

function spanDict(s: Span): HDict {
  return HDict.of({ trace_id: s.trace_id, span_id: s.span_id, name: s.name, start_ms: s.start_ms });
}

export const LOGGING_BUILTINS = builtinModule("core/logging", (def) => {
  LEVELS.forEach((level, rank) => {
    def(`log_${level}`, (args, ctx) => {
      const st = ctx.runtime.slot(LOG);
      if (rank < st.minLevel) return null;
      const fields = arg(args, 1);
      writeLog(ctx, level, strArg(args, 0), fields instanceof HDict ? fields : null, st.spans[st.spans.length - 1]);
      return null;
    });
  });

  def("log_set_level", (args, ctx) => {
    const level = strArg(args, 0);
    const rank = LEVELS.indexOf(level as Level);
    if (rank < 0) throw HarnError.thrown(`log_set_level: invalid level '${level}'. Expected debug, info, warn, or error`);
    ctx.runtime.slot(LOG).minLevel = rank;
    return null;
  });

  def("log_json", (args, ctx) => {
    ctx.out(`{"ts":${quoteJson(isoNow(ctx.runtime))},"key":${quoteJson(strArg(args, 0))},"value":${logFieldJson(arg(args, 1))}}\n`);
    return null;
  });

  def("trace_start", (args, ctx) => {
    const st = ctx.runtime.slot(LOG);
    const parent = st.spans[st.spans.length - 1];
    const span: Span = { trace_id: parent ? parent.trace_id : hexId(), span_id: hexId(), name: strArg(args, 0), start_ms: nowMs(ctx.runtime) };
    st.spans.push(span);
    return spanDict(span);
  });

  def("trace_end", (args, ctx) => {
    const d = arg(args, 0);
    if (!(d instanceof HDict)) throw HarnError.thrown("trace_end: argument must be a span dict from trace_start");
    const st = ctx.runtime.slot(LOG);
    const spanId = display(d.get("span_id"));
    const top = st.spans[st.spans.length - 1];
    if (top && top.span_id === spanId) st.spans.pop();
    const start = d.get("start_ms");
    const startMs = typeof start === "number" ? start : start instanceof HFloat ? start.v : nowMs(ctx.runtime);
    const duration = Math.max(0, Math.floor(nowMs(ctx.runtime) - startMs));
    const name = display(d.get("name"));
    const traceId = display(d.get("trace_id"));
    st.finished.push({ trace_id: traceId, span_id: spanId, name, start_ms: startMs, duration_ms: duration });
    if (st.minLevel <= 1) {
      const fields = HDict.of({ duration_ms: duration, name, span_id: spanId, trace_id: traceId });
      writeLog(ctx, "info", "span_end", fields, st.spans[st.spans.length - 1]);
    }
    return null;
  });

  def("trace_id", (_a, ctx) => {
    const st = ctx.runtime.slot(LOG);
    return st.spans.length > 0 ? st.spans[st.spans.length - 1]!.trace_id : null;
  });

  def("trace_spans", (_a, ctx) =>
    ctx.runtime.slot(LOG).finished.map((s) =>
      HDict.of({ trace_id: s.trace_id, span_id: s.span_id, name: s.name, start_ms: s.start_ms, duration_ms: s.duration_ms }),
    ),
  );

  def("trace_summary", (_a, ctx) => {
    const spans = ctx.runtime.slot(LOG).finished;
    if (spans.length === 0) return "No spans recorded.";
    const lines = spans.map((s) => `${s.name}: ${s.duration_ms}ms`);
    return `${spans.length} span(s):\n` + lines.join("\n");
  });

  def("enable_tracing", (args, ctx) => {
    ctx.runtime.slot(LOG).tracing = args.length === 0 ? true : Boolean(arg(args, 0));
    return null;
  });
});
