/**
 * Daemons (spec/agents.md §4): `agent_loop` daemon mode and the durable,
 * bounded FIFO trigger queue of the `daemon_*` builtins.
 */
export { DAEMONS_BUILTINS } from "./builtins";
export { DaemonMode, type DaemonHost } from "./mode";
export { DirectoryWriter } from "./durable";
export { daemonRegistry } from "./registry";
