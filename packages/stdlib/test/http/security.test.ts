import { createHmac } from "node:crypto";
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { display, HDict, type Value } from "@harn/vm";
import { raised, rig, settle } from "../core/harness";

function setup() {
  const r = rig();
  return r;
}
const d = (o: Record<string, Value>) => HDict.of(o);
const show = (v: Value) => display(v);

describe("jwt", () => {
  const r = setup();
  it("signs RS256 and ES256 and verifies them with the public key", () => {
    for (const [alg, kind, opts] of [
      ["RS256", "rsa", { modulusLength: 2048 }],
      ["ES256", "ec", { namedCurve: "P-256" }],
    ] as const) {
      const { privateKey, publicKey } = generateKeyPairSync(kind as "rsa", opts as { modulusLength: number });
      const token = r.call("jwt_sign", alg, d({ sub: "u1", n: 2 }), privateKey.export({ format: "pem", type: "pkcs8" }) as string) as string;
      expect(JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString())).toEqual({ typ: "JWT", alg });
      expect(show(r.call("jwt_verify", alg, token, publicKey.export({ format: "pem", type: "spki" }) as string))).toBe("{claims: {n: 2, sub: u1}, valid: true}");
    }
  });
  it("verifies HS256 and reports failures as thrown strings", async () => {
    const header = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString("base64url");
    const payload = Buffer.from('{"a":1}').toString("base64url");
    const { createHmac } = await import("node:crypto");
    const sig = createHmac("sha256", "s3cret").update(`${header}.${payload}`).digest("base64url");
    expect(show(r.call("jwt_verify", "HS256", `${header}.${payload}.${sig}`, "s3cret"))).toBe("{claims: {a: 1}, valid: true}");
    expect((await raised(() => r.call("jwt_verify", "HS256", `${header}.${payload}.${sig}`, "wrong"))).caughtValue()).toBe("jwt_verify: invalid signature");
    expect((await raised(() => r.call("jwt_verify", "HS256", "x"))).caughtValue()).toBe("jwt_verify: expected (alg, token, key)");
    expect((await raised(() => r.call("jwt_verify", "PS256", "a.b.c", "k"))).caughtValue()).toBe("jwt_verify: unsupported algorithm 'PS256'");
    const e = await raised(() => r.call("jwt_sign", "ES256", d({}), "not a pem"));
    expect(e.kind).toBe("runtime");
    expect(e.message).toMatch(/^jwt_sign: invalid private key/);
  });
});

describe("ed25519 / x25519", () => {
  const r = setup();
  it("signs, verifies and agrees with raw hex keys", async () => {
    const kp = r.call("ed25519_keypair") as HDict;
    expect(kp.get("private")).toMatch(/^[0-9a-f]{64}$/);
    const sig = r.call("ed25519_sign", kp.get("private"), "msg") as string;
    expect(sig).toMatch(/^[0-9a-f]{128}$/);
    expect(r.call("ed25519_verify", kp.get("public"), "msg", sig)).toBe(true);
    expect(r.call("ed25519_verify", kp.get("public"), "other", sig)).toBe(false);
    expect(r.call("ed25519_verify", "zz", "msg", sig)).toBe(false);
    expect((await raised(() => r.call("ed25519_sign", "zz", "m"))).caughtValue()).toMatch(/^ed25519_sign: /);
    const a = r.call("x25519_keypair") as HDict;
    const b = r.call("x25519_keypair") as HDict;
    expect(r.call("x25519_agree", a.get("private"), b.get("public"))).toBe(r.call("x25519_agree", b.get("private"), a.get("public")));
  });
});

describe("signed urls", () => {
  const r = setup();
  it("verify what was signed, and tell why not", () => {
    const url = r.call("signed_url", "https://cdn.test/file.zip?v=2", d({ user: "ada" }), "k1secret", 2000, d({ kid: "k1" })) as string;
    expect(url).toMatch(/^https:\/\/cdn\.test\/file\.zip\?exp=2000&kid=k1&sig=[A-Za-z0-9_-]{43}&user=ada&v=2$/);
    const sig = createHmac("sha256", "k1secret").update("harn-signed-url-v1\nhttps://cdn.test/file.zip\nexp=2000&kid=k1&user=ada&v=2").digest("base64url");
    expect(url).toContain(`&sig=${sig}&`);
    expect(show(r.call("verify_signed_url", url, d({ k1: "k1secret" }), 1000))).toBe(
      "{claims: {user: ada, v: 2}, expired: false, expires_at: 2000, kid: k1, reason: ok, signature_valid: true, valid: true}",
    );
    expect((r.call("verify_signed_url", url, d({ k1: "k1secret" }), 3000) as HDict).get("reason")).toBe("expired");
    expect((r.call("verify_signed_url", url.replace("ada", "eve"), d({ k1: "k1secret" }), 1000) as HDict).get("reason")).toBe("bad_signature");
    expect((r.call("verify_signed_url", url, d({ k2: "x" }), 1000) as HDict).get("reason")).toBe("unknown_key");
  });
});

