/**
 * Answering human-in-the-loop requests at the terminal (spec/agents-surface.md
 * §6; on under `harn run` when stdin is a terminal, core/interactive.ts).
 * The prompt goes to stderr, the answer is one line of stdin; it stops
 * reading when the request ends another way (a timeout, a cancellation).
 */
import { display, HDict, type CallContext } from "@harn/vm";
import { readLine } from "../../core/terminal";
import { respondHitl, type HitlRequest } from "./requests";

/** What the script printed comes before the prompt. */
function say(ctx: CallContext, text: string): void {
  ctx.runtime.stdout.flush?.();
  ctx.runtime.stderr.write(text);
}

async function line(ctx: CallContext, prompt: string, signal: AbortSignal): Promise<string | null> {
  say(ctx, prompt);
  const r = readLine(ctx.runtime, signal);
  return typeof r === "string" || r === null ? r : await r;
}

function yes(answer: string | null): boolean {
  const a = (answer ?? "").trim().toLowerCase();
  return a === "y" || a === "yes";
}

function text(v: unknown): string {
  return display(v as never);
}

async function promptFor(ctx: CallContext, r: HitlRequest, signal: AbortSignal): Promise<void> {
  const p = r.payload;
  const user = ctx.runtime.env.USER ?? "terminal";
  if (r.kind === "question") {
    const answer = await line(ctx, `[harn] ${text(p.get("prompt"))}\n> `, signal);
    if (answer !== null) respondHitl(ctx.runtime, r.id, HDict.of({ answer, reviewer: user }));
    return;
  }
  if (r.kind === "escalation") {
    const answer = await line(ctx, `[harn] escalation to ${text(p.get("role"))}: ${text(p.get("reason"))}\nAccept? [y/N] `, signal);
    respondHitl(ctx.runtime, r.id, HDict.of({ accepted: yes(answer), reviewer: user }));
    return;
  }
  const what = r.kind === "approval" ? text(p.get("action")) : `dual control (${text(p.get("n"))} of ${text(p.get("m"))})`;
  const quorum = Number(p.get("quorum") ?? 1);
  const reviewers = p.get("reviewers");
  const named = Array.isArray(reviewers) && reviewers.length > 0;
  say(ctx, `[harn] approval requested: ${what}${quorum > 1 || named ? ` (${quorum} approval${quorum === 1 ? "" : "s"} needed${named ? `; reviewers: ${reviewers.map(text).join(", ")}` : ""})` : ""}\n`);
  // One reviewer per answer until the request is decided.
  while (!r.resolved && !signal.aborted) {
    let reviewer = user;
    if (quorum > 1 || named) {
      const who = await line(ctx, "Reviewer: ", signal);
      if (who === null) return;
      reviewer = who.trim();
    }
    const answer = await line(ctx, "Approve? [y/N] ", signal);
    if (answer === null) return;
    respondHitl(ctx.runtime, r.id, HDict.of({ approved: yes(answer), reviewer }));
  }
}

/** Start prompting for `r`; never throws (an abandoned read is fine). */
export function terminalPrompter(ctx: CallContext, r: HitlRequest, signal: AbortSignal): void {
  promptFor(ctx, r, signal).catch(() => undefined);
}
