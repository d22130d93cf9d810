/**
 * Environment and system information (spec/stdlib.md §15.1, §15.3). The
 * environment is the run's (`runtime.env`: the process environment plus
 * run-level overrides).
 */
import { arg, strArg } from "./args";
import type { Runtime } from "@harn/vm";
import { nodeChildProcess } from "./node-builtins";

const ARCH: Record<string, string> = { x64: "x86_64", arm64: "aarch64", ia32: "x86", arm: "arm", ppc64: "powerpc64", s390x: "s390x", riscv64: "riscv64" };
const PLATFORM: Record<string, string> = { darwin: "darwin", linux: "linux", win32: "windows" };

export function installEnv(rt: Runtime): void {
  rt.defineBuiltin("env", (args, ctx) => ctx.runtime.env[strArg(args, 0)] ?? null);
  rt.defineBuiltin("env_or", (args, ctx) => ctx.runtime.env[strArg(args, 0)] ?? arg(args, 1));

  rt.defineBuiltin("username", (_args, ctx) => ctx.runtime.env.USER ?? ctx.runtime.env.USERNAME ?? "");
  rt.defineBuiltin("hostname", (_args, ctx) => {
    const env = ctx.runtime.env;
    const fromEnv = env.HOSTNAME ?? env.COMPUTERNAME;
    if (fromEnv !== undefined) return fromEnv;
    try {
      return nodeChildProcess().execFileSync("hostname", { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      return "";
    }
  });
  rt.defineBuiltin("platform", () => PLATFORM[process.platform] ?? process.platform);
  rt.defineBuiltin("arch", () => ARCH[process.arch] ?? process.arch);
  rt.defineBuiltin("pid", () => process.pid);
}
