/**
 * The engine of `harn chat`: the script engine plus the agent layer's chat
 * API, loaded together through one dynamic import (engine.ts) since chat
 * always needs both.
 */
export * from "./host";
export { chatExchange, collectTools, savedMessages } from "@harn/stdlib/agent";
