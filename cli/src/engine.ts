/**
 * The evaluator and the stdlib are most of the CLI's code. Commands load
 * them through these dynamic imports, so that commands which do not run
 * scripts (`check`, `lint`, `--version`, `--help`) never pay for parsing
 * them at start-up (the bundle is split at this boundary, cli/build.mjs).
 */
export type Engine = typeof import("./host");
/** The engine with the agent layer's chat API (`harn chat`). */
export type ChatEngine = typeof import("./chat-host");

export function loadEngine(): Promise<Engine> {
  return import("./host");
}

export function loadChatEngine(): Promise<ChatEngine> {
  return import("./chat-host");
}
