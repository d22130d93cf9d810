/**
 * Every builtin and method of the core stdlib, called with odd arguments
 * (nil, negatives, huge and big ints, NaN, NUL bytes, empty and nested
 * collections, handles), either answers or raises a HarnError: a
 * JavaScript exception would reach the user as an internal error.
 */
import { it, expect } from "vitest";
import { installModules } from "../../src/registry/define";
import { float, HBytes, HDict, HDuration, HRange, HSet, HarnError, isPromise, Runtime, type Value } from "@harn/vm";
import { ASSERT_BUILTINS } from "../../src/core/assert";
import { ATOMIC_BUILTINS } from "../../src/core/atomics";
import { CHANNEL_BUILTINS } from "../../src/core/channels";
import { BYTES_BUILTINS } from "../../src/core/bytes";
import { CIRCUITS_BUILTINS } from "../../src/core/circuit";
import { CONVERT_BUILTINS } from "../../src/core/convert";
import { ENCODING_BUILTINS } from "../../src/core/encoding";
import { ENV_BUILTINS } from "../../src/core/env";
import { FS_BUILTINS } from "../../src/core/fs";
import { HOST_BUILTINS } from "../../src/core/host";
import { ITER_BUILTINS } from "../../src/core/iter";
import { JSON_BUILTINS } from "../../src/core/json";
import { LISTS_BUILTINS } from "../../src/core/lists";
import { LOGGING_BUILTINS } from "../../src/core/logging";
import { MATH_BUILTINS } from "../../src/core/math";
import { OUTPUT_BUILTINS } from "../../src/core/output";
import { PATHS_BUILTINS } from "../../src/core/paths";
import { PROCESS_BUILTINS } from "../../src/core/process";
import { RANDOM_BUILTINS } from "../../src/core/random";
import { RESULT_BUILTINS } from "../../src/core/result";
import { SETS_BUILTINS } from "../../src/core/sets";
import { SHARED_BUILTINS } from "../../src/core/shared";
import { SLEEP_BUILTINS } from "../../src/core/sleep";
import { STRINGS_BUILTINS } from "../../src/core/strings";
import { TERMINAL_BUILTINS } from "../../src/core/terminal";

const CORE = [OUTPUT_BUILTINS, TERMINAL_BUILTINS, LOGGING_BUILTINS, CONVERT_BUILTINS, RESULT_BUILTINS, STRINGS_BUILTINS, LISTS_BUILTINS, SETS_BUILTINS, MATH_BUILTINS,
  RANDOM_BUILTINS, JSON_BUILTINS, ASSERT_BUILTINS, ITER_BUILTINS, PATHS_BUILTINS, FS_BUILTINS, ENV_BUILTINS, PROCESS_BUILTINS, HOST_BUILTINS, ENCODING_BUILTINS,
  BYTES_BUILTINS, SLEEP_BUILTINS, CIRCUITS_BUILTINS, SHARED_BUILTINS, CHANNEL_BUILTINS, ATOMIC_BUILTINS];
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
  installModules(core, CORE);
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
