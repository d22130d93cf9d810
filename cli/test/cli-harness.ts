/**
 * How the CLI end-to-end tests run `harn`: as a real child process, in a
 * temp dir of their own, with the result as `{code, stdout, stderr}`.
 *
 * Two kinds of `harn`, on purpose:
 * - "built": `cli/bin/harn.cjs` over `cli/dist`, rebuilt from the current
 *   source by `buildCli()` before the file's tests. This is what users run
 *   (the sh launcher, the split CommonJS chunks, their V8 code caches, the
 *   lazily loaded stdlib groups), so tests of start-up, packaging, colour,
 *   signals and the commands CI relies on (run, check, lint, test) use it.
 *   cli/build.mjs renames its outputs into place, so files building at the
 *   same time never see half a bundle.
 * - "one-file": a single-file bundle of the same source written into the
 *   temp dir (`bundleHarn`), independent of `cli/dist`, so the file neither
 *   waits on nor races another file's build. For commands whose behaviour
 *   does not depend on how the CLI is packaged (fmt, viz, bench, init, ...).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { bundleHarn } from "./harn-bundle";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The launcher of the built CLI (a sh script that execs node on itself). */
export const harnBin = join(repoRoot, "cli/bin/harn.cjs");

/** Build cli/dist from the current source. */
export function buildCli(): void {
  const build = spawnSync(process.execPath, [join(repoRoot, "cli/build.mjs")], { encoding: "utf8" });
  if (build.status !== 0) throw new Error(`cli/build.mjs failed: ${build.stderr}`);
}

/** What a user sees of one `harn` run. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The colour variables a child gets: "plain" sets NO_COLOR=1 and removes
 * FORCE_COLOR (colourless output whatever the developer's shell has);
 * "unset" removes both (so a test can set one itself: Node warns when both
 * are set, even if empty); "inherit" passes the parent's through.
 */
export type Colour = "plain" | "unset" | "inherit";

/** The parent's environment with `colour` applied, then `extra` added. */
export function harnEnv(colour: Colour, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (colour === "plain") env.NO_COLOR = "1";
  if (colour === "unset") delete env.NO_COLOR;
  if (colour !== "inherit") delete env.FORCE_COLOR;
  return { ...env, ...extra };
}

export interface SpawnOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeout?: number;
  /** "node": `node BIN ...` (the default); "launcher": exec BIN itself, through its `#!` line. */
  via?: "node" | "launcher";
}

/** Runs `bin args` to its end. */
export function runCli(bin: string, args: string[], options: SpawnOptions = {}): CliResult {
  const { cwd, env, timeout, via = "node" } = options;
  const [command, argv] = via === "launcher" ? [bin, args] : [process.execPath, [bin, ...args]];
  const r = spawnSync(command, argv, { cwd, env, timeout, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Writes `text` to `name` under `dir` (creating parent dirs); returns `name`. */
export function writeIn(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return name;
}

export interface SandboxOptions {
  /** Prefix of the temp dir's name. */
  prefix: string;
  harn: "built" | "one-file";
  colour: Colour;
  /** Added to every run's environment. */
  env?: Record<string, string>;
  /** Kills a run that takes longer (a hang detector, not a threshold). */
  timeout: number;
  /** A fresh temp dir for each test instead of one for the file. */
  dirPerTest?: boolean;
  /** Puts a `.git` dir in the temp dir, so harn.toml discovery stops there. */
  gitRoot?: boolean;
}

export interface Sandbox {
  /** The temp dir (runs start there); set once the file's hooks ran. */
  readonly dir: string;
  /** The `harn` the runs use. */
  readonly bin: string;
  /** Runs harn in `dir` (or `cwd`), with `env` added to the sandbox's. */
  harn(args: string[], options?: { cwd?: string; env?: Record<string, string> }): CliResult;
  /** Writes a file under `dir`; returns its name. */
  file(name: string, text: string): string;
}

/**
 * Registers the hooks that make a `harn` of the chosen kind and a temp dir
 * before the tests and remove the dir after them; call at a test file's
 * top level.
 */
export function cliSandbox(options: SandboxOptions): Sandbox {
  let dir = "";
  let bin = options.harn === "built" ? harnBin : "";
  const makeDir = () => {
    dir = mkdtempSync(join(tmpdir(), options.prefix));
    if (options.gitRoot) mkdirSync(join(dir, ".git"));
  };
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  beforeAll(async () => {
    if (options.harn === "built") buildCli();
    if (!options.dirPerTest) makeDir();
    if (options.harn === "one-file") {
      // the bundle lives in a dir of its own when the test dirs come and go
      const home = options.dirPerTest ? mkdtempSync(join(tmpdir(), options.prefix)) : dir;
      bin = join(home, "harn.mjs");
      await bundleHarn(bin);
    }
  });
  if (options.dirPerTest) {
    beforeEach(makeDir);
    afterEach(removeDir);
    if (options.harn === "one-file") afterAll(() => rmSync(dirname(bin), { recursive: true, force: true }));
  } else {
    afterAll(removeDir);
  }
  return {
    get dir() {
      return dir;
    },
    get bin() {
      return bin;
    },
    harn: (args, run = {}) =>
      runCli(bin, args, { cwd: run.cwd ?? dir, env: harnEnv(options.colour, { ...options.env, ...run.env }), timeout: options.timeout }),
    file: (name, text) => writeIn(dir, name, text),
  };
}
