/**
 * NODE_EXTRA_CA_CERTS, deferred. Node parses that CA bundle at start-up in
 * every process (~50 ms of CPU for a common 220 KB bundle, more than the
 * rest of a short `harn run`), yet only scripts that make HTTPS requests
 * need it. So `cli/bin/harn.cjs`, run as a program, starts Node with the
 * value moved to HARN_DEFERRED_EXTRA_CA_CERTS; this module, evaluated
 * before any other CLI code, moves it back, so that scripts (`env(...)`)
 * and child processes see the user's environment unchanged, and remembers
 * the file for the runtime's TLS clients (stdlib `tls/extra-ca.ts`), which
 * trust it from their first connection on.
 *
 * The file is a fact about the process, fixed once here before anything
 * else runs, like `process.env` itself; hosts pass it to each Runtime
 * (`RuntimeOptions.extraCaCertsFile`).
 */

const DEFERRED = "HARN_DEFERRED_EXTRA_CA_CERTS";

function takeDeferred(env: NodeJS.ProcessEnv): string | null {
  const file = env[DEFERRED];
  if (file === undefined) return null;
  delete env[DEFERRED];
  if (file === "") return null;
  env.NODE_EXTRA_CA_CERTS = file;
  return file;
}

const deferred = takeDeferred(process.env);

/** The CA bundle that Node did not load because harn deferred it; null when
 * Node loaded NODE_EXTRA_CA_CERTS itself or it is not set. */
export function deferredExtraCaCerts(): string | null {
  return deferred;
}
