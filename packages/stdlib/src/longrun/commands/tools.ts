/**
 * The host command tools `run_command`, `run_test`, `run_build_command`
 * (agents.md §1.12) and `read_command_output` (§1.13), foreground and
 * background. Requests are validated in `request.ts`, processes run in
 * `process.ts`, output goes to the artifacts of `artifacts.ts`.
 */
import { open } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { HDict, raceSignal, RuntimeSlot, type CallContext, type Value } from "@harn/vm";
import { runScope } from "../../core/run_scope";
import { rfc3339 } from "../clock";
import { hostlibError, typeName } from "../hostlib_errors";
import { longRunState } from "../state";
import { ArtifactWriter, artifactPaths, type ArtifactPaths, type ArtifactSummary } from "./artifacts";
import { signalNumberName, spawnProcess, SpawnError, type ProcessOutcome, type RunningProcess } from "./process";
import { parseDiagnostics, parseTestSummary } from "./report_parsers";
import { parseCommandRequest, type CommandSpec, type CommandTool } from "./request";
import { type Json } from "../../core/json";

/** Artifacts by command id and background handle id, for read_command_output. */
interface ArtifactIndex {
  readonly byCommand: Map<string, ArtifactPaths>;
  readonly byHandle: Map<string, ArtifactPaths>;
}

const ARTIFACTS = new RuntimeSlot<ArtifactIndex>("longrun.artifacts", () => ({ byCommand: new Map(), byHandle: new Map() }));


const SANDBOX = () => HDict.of({ kind: "none", enforced: false });

/** Runs one command tool request; a Promise of the result or envelope. */
export async function runCommandTool(tool: CommandTool, request: Value | undefined, ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  const spec = parseCommandRequest(tool, request, rt.cwd, rt.env);
  const state = longRunState(rt);
  const commandId = state.nextCommandId();
  let paths: ArtifactPaths;
  let writer: ArtifactWriter;
  try {
    // in the run's scratch directory, removed when the run ends
    paths = artifactPaths(runScope(rt).scratchDir(), commandId);
    writer = new ArtifactWriter(paths, spec.capture.maxInlineBytes);
  } catch (e) {
    throw hostlibError("backend_error", spec.builtin, `could not create command artifacts: ${(e as Error).message}`);
  }

  let proc: RunningProcess;
  try {
    proc = await spawnProcess(rt, spec, writer, { foreground: !spec.background, signal: spec.background ? null : ctx.signal });
  } catch (e) {
    writer.close();
    if (e instanceof SpawnError) throw hostlibError("backend_error", spec.builtin, `spawn failed: ${e.detail}`);
    throw e;
  }
  rt.slot(ARTIFACTS).byCommand.set(commandId, paths);

  if (spec.background) return startBackground(ctx, spec, commandId, paths, writer, proc);

  // A cancelled call must not wait for the exit of the process it has
  // abandoned: that child is unref'd, so awaiting it can leave nothing
  // keeping Node alive, and the run would end silently mid-script.
  let outcome: ProcessOutcome;
  try {
    outcome = await raceSignal(proc.done, ctx.signal);
  } catch (e) {
    writer.close();
    throw e;
  }
  const summary = await writer.finish(spec.capture);
  if (ctx.signal.aborted) throw ctx.signal.reason;
  if (writer.failure !== null) throw hostlibError("backend_error", spec.builtin, writer.failure);
  return foregroundResult(spec, commandId, paths, proc, outcome, summary);
}

/** The output to look for summaries and diagnostics in: both streams, and
 * the tail of any stream too long to be inlined. */
function readableOutput(s: ArtifactSummary): string {
  return [s.stdout.text, s.stdout.tail, s.stderr.text, s.stderr.tail].filter((t) => t !== "").join("\n");
}

