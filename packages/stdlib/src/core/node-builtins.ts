/**
 * Node built-in modules that only a few builtins use, loaded on first use
 * instead of at start-up. Importing node:crypto, node:child_process or
 * node:os at the top of a core module made every `harn run` load them
 * (child_process alone pulls in net, dgram and the stream stack, several
 * milliseconds), though most scripts never hash, spawn or ask for the
 * user's shell; likewise node:worker_threads and node:crypto for every
 * walk_dir, glob or find_text, which need them only for large searches
 * and for commands' output artifacts, and node:zlib for every data-format
 * builtin, though only compression and archives use it.
 *
 * The builtins using them are synchronous, so a dynamic `import()` will not
 * do; `process.getBuiltinModule` (Node >= 20.16) loads a built-in
 * synchronously, with `createRequire` as the fallback on older Nodes. Node
 * caches built-ins itself, so nothing is kept here.
 */
import type * as ChildProcess from "node:child_process";
import type * as Crypto from "node:crypto";
import { createRequire } from "node:module";
import type * as Os from "node:os";
import type * as Tls from "node:tls";
import type * as WorkerThreads from "node:worker_threads";
import type * as Zlib from "node:zlib";

function builtin<T>(id: string): T {
  if (typeof process.getBuiltinModule === "function") return process.getBuiltinModule(id) as T;
  // Any absolute path will do as the base: built-ins do not resolve against it.
  return createRequire(process.execPath)(id) as T;
}

export const nodeCrypto = (): typeof Crypto => builtin("node:crypto");
export const nodeChildProcess = (): typeof ChildProcess => builtin("node:child_process");
export const nodeOs = (): typeof Os => builtin("node:os");
export const nodeTls = (): typeof Tls => builtin("node:tls");
export const nodeWorkerThreads = (): typeof WorkerThreads => builtin("node:worker_threads");
export const nodeZlib = (): typeof Zlib => builtin("node:zlib");