describe("cookies and sessions", () => {
  const r = setup();
  it("parses headers with duplicates and invalid segments", () => {
    expect(show(r.call("cookie_parse", "a=1; b=\"two\"; a=3; junk; c="))).toBe(
      "{cookies: {a: 1, b: two, c: }, duplicates: {a: [1, 3]}, invalid: [junk], pairs: [{name: a, value: 1}, {name: b, value: two}, {name: a, value: 3}, {name: c, value: }]}",
    );
  });
  it("serializes in the documented attribute order", async () => {
    expect(r.call("cookie_serialize", "id", "42", d({ same_site: "strict", secure: true, http_only: true, expires: "Wed, 21 Oct 2026 07:28:00 GMT", max_age: 60, domain: "x.test", path: "/" }))).toBe(
      "id=42; Path=/; Domain=x.test; Max-Age=60; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly; Secure; SameSite=Strict",
    );
    expect(r.call("cookie_serialize", "a", "b")).toBe("a=b");
    expect(r.call("cookie_delete", "id")).toBe("id=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax");
    const bad = await raised(() => r.call("cookie_serialize", "bad name", "x"));
    expect(bad.description()).toBe("Runtime error: cookie: invalid cookie name 'bad name'");
    expect((await raised(() => r.call("cookie_serialize", "a", "b", d({ same_site: "none" })))).message).toBe("cookie: SameSite=None requires Secure");
  });
  it("signs and verifies values and sessions; tampering is detected", () => {
    const signed = r.call("cookie_sign", "v", "s") as string;
    expect(show(r.call("cookie_verify", signed, "s"))).toBe("{error: nil, ok: true, value: v}");
    expect(show(r.call("cookie_verify", "w" + signed.slice(1), "s"))).toBe("{error: invalid_signature, ok: false, value: nil}");
    const token = r.call("session_sign", d({ uid: 7 }), "k") as string;
    expect(token.startsWith("v1.")).toBe(true);
    expect(show(r.call("session_verify", token, "k"))).toBe("{error: nil, ok: true, payload: {uid: 7}}");
    expect((r.call("session_verify", token, "other") as HDict).get("error")).toBe("invalid_signature");
    const cookie = r.call("session_cookie", "sid", d({ uid: 7 }), "k") as string;
    expect(cookie).toMatch(/^sid=v1\.[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const header = cookie.split(";")[0]!;
    expect(show(r.call("session_from_cookies", header, "sid", "k"))).toBe("{error: nil, ok: true, payload: {uid: 7}}");
  });
  it("applies Set-Cookie lines to a Cookie header", () => {
    expect(show(r.call("cookie_round_trip", "a=1; b=2", ["b=; Max-Age=0", "c=3; Path=/"]))).toBe("{cookie_header: a=1; c=3, cookies: {a: 1, c: 3}}");
  });
});

describe("egress_policy", () => {
  it("blocks before the mock lookup, with the EgressBlocked dict", async () => {
    const r = setup();
    r.call("http_mock", "GET", "*", d({ body: "mocked" }));
    r.call("egress_policy", d({ allow: ["api.test", "*.good.test", "10.0.0.0/8", "ports.test:8443"], deny: ["bad.good.test"], default: "deny" }));
    expect((r.call("http_get", "https://api.test/x") as HDict).get("body")).toBe("mocked");
    expect((r.call("http_get", "https://a.good.test/x") as HDict).get("body")).toBe("mocked");
    expect((r.call("http_get", "http://10.1.2.3/x") as HDict).get("body")).toBe("mocked");
    expect((r.call("http_get", "https://ports.test:8443/") as HDict).get("body")).toBe("mocked");
    const blocked = await raised(() => r.call("http_get", "https://bad.good.test/x"));
    expect(show(blocked.caughtValue())).toBe(
      "{category: egress_blocked, host: bad.good.test, message: EgressBlocked: http_get blocked bad.good.test:443 for https://bad.good.test/x (matched deny rule 'bad.good.test'), port: 443, reason: matched deny rule 'bad.good.test', surface: http_get, type: EgressBlocked, url: https://bad.good.test/x}",
    );
    expect(((await raised(() => r.call("http_get", "https://ports.test/"))).caughtValue() as HDict).get("reason")).toBe("not in allow list");
    expect((await raised(() => r.call("egress_policy", d({})))).caughtValue()).toBe("egress_policy: policy already configured from egress_policy()");
  });
  it("lets http_download use a mock for a blocked host", async () => {
    const r = setup();
    r.call("http_mock", "GET", "https://blocked.test/f", d({ body: "x" }));
    r.call("egress_policy", d({ default: "deny" }));
    expect(((await settle(r.callP("http_download", "https://blocked.test/f", "/dev/null"))) as HDict).get("status")).toBe(200);
  });
});