function foregroundResult(
  spec: CommandSpec,
  commandId: string,
  paths: ArtifactPaths,
  proc: RunningProcess,
  o: ProcessOutcome,
  s: ArtifactSummary,
): HDict {
  const exitCode = o.exitCode ?? -1;
  if (spec.tool === "run_test") {
    const result: Record<string, Value> = {
      exit_code: exitCode,
      stdout: s.stdout.text,
      stderr: s.stderr.text,
      duration_ms: o.durationMs,
      result_handle: commandId,
    };
    const summary = parseTestSummary(readableOutput(s));
    if (summary) result.summary = HDict.of({ passed: summary.passed, failed: summary.failed, skipped: summary.skipped });
    return HDict.of(result);
  }
  if (spec.tool === "run_build_command") {
    const diagnostics = parseDiagnostics(readableOutput(s)).map((d) =>
      HDict.of({ severity: d.severity, message: d.message, path: d.path, line: d.line, column: d.column }),
    );
    return HDict.of({ exit_code: exitCode, stdout: s.stdout.text, stderr: s.stderr.text, duration_ms: o.durationMs, diagnostics });
  }
  const result: Record<string, Value> = {
    command_id: commandId,
    status: o.timedOut ? "timed_out" : o.signal !== null ? "killed" : "completed",
    pid: proc.pid,
    process_group_id: proc.pid,
    handle_id: null,
    started_at: rfc3339(proc.startedAtMs),
    ended_at: rfc3339(o.endedAtMs),
    duration_ms: o.durationMs,
    exit_code: exitCode,
    signal: o.timedOut ? "SIGKILL" : o.signal,
    timed_out: o.timedOut,
    stdout: s.stdout.text,
    stderr: s.stderr.text,
    output_path: paths.combined,
    stdout_path: paths.stdout,
    stderr_path: paths.stderr,
    line_count: s.lineCount,
    byte_count: s.byteCount,
    output_sha256: s.sha256,
    sandbox: SANDBOX(),
    audit_id: `audit_${commandId}`,
  };
  if (spec.policyContext) result.policy_context = spec.policyContext;
  return HDict.of(result);
}

/**
 * Background mode: register a `hto-` handle and return the envelope; the
 * completion payload is queued when the process exits, unless the handle
 * was cancelled (then the group is killed and the exit swallowed).
 */
function startBackground(
  ctx: CallContext,
  spec: CommandSpec,
  commandId: string,
  paths: ArtifactPaths,
  writer: ArtifactWriter,
  proc: RunningProcess,
): HDict {
  const rt = ctx.runtime;
  const state = longRunState(rt);
  const handleId = state.nextCommandHandleId();
  const descriptor = spec.argv.join(" ");
  state.register({
    id: handleId,
    family: "command",
    sessionId: ctx.sessionId ?? "",
    operation: spec.tool,
    descriptor,
    startedAtMs: proc.startedAtMs,
    stop: () => proc.abandon(),
  });
  rt.slot(ARTIFACTS).byHandle.set(handleId, paths);

  // Finished when its whole tree is: a command that backgrounded its own
  // work is not `completed` while that work runs.
  void proc.treeDone().then(async (o) => {
    if (!state.isRunning(handleId)) {
      writer.close();
      return;
    }
    let s: ArtifactSummary;
    try {
      s = await writer.finish(spec.capture);
    } catch (e) {
      writer.failure ??= `could not finalize command artifacts: ${(e as Error).message}`;
      const empty = { text: "", bytes: 0, tail: "" };
      s = { stdout: empty, stderr: empty, lineCount: 0, byteCount: 0, sha256: "" };
    }
    const header = {
      command_id: commandId,
      status: "completed",
      handle_id: handleId,
      command_or_op_descriptor: descriptor,
      started_at: rfc3339(proc.startedAtMs),
      ended_at: rfc3339(o.endedAtMs),
      duration_ms: o.durationMs,
    };
    let payload: { [key: string]: Json };
    if (writer.failure !== null) {
      // [TS decision] the reference silently drops such a payload (§1.10 note)
      payload = { ...header, status: "failed", exit_code: o.exitCode ?? -1, error: writer.failure };
    } else {
      payload = {
        ...header,
        exit_code: o.exitCode ?? -1,
        stdout: s.stdout.text,
        stderr: s.stderr.text,
        output_path: paths.combined,
        stdout_path: paths.stdout,
        stderr_path: paths.stderr,
        line_count: s.lineCount,
        byte_count: s.byteCount,
        output_sha256: s.sha256,
        process_group_id: proc.pid,
        signal: signalNumberName(o.signal),
      };
    }
    state.complete(handleId, payload);
  }, () => writer.close());

  return HDict.of({
    command_id: commandId,
    status: "running",
    handle_id: handleId,
    pid: proc.pid,
    process_group_id: proc.pid,
    started_at: rfc3339(proc.startedAtMs),
    ended_at: null,
    duration_ms: 0,
    exit_code: null,
    signal: null,
    timed_out: false,
    stdout: "",
    stderr: "",
    output_path: paths.combined,
    stdout_path: paths.stdout,
    stderr_path: paths.stderr,
    line_count: 0,
    byte_count: 0,
    output_sha256: "",
    sandbox: SANDBOX(),
    audit_id: `audit_${commandId}`,
    command: descriptor,
    command_or_op_descriptor: descriptor,
  });
}

