/**
 * Environment and system information (spec/stdlib.md §15.1, §15.3). The
 * environment is the run's (`runtime.env`: the process environment plus
 * run-level overrides).
 */
import { arg, strArg } from "./args";
import { nodeChildProcess, nodeOs } from "./node-builtins";
import { builtinModule } from "../registry/define";

function accountName(): string {
  try {
    return nodeOs().userInfo().username;
  } catch {
    return "";
  }
}

const ARCH: Record<string, string> = { x64: "x86_64", arm64: "aarch64", ia32: "x86", arm: "arm", ppc64: "powerpc64", s390x: "s390x", riscv64: "riscv64" };
const PLATFORM: Record<string, string> = { darwin: "darwin", linux: "linux", win32: "windows" };

export const ENV_BUILTINS = builtinModule("core/env", (def) => {
  def("env", (args, ctx) => ctx.runtime.env[strArg(args, 0)] ?? null);
  def("env_or", (args, ctx) => ctx.runtime.env[strArg(args, 0)] ?? arg(args, 1));

  // USER, USERNAME, then [TS decision] the account's name (core-gaps.md
  // §7.3: a sandbox may set neither variable).
  def("username", (_args, ctx) => ctx.runtime.env.USER ?? ctx.runtime.env.USERNAME ?? accountName());
  def("hostname", (_args, ctx) => {
    const env = ctx.runtime.env;
    const fromEnv = env.HOSTNAME ?? env.COMPUTERNAME;
    if (fromEnv !== undefined) return fromEnv;
    try {
      return nodeChildProcess().execFileSync("hostname", { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      return "";
    }
  });
  def("platform", () => PLATFORM[process.platform] ?? process.platform);
  def("arch", () => ARCH[process.arch] ?? process.arch);
  def("pid", () => process.pid);
});
