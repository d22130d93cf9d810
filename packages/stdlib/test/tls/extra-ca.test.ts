/**
 * The deferred CA bundle's secure context (src/tls/extra-ca.ts): built once
 * per runtime, only when a file was deferred, and Node's warning once when
 * the file cannot be read. (cli/test/extra-ca.test.ts drives real TLS
 * connections through `harn`.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Runtime } from "@harn/vm";
import { afterAll, describe, expect, it } from "vitest";
import { extraCaConnectOptions, extraCaContext } from "../../src/tls/extra-ca";

const cert = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../cli/test/fixtures/tls/cert.pem");
const dir = mkdtempSync(join(tmpdir(), "harn-extra-ca-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runtime(extraCaCertsFile: string | null) {
  const err: string[] = [];
  const rt = new Runtime({ stdout: { write: () => undefined }, stderr: { write: (t) => void err.push(t) }, cwd: dir, env: {}, extraCaCertsFile });
  return { rt, err };
}

describe("extraCaContext", () => {
  it("is undefined when nothing was deferred", () => {
    const { rt, err } = runtime(null);
    expect(extraCaContext(rt)).toBeUndefined();
    expect(extraCaConnectOptions(rt)).toBeUndefined();
    expect(err).toEqual([]);
  });

  it("builds one context per runtime, on first use", () => {
    const a = runtime(cert);
    const first = extraCaContext(a.rt);
    expect(first).toBeDefined();
    expect(extraCaContext(a.rt)).toBe(first);
    expect(extraCaConnectOptions(a.rt)).toEqual({ secureContext: first });
    // another runtime has its own
    expect(extraCaContext(runtime(cert).rt)).not.toBe(first);
    expect(a.err).toEqual([]);
  });

  it("warns once, as Node does, when the file cannot be read, and adds nothing", () => {
    const missing = join(dir, "missing.pem");
    const { rt, err } = runtime(missing);
    expect(extraCaContext(rt)).toBeUndefined();
    expect(extraCaContext(rt)).toBeUndefined();
    expect(err).toEqual([`Warning: Ignoring extra certs from \`${missing}\`, load failed: error:80000002:system library::No such file or directory\n`]);
  });

  it("finds no certificates in a directory, silently (Node's OpenSSL opens it)", () => {
    const { rt, err } = runtime(dir);
    expect(extraCaContext(rt)).toBeUndefined();
    expect(err).toEqual([]);
  });
});
