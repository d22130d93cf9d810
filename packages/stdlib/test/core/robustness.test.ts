/**
 * Every builtin and method of the core stdlib, called with odd arguments
 * (nil, negatives, huge and big ints, NaN, NUL bytes, empty and nested
 * collections, handles), either answers or raises a HarnError: a
 * JavaScript exception would reach the user as an internal error.
 */
import { it, expect } from "vitest";
import { float, HBytes, HDict, HDuration, HRange, HSet, HarnError, isPromise, Runtime, type Value } from "@harn/vm";
import { installAssert } from "../../src/core/assert";
import { installBytes } from "../../src/core/bytes";
import { installCircuits } from "../../src/core/circuit";
import { installConvert } from "../../src/core/convert";
import { installEncoding } from "../../src/core/encoding";
import { installEnv } from "../../src/core/env";
import { installFs } from "../../src/core/fs";
import { installHost } from "../../src/core/host";
import { installIter } from "../../src/core/iter";
import { installJson } from "../../src/core/json";
import { installLists } from "../../src/core/lists";
import { installLogging } from "../../src/core/logging";
import { installMath } from "../../src/core/math";
import { installOutput } from "../../src/core/output";
import { installPaths } from "../../src/core/paths";
import { installProcess } from "../../src/core/process";
import { installRandom } from "../../src/core/random";
import { installResult } from "../../src/core/result";
import { installSets } from "../../src/core/sets";
import { installShared } from "../../src/core/shared";
import { installSleep } from "../../src/core/sleep";
import { installStrings } from "../../src/core/strings";
import { installTerminal } from "../../src/core/terminal";

const CORE = [installOutput, installTerminal, installLogging, installConvert, installResult, installStrings, installLists, installSets, installMath,
  installRandom, installJson, installAssert, installIter, installPaths, installFs, installEnv, installProcess, installHost, installEncoding,
  installBytes, installSleep, installCircuits, installShared];
import { fn, rig } from "./harness";

/** Builtins with effects outside the runtime (files, processes, stdin) or
 * that wait; they have their own tests. */
const SKIP = new Set([
  "exec", "exec_at", "shell", "shell_at", "write_file", "write_file_bytes", "append_file", "delete_file", "mkdir", "move_file", "copy_file",
  "read_line", "read_stdin", "prompt_user", "sleep", "mailbox_receive", "host_call",
]);
const SAMPLES: Value[] = [null, -1, 0, 9999999999, 9223372036854775807n, float(NaN), float(-1.5), "", "x\u0000y", [1, "a"], [], HDict.of({ a: 1 }),
  new HSet([1]), new HRange(5, 1, true), new HBytes(new Uint8Array([255])), new HDuration(5), fn(() => 1), true];
const SECOND: Value[] = [null, -1, 9999999999, "", [1], float(NaN)];

it("core builtins and methods never leak JavaScript errors", async () => {
  const r = rig({ cwd: "/nonexistent-harn-root", env: {} });
  // only the builtins the core installs (the other domains test their own)
  const core = new Runtime({ stdout: { write() {} }, stderr: { write() {} }, cwd: "/", env: {} });
  for (const install of CORE) install(core);
  const leaks: string[] = [];
  const check = async (label: string, f: () => Value | Promise<Value>) => {
    try {
      const v = f();
      if (isPromise(v)) await v;
    } catch (e) {
      if (!(e instanceof HarnError)) leaks.push(`${label}: ${(e as Error)?.message ?? String(e)}`);
    }
  };
  const show = (v: Value) => (v === null ? "nil" : typeof v === "object" ? (Array.isArray(v) ? "list" : v.constructor.name) : String(v));
  for (const [name, b] of r.rt.builtins) {
    if (SKIP.has(name) || !core.builtins.has(name)) continue;
    await check(`${name}()`, () => b([], r.ctx));
    for (const a of SAMPLES) {
      await check(`${name}(${show(a)})`, () => b([a], r.ctx));
      for (const c of SECOND) await check(`${name}(${show(a)}, ${show(c)})`, () => b([a, c], r.ctx));
    }
  }
  const receivers: Record<string, () => Value> = {
    string: () => "héllo", list: () => [3, 1, "a", null], dict: () => HDict.of({ b: 2, a: 1 }), set: () => new HSet([1, 2]),
    range: () => new HRange(1, 4, true), iter: () => r.call("iter", [1, 2, 3]),
  };
  for (const [kind, make] of Object.entries(receivers)) {
    for (const [name, m] of r.rt.methods.get(kind) ?? []) {
      await check(`${kind}.${name}()`, () => m(make(), [], r.ctx));
      for (const a of SAMPLES) await check(`${kind}.${name}(${show(a)})`, () => m(make(), [a], r.ctx));
    }
  }
  expect(leaks).toEqual([]);
}, 60_000);
