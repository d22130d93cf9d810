/**
 * `harn run FILE [-- ARGS]` and `harn run -e CODE` (spec/cli.md §2): the
 * command-line surface. The running itself is in ../run-script.ts.
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_BACKGROUND_GRACE_MS, runCommand } from "../run-script";
import type { SetExitCode } from "./index";

function usage(message: string): never {
  throw new InvalidArgumentError(message);
}

export function register(program: Command, setExitCode: SetExitCode): void {
  program.enablePositionalOptions();
  program
    .command("run")
    .description("Execute a .harn file or inline code")
    .argument("[file]", "script to run")
    .argument("[args...]", "arguments after `--` become `argv`")
    .option("-e <code>", "run inline code (wrapped in `pipeline main(task) { … }`)")
    .option("--deny <builtins>", "deny the listed builtins (comma-separated)")
    .option("--allow <builtins>", "deny every builtin except the listed ones and the core set")
    .option(
      "--background-grace <duration>",
      "how long to wait at exit for running background sub-agents (e.g. 30s, 5m; a plain number is seconds; 0 cancels them)",
      parseGrace,
      DEFAULT_BACKGROUND_GRACE_MS,
    )
    .addOption(
      new Option("--llm-mock <file.jsonl>", "answer LLM calls from these fixtures (one llm_mock config per line); unmatched calls fail").conflicts("llmMockRecord"),
    )
    .option("--llm-mock-record <file.jsonl>", "record the LLM responses of this run to a fixture that --llm-mock replays")
    .option("--stream", "show model output as it arrives (stdout), its reasoning dimmed and each tool call and result (one line each on stderr)")
    .option("--hide-reasoning", "with --stream, do not show the model's reasoning (thinking)")
    .passThroughOptions()
    .action(async (file: string | undefined, rest: string[], opts: { e?: string; deny?: string; allow?: string; backgroundGrace: number; llmMock?: string; llmMockRecord?: string; stream?: boolean; hideReasoning?: boolean }, cmd: Command) => {
      const raw = ((cmd.parent as unknown as { rawArgs?: string[] } | null)?.rawArgs ?? []) as string[];
      const dash = raw.indexOf("--");
      const argv = dash >= 0 ? raw.slice(dash + 1) : [];
      // Positionals before `--` (commander may or may not keep the `--`).
      let positionals = [file, ...rest].filter((x): x is string => x !== undefined);
      const k = positionals.indexOf("--");
      if (k >= 0) positionals = positionals.slice(0, k);
      else if (dash >= 0) positionals = positionals.slice(0, Math.max(0, positionals.length - argv.length));
      if (opts.e !== undefined && positionals.length > 0) {
        cmd.error("error: `harn run` accepts either `-e <code>` or `<file.harn>`, not both", { exitCode: 2 });
      }
      if (opts.e === undefined && positionals.length === 0) cmd.error("error: `harn run` requires either `-e <code>` or `<file.harn>`", { exitCode: 2 });
      if (positionals.length > 1) cmd.error(`error: unexpected argument '${positionals[1]}' (arguments for the script go after \`--\`)`, { exitCode: 2 });
      if (opts.deny !== undefined && opts.allow !== undefined) cmd.error("error: the argument '--deny <builtins>' cannot be used with '--allow <builtins>'", { exitCode: 2 });
      file = positionals[0];
      const code = await runCommand({
        file,
        inline: opts.e,
        argv,
        deny: opts.deny,
        allow: opts.allow,
        backgroundGraceMs: opts.backgroundGrace,
        llmMock: opts.llmMock,
        llmMockRecord: opts.llmMockRecord,
        stream: opts.stream === true,
        hideReasoning: opts.hideReasoning === true,
      });
      setExitCode(code);
    });
}

/** `--background-grace`: `500ms`, `30s`, `5m`, `1h`, or plain seconds. */
function parseGrace(v: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(v);
  if (!m) usage(`invalid duration '${v}' (expected e.g. 30s, 5m or 0)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? "s") as "ms" | "s" | "m" | "h"];
  return Math.round(Number(m[1]) * unit);
}