const READ_BUILTIN = "hostlib_tools_read_command_output";
const DEFAULT_READ_LENGTH = 65_536;
const MAX_READ_LENGTH = 1 << 20;
const ARTIFACT_FILES = new Set(["combined.txt", "stdout.txt", "stderr.txt"]);

/** `read_command_output({command_id | handle_id | path, offset?, length?})`. */
export async function readCommandOutput(request: Value | undefined, ctx: CallContext): Promise<Value> {
  if (request === undefined || request === null) throw hostlibError("missing_parameter", READ_BUILTIN, "request");
  if (!(request instanceof HDict)) {
    throw hostlibError("invalid_parameter", READ_BUILTIN, "request", `expected a dict (JSON request body), got ${typeName(request)}`);
  }
  const index = ctx.runtime.slot(ARTIFACTS);
  const str = (key: string): string | null => {
    const v = request.get(key);
    if (v === null) return null;
    if (typeof v !== "string") throw hostlibError("invalid_parameter", READ_BUILTIN, key, `expected string, got ${typeName(v)}`);
    return v;
  };
  const int = (key: string, dflt: number): number => {
    const v = request.get(key);
    if (v === null) return dflt;
    if (typeof v === "bigint") return v < 0n ? -1 : Number.MAX_SAFE_INTEGER;
    if (typeof v !== "number") throw hostlibError("invalid_parameter", READ_BUILTIN, key, `expected int, got ${typeName(v)}`);
    return v;
  };

  let path: string | null = null;
  const commandId = str("command_id");
  const handleId = str("handle_id");
  const explicit = str("path");
  if (commandId !== null) path = index.byCommand.get(commandId)?.combined ?? null;
  if (path === null && handleId !== null) path = index.byHandle.get(handleId)?.combined ?? null;
  if (path === null && explicit !== null) {
    if (!ARTIFACT_FILES.has(basename(explicit)) || !basename(dirname(explicit)).startsWith("harn-command-cmd_")) {
      throw hostlibError("invalid_parameter", READ_BUILTIN, "path", "path must point at a harn-command artifact directory");
    }
    path = explicit;
  }
  if (path === null && commandId !== null) throw hostlibError("invalid_parameter", READ_BUILTIN, "command_id", `unknown command id '${commandId}'`);
  if (path === null && handleId !== null) throw hostlibError("invalid_parameter", READ_BUILTIN, "handle_id", `unknown handle id '${handleId}' (not a command handle of this run)`);
  if (path === null) throw hostlibError("missing_parameter", READ_BUILTIN, "command_id|handle_id|path");

  const offset = int("offset", 0);
  if (offset < 0) throw hostlibError("invalid_parameter", READ_BUILTIN, "offset", "expected a non-negative int");
  let length = int("length", DEFAULT_READ_LENGTH);
  if (length < 0) throw hostlibError("invalid_parameter", READ_BUILTIN, "length", "expected a non-negative int");
  length = Math.min(length, MAX_READ_LENGTH);

  let fh;
  try {
    fh = await open(path, "r");
  } catch (e) {
    throw hostlibError("backend_error", READ_BUILTIN, `read failed: ${(e as Error).message}`);
  }
  try {
    const total = (await fh.stat()).size;
    const want = Math.max(0, Math.min(length, total - offset));
    const buf = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await fh.read(buf, got, want - got, offset + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return HDict.of({
      path,
      offset,
      bytes_read: got,
      total_bytes: total,
      eof: offset + got >= total,
      content: buf.toString("utf8", 0, got),
    });
  } finally {
    await fh.close();
  }
}
