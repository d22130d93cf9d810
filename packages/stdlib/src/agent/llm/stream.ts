/**
 * `llm_stream(prompt, system?, options?)` (spec/agents.md §5.2, P2): a
 * channel that receives the reply's text chunks as they arrive and is
 * closed at the end, so a script can show or process an answer while it is
 * being written (`for chunk in llm_stream(...) { print(chunk) }`).
 *
 * - Mock quirk kept from the reference: with the mock provider the chunks
 *   are the whitespace-separated words of the *prompt*; no queued mock
 *   entry is consumed.
 * - Options are read (and the key checked) at the call, so setup errors
 *   are thrown there like `llm_call`'s.
 * - [TS decision] A failure after that (provider error after retries) ends
 *   the stream: the chunks that arrived stay receivable, the channel is
 *   closed, and `llm_stream: <message>` goes to stderr.
 * - The call belongs to the calling task: cancelling the task, a Ctrl-C
 *   turn interrupt, or the end of the program stops it and closes the
 *   channel.
 */
import { callTools } from "../tools/search";
import { channelSend, display, HDict, makeChannel, type CallContext, type HChannel, type Runtime, type Value } from "@harn/vm";
import { LlmError, LlmInterrupted, LlmSetupError } from "../../llm/errors";
import { messagesFromJson, requestMessages, userMessage } from "../loop/transcript";
import { callModel } from "./call";
import { readLlmSettings, setupError } from "./options";
import { builtinModule } from "../../registry/define";
import { toJson } from "../../core/json";

const CAPACITY = 256;

function text(v: Value): string {
  return typeof v === "string" ? v : display(v);
}

function llmStream(args: Value[], ctx: CallContext): HChannel {
  const rt = ctx.runtime;
  const prompt = args[0] === undefined || args[0] === null ? "" : text(args[0]);
  const system = args[1] === undefined || args[1] === null ? null : text(args[1]);
  const options = args[2] instanceof HDict ? args[2] : HDict.empty();
  let llm;
  try {
    llm = readLlmSettings(rt, options, { retries: 0, backoffMs: 250 });
  } catch (e) {
    throw e instanceof LlmSetupError ? setupError(e) : e;
  }
  const ch = makeChannel("llm_stream", CAPACITY);
  // The calling task's signal (captured now: the context is the call's).
  const taskSignal = ctx.signal;
  const ac = new AbortController();
  const onAbort = () => ac.abort(taskSignal.reason);
  if (taskSignal.aborted) ac.abort(taskSignal.reason);
  else taskSignal.addEventListener("abort", onAbort, { once: true });
  const undo = rt.onShutdown(() => ac.abort());
  const finish = () => {
    taskSignal.removeEventListener("abort", onAbort);
    undo();
    close(rt, ch, ctx);
  };
  const work = llm.intercept
    ? sendAll(ch, prompt.split(/\s+/).filter((w) => w !== ""), ac.signal)
    : streamReply(rt, llm, prompt, system, options, ch, ac.signal);
  work.then(finish, (e: unknown) => {
    if (!ac.signal.aborted && !(e instanceof LlmInterrupted)) {
      const message = e instanceof LlmError || e instanceof Error ? e.message : String(e);
      rt.stderr.write(`llm_stream: ${message}\n`);
    }
    finish();
  });
  return ch;
}

async function sendAll(ch: HChannel, chunks: string[], signal: AbortSignal): Promise<void> {
  for (const c of chunks) if (!(await channelSend(ch, c, signal))) return;
}

async function streamReply(
  rt: Runtime,
  llm: ReturnType<typeof readLlmSettings>,
  prompt: string,
  system: string | null,
  options: HDict,
  ch: HChannel,
  signal: AbortSignal,
): Promise<void> {
  const tools = callTools(options, llm.provider, llm.model);
  const given = options.get("messages");
  const messages = requestMessages(Array.isArray(given) ? messagesFromJson(toJson(given)) : [userMessage(prompt)]);
  llm.onEvent = (ev) => (ev.kind === "text_delta" && ev.text !== "" ? channelSend(ch, ev.text, signal) : undefined);
  await callModel(rt, llm, { system, messages, tools }, signal);
}

/** `close_channel`, called directly (it reads neither the context nor
 * anything but its argument): buffered chunks stay receivable, waiting
 * receivers wake. */
function close(rt: Runtime, ch: HChannel, ctx: CallContext): void {
  const closeChannel = rt.builtins.get("close_channel");
  if (closeChannel) void closeChannel([ch], ctx);
}

export const LLM_STREAM_BUILTINS = builtinModule("agent/llm/stream", (def) => {
  def("llm_stream", llmStream);
});
