/**
 * `parse_junit_xml` (spec/stdlib.md §23): one dict per `<testcase>` in
 * document order. A forgiving scanner rather than a full XML parser: JUnit
 * reports are flat and often slightly malformed, and the reference reads
 * them the same way.
 */
import { HBytes, HDict, type Value } from "@harn/vm";
import { display } from "@harn/vm";
import { builtinModule } from "../registry/define";

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

export function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (m, e: string) => {
    if (e.startsWith("#x")) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith("#")) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? m;
  });
}

function attrs(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of tag.matchAll(/([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*("([^"]*)"|'([^']*)')/g)) {
    out.set(m[1]!, unescapeXml(m[3] ?? m[4] ?? ""));
  }
  return out;
}

/** Text content of an element body: CDATA kept verbatim, tags dropped. */
function text(body: string): string {
  let out = "";
  const re = /<!\[CDATA\[([\s\S]*?)\]\]>|<[^>]*>|([^<]+)/g;
  for (const m of body.matchAll(re)) {
    if (m[1] !== undefined) out += m[1];
    else if (m[2] !== undefined) out += unescapeXml(m[2]);
  }
  return out;
}

/** The first `<name …>` child of `body`: its attributes and inner text. */
function child(body: string, name: string): { attrs: Map<string, string>; text: string } | null {
  const open = new RegExp(`<${name}(\\s[^>]*?)?(/?)>`).exec(body);
  if (!open) return null;
  const a = attrs(open[1] ?? "");
  if (open[2] === "/") return { attrs: a, text: "" };
  const rest = body.slice(open.index + open[0].length);
  const close = rest.indexOf(`</${name}>`);
  return { attrs: a, text: text(close < 0 ? rest : rest.slice(0, close)) };
}

export function parseJunit(xml: string): Value[] {
  const cases: Value[] = [];
  const re = /<testcase(\s[^>]*?)?(\/?)>/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(xml)) !== null) {
    const a = attrs(m[1] ?? "");
    let body = "";
    if (m[2] !== "/") {
      const end = xml.indexOf("</testcase>", re.lastIndex);
      body = end < 0 ? xml.slice(re.lastIndex) : xml.slice(re.lastIndex, end);
      if (end >= 0) re.lastIndex = end + "</testcase>".length;
    }
    const cls = a.get("classname") ?? "";
    const name = cls !== "" ? `${cls}::${a.get("name") ?? ""}` : (a.get("name") ?? "");
    const failure = child(body, "failure");
    const error = failure ? null : child(body, "error");
    const skipped = /<skipped[\s/>]/.test(body);
    const status = failure ? "failed" : error ? "errored" : skipped ? "skipped" : "passed";
    let message: Value = null;
    const problem = failure ?? error;
    if (problem) {
      const attr = problem.attrs.get("message");
      const t = problem.text.trim();
      if (attr !== undefined) message = t !== "" ? `${attr}\n${t}` : attr;
      else if (t !== "") message = t;
    }
    const time = Number(a.get("time"));
    const duration = Number.isFinite(time) && time > 0 ? Math.trunc(time * 1000) : 0;
    const out = child(body, "system-out");
    const err = child(body, "system-err");
    cases.push(
      HDict.of({
        name,
        status,
        duration_ms: duration,
        message,
        stdout: out ? out.text.trim() : null,
        stderr: err ? err.text.trim() : null,
      }),
    );
  }
  return cases;
}

export const JUNIT_BUILTINS = builtinModule("formats/junit", (def) => {
  def("parse_junit_xml", (args) => {
    const v = args[0] ?? null;
    let xml: string;
    if (v instanceof HBytes) {
      try {
        xml = new TextDecoder("utf-8", { fatal: true }).decode(v.data);
      } catch {
        return [];
      }
    } else xml = typeof v === "string" ? v : display(v);
    if (!xml.includes("<testcase")) return [];
    return parseJunit(xml);
  });
});
