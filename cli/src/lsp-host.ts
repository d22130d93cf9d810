/**
 * What `harn lsp` knows from the runtime, handed to @harn/lsp: the
 * builtins (names from the build's knowledge file, as `harn lint` reads
 * them, with signature, documentation and group from the builtin table
 * the build generates from the stdlib's registry), the names the checker counts as defined (from a runtime with the
 * interpreter's builtins, as `harn check` takes them), the bundled std
 * modules, `harn run`'s import resolution, `harn fmt`'s `[fmt]` options
 * and `harn check`'s preflight with its `[check]` severity.
 */
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "@harn/lint";
import { startServer, type BuiltinDoc, type LanguageHost } from "@harn/lsp";
import { CheckConfigResolver } from "./check-config";
import { besideBundle, runtimeKnowledge } from "./commands/lint-run";
import { formatOptionsFor } from "./commands/fmt";
import { loadEngine } from "./engine";
import { isFile, resolveModulePath } from "./module-path";
import { preflightDiagnostics } from "./preflight";

export async function buildLanguageHost(): Promise<LanguageHost> {
  const known = await runtimeKnowledge();
  const { checkerBuiltins } = await loadEngine();
  const stdModules = new Map(known.stdModules);
  const stdNames = new Set(stdModules.keys());
  const builtins = new Map<string, BuiltinDoc>();
  for (const name of known.builtins) builtins.set(name, { name, signature: null, doc: null, group: null });
  for (const row of builtinTable()) builtins.set(row.name, row);
  return {
    builtins,
    checkerBuiltins: checkerBuiltins(),
    stdModules,
    resolveImport: (fromFile, path, isOpen) => resolveModulePath(fromFile, path, stdModules, process.cwd(), (f) => isOpen(f) || isFile(f)),
    formatOptions: (file) => formatOptionsFor(dirname(file), () => undefined),
    extraChecks(program, file) {
      let severity;
      try {
        severity = new CheckConfigResolver().forFile(file).preflightSeverity ?? "error";
      } catch (e) {
        if (e instanceof ConfigError) return [];
        throw e;
      }
      return preflightDiagnostics(program, file, { stdModules: stdNames }, severity);
    },
  };
}

/** The builtin table the build generates from the stdlib's registry
 * (`dist/builtins.json`: name, group, signature, doc); empty when the
 * file is missing or unreadable (then builtins are known by name only). */
function builtinTable(): BuiltinDoc[] {
  const url = besideBundle("builtins.json");
  if (url === null) return [];
  try {
    const { builtins } = JSON.parse(readFileSync(url, "utf8")) as { builtins: BuiltinDoc[] };
    return Array.isArray(builtins) ? builtins.filter((b) => typeof b?.name === "string") : [];
  } catch {
    return [];
  }
}

/** Serve until the client says `exit`; resolves with the exit code when
 * the client closes the connection without it. */
export async function serveLsp(): Promise<number> {
  const host = await buildLanguageHost();
  const connection = startServer({ host, input: process.stdin, output: process.stdout });
  return new Promise((done) => connection.onExit(() => done(0)));
}
