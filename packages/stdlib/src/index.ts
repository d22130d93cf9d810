/**
 * The Harn standard library: builtins and method tables, installed into a
 * Runtime. Each domain has its own `install…` function; `installStdlib`
 * installs them all.
 */
import type { Runtime } from "@harn/vm";
import { installOutput } from "./core/output";
import { installConvert } from "./core/convert";
import { installRegex } from "./regex/builtins";
import { installTime } from "./time/builtins";

export function installStdlib(rt: Runtime): void {
  installOutput(rt);
  installConvert(rt);
  installRegex(rt);
  installTime(rt);
}
