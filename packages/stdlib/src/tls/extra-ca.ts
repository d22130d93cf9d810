/**
 * Trusting the CA bundle that harn deferred (`Runtime.extraCaCertsFile`,
 * see cli/src/deferred-ca.ts): Node parses NODE_EXTRA_CA_CERTS at start-up
 * unless the CLI moves it aside, and then the TLS clients here must trust
 * it themselves, with the same effect for the user: Node's default roots
 * plus the bundle, and Node's warning (once) when the file cannot be read.
 *
 * One secure context per runtime, built on the first TLS connection and
 * passed to every client as `secureContext`: parsing the ~300 certificates
 * costs about as much as Node's start-up did, so it must happen at most
 * once, never per connection (as a per-connection `ca` option would).
 * Without a deferred file every function here returns undefined at no cost,
 * and the clients keep Node's defaults.
 */
import type { SecureContext } from "node:tls";
import { RuntimeSlot, type Runtime } from "@harn/vm";
import { readFileSync } from "node:fs";
import { nodeTls } from "../core/node-builtins";
import { strerrorText } from "../core/oserror";

interface ExtraCa {
  /** Undefined until first asked for; null when there is nothing to add
   * (the file could not be read: Node's store alone, as Node does). */
  context: SecureContext | null | undefined;
}

const extraCaSlot = new RuntimeSlot<ExtraCa>("tls.extraCa", () => ({ context: undefined }));

/**
 * The secure context trusting Node's roots and the deferred bundle, for
 * `tls.connect`'s `secureContext`; undefined when nothing was deferred or
 * the bundle could not be loaded (then the default context applies).
 */
export function extraCaContext(rt: Runtime): SecureContext | undefined {
  const file = rt.extraCaCertsFile;
  if (file === null) return undefined;
  const state = rt.slot(extraCaSlot);
  if (state.context === undefined) state.context = load(rt, file);
  return state.context ?? undefined;
}

/** `{ secureContext }` for TLS connect options, or undefined (no change). */
export function extraCaConnectOptions(rt: Runtime): { secureContext: SecureContext } | undefined {
  const secureContext = extraCaContext(rt);
  return secureContext ? { secureContext } : undefined;
}

function load(rt: Runtime, file: string): SecureContext | null {
  const tls = nodeTls();
  let pem: string;
  try {
    pem = readFileSync(file, "latin1");
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    // Node reads the file with OpenSSL's BIO_new_file, which opens a
    // directory without complaint and finds no certificates in it.
    if (err.code === "EISDIR") return null;
    rt.stderr.write(`Warning: Ignoring extra certs from \`${file}\`, load failed: ${opensslSystemError(err)}\n`);
    return null;
  }
  try {
    return tls.createSecureContext({ ca: [...tls.rootCertificates, pem] });
  } catch (e) {
    rt.stderr.write(`Warning: Ignoring extra certs from \`${file}\`, load failed: ${(e as Error).message}\n`);
    return null;
  }
}

/**
 * The text OpenSSL 3 gives a failed `fopen` (what Node prints):
 * `error:80000002:system library::No such file or directory`, the code
 * being the system-error flag plus errno.
 */
function opensslSystemError(err: NodeJS.ErrnoException): string {
  const errno = typeof err.errno === "number" ? Math.abs(err.errno) : 0;
  const code = (0x80000000 + errno).toString(16).toUpperCase().padStart(8, "0");
  const text = strerrorText(err.code) ?? err.message.replace(/^[A-Z]+: /, "").replace(/,.*$/, "");
  return `error:${code}:system library::${text}`;
}
