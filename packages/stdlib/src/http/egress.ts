/**
 * `egress_policy` (spec/stdlib.md §19.3): an outbound allow/deny list for
 * the HTTP client, SSE and WebSockets, configured once per runtime. Entries
 * are host names, `*.suffix` wildcards, IPv4 CIDR blocks or `host:port`
 * (an entry with a port matches only that port; URLs without a port use
 * 80/443). `deny` wins over `allow`; `default: "deny"` blocks unlisted
 * hosts. A blocked request throws the `EgressBlocked` dict.
 */
import { display, HarnError, HDict, RuntimeSlot, type Runtime, type Value } from "@harn/vm";
import { builtinModule } from "../registry/define";

interface Policy {
  allow: string[];
  deny: string[];
  defaultDeny: boolean;
  source: string;
}

const egressSlot = new RuntimeSlot<{ policy: Policy | null }>("http.egress", () => ({ policy: null }));

function list(v: Value): string[] {
  if (Array.isArray(v)) return v.map((x) => (typeof x === "string" ? x : display(x)).trim().toLowerCase()).filter((x) => x !== "");
  return [];
}

function ipv4(host: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

function entryMatches(entry: string, host: string, port: number): boolean {
  let e = entry;
  const portMatch = /^(.*):(\d+)$/.exec(e);
  if (portMatch && !e.includes("/")) {
    if (Number(portMatch[2]) !== port) return false;
    e = portMatch[1]!;
  }
  if (e.includes("/")) {
    const [net, bitsText] = e.split("/") as [string, string];
    const ip = ipv4(host);
    const base = ipv4(net);
    const bits = Number(bitsText);
    if (ip === null || base === null || !(bits >= 0 && bits <= 32)) return false;
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return (ip & mask) >>> 0 === (base & mask) >>> 0;
  }
  if (e.startsWith("*.")) return host.endsWith(e.slice(1));
  return host === e;
}

function defaultPort(protocol: string): number {
  return protocol === "https:" || protocol === "wss:" ? 443 : 80;
}

/** Throw the `EgressBlocked` dict when `url` is not allowed for `surface`. */
export function checkEgress(rt: Runtime, surface: string, url: string): void {
  const policy = rt.slot(egressSlot).policy;
  if (!policy) return;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return;
  }
  const host = u.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = u.port !== "" ? Number(u.port) : defaultPort(u.protocol);
  let reason: string | null = null;
  const denied = policy.deny.find((e) => entryMatches(e, host, port));
  if (denied) reason = `matched deny rule '${denied}'`;
  else if (!policy.allow.some((e) => entryMatches(e, host, port)) && policy.defaultDeny) reason = "not in allow list";
  if (reason === null) return;
  const message = `EgressBlocked: ${surface} blocked ${host}:${port} for ${url} (${reason})`;
  throw HarnError.thrown(
    HDict.of({ type: "EgressBlocked", category: "egress_blocked", message, surface, url, host, port, reason }),
  );
}

export const EGRESS_BUILTINS = builtinModule("http/egress", (def) => {
  def("egress_policy", (args, ctx) => {
    const state = ctx.runtime.slot(egressSlot);
    if (state.policy) throw HarnError.thrown(`egress_policy: policy already configured from ${state.policy.source}`);
    const o = args[0] instanceof HDict ? args[0] : HDict.empty();
    const dflt = o.get("default");
    state.policy = {
      allow: list(o.get("allow")),
      deny: list(o.get("deny")),
      defaultDeny: typeof dflt === "string" && dflt.toLowerCase() === "deny",
      source: "egress_policy()",
    };
    return null;
  });
});
