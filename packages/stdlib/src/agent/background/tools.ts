/**
 * The `background_task` / `check_task` tools offered to the model
 * (extensions.md §2) and the script builtins `background_tasks()` /
 * `background_task_wait(task_id, timeout?)`.
 */
import { display, HDict, HarnError, type CallContext, type CancelTimer, type Clock, type Value } from "@harn/vm";
import type { BuiltinTool } from "../tools/dispatch";
import type { ToolSpec } from "../tools/spec";
import type { LoopStart } from "../loop/run";
import type { LoopSettings } from "../loop/options";
import { durationMs } from "../loop/options";
import { backgroundPool, isLive } from "./pool";
import { builtinModule } from "../../registry/define";

export function backgroundTools(): ToolSpec[] {
  return [
    {
      name: "background_task",
      description:
        "Start a sub-agent in the background on a self-contained task. Returns at once with {task_id, status: \"submitted\"}; tell the user the task id, keep working, and check on it later with check_task.",
      parameters: HDict.of({ prompt: HDict.of({ type: "string", description: "The complete instructions for the sub-agent" }) }),
      handler: null,
      executor: "harn",
      longRunning: false,
      declared: false,
      builtin: "background_task",
    },
    {
      name: "check_task",
      description:
        "Check a background task: {status: \"queued\"} (waiting for a free slot), {status: \"running\"}, {status: \"done\", result}, {status: \"error\", error} or {status: \"not_found\", error}.",
      parameters: HDict.of({ task_id: HDict.of({ type: "string", description: "The id background_task returned" }) }),
      handler: null,
      executor: "harn",
      longRunning: false,
      declared: false,
      builtin: "check_task",
    },
  ];
}

/** What the tools need of the loop that offers them. */
export interface ParentLoop {
  readonly sessionId: string;
  readonly settings: LoopSettings;
  readonly start: LoopStart;
}

type RunLoop = (ctx: CallContext, start: LoopStart) => Promise<HDict>;

/** Options never inherited by a sub-agent. */
const NOT_INHERITED = [
  "session_id",
  "messages",
  "background_tasks",
  "background_options",
  "max_background_tasks",
  "post_turn_callback",
  "on_pending",
  "persistent",
  "stop_after_successful_tools",
  "require_successful_tools",
];

/** The sub-agent's options: the parent's (same provider and tools) unless
 * `background_options` overrides them. */
function childOptions(parent: HDict, overrides: HDict | null): HDict {
  const m = new Map(parent.map);
  for (const k of NOT_INHERITED) m.delete(k);
  const tools = m.get("tools");
  if (Array.isArray(tools)) m.set("tools", tools.filter((t) => typeof t !== "string"));
  if (overrides) for (const k of overrides.keys()) if (k !== "system") m.set(k, overrides.get(k));
  return new HDict(m);
}

export function backgroundBuiltins(parent: ParentLoop, runLoop: RunLoop): Map<string, BuiltinTool> {
  const m = new Map<string, BuiltinTool>();
  m.set("background_task", (args, ctx) => {
    const raw = args.get("prompt");
    const prompt = typeof raw === "string" ? raw : raw === null ? "" : display(raw);
    const pool = backgroundPool(ctx.runtime);
    pool.limit = parent.settings.maxBackgroundTasks;
    const overrides = parent.settings.backgroundOptions;
    const system = overrides?.get("system");
    const task = pool.submit(prompt, parent.sessionId, parent.settings.sessionId !== null, async (_task, onCancel) => {
      // Detached: the sub-agent outlives the tool call and even the parent
      // loop; only the pool (or the end of the script) stops it.
      const child = ctx.inSession ? ctx.inSession("", { detached: true }) : null;
      if (child) onCancel(() => child.cancel());
      const r = await runLoop(child ?? ctx, {
        task: prompt,
        system: typeof system === "string" ? system : parent.start.system,
        options: childOptions(parent.start.options, overrides),
        background: true,
      });
      const text = r.get("visible_text");
      return typeof text === "string" ? text : "";
    });
    return HDict.of({ task_id: task.id, status: "submitted" });
  });
  m.set("check_task", (args, ctx) => {
    const id = args.get("task_id");
    return backgroundPool(ctx.runtime).check(typeof id === "string" ? id : display(id));
  });
  return m;
}

export const BACKGROUND_BUILTINS = builtinModule("agent/background/tools", (def) => {
  def("background_tasks", (_args, ctx) => backgroundPool(ctx.runtime).list());
  def("background_task_wait", async (args, ctx) => {
    const raw = args[0] ?? null;
    if (typeof raw !== "string") throw HarnError.runtime("background_task_wait: task_id must be a string");
    const pool = backgroundPool(ctx.runtime);
    const task = pool.tasks.get(raw);
    if (task && isLive(task)) {
      const timeout = args[1] === undefined || args[1] === null ? undefined : durationMs(args[1] as Value);
      await waitBounded(task.done, timeout, ctx.signal, ctx.runtime.clock);
    }
    return withId(raw, pool.check(raw));
  });
});

function withId(id: string, d: HDict): HDict {
  return d.with("task_id", id);
}

/** Wait for `p` up to `ms` (forever when undefined); rejects on abort. */
function waitBounded(p: Promise<void>, ms: number | undefined, signal: AbortSignal, clock: Clock): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    let timer: CancelTimer | undefined;
    const done = () => {
      timer?.();
      signal.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      done();
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (ms !== undefined) {
      timer = clock.timer(ms, () => {
        done();
        resolve();
      });
    }
    p.then(() => {
      done();
      resolve();
    });
  });
}
