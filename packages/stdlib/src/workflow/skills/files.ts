/**
 * Filesystem skills (spec/workflows.md §2.3, §2.4, §2.6): `SKILL.md` files
 * with YAML front matter, discovered from the project (the nearest
 * `harn.toml` above the script) into the `skills` global, their bodies
 * rendered with `skill_render`'s substitutions, and their optional
 * Ed25519 signatures (`SKILL.md.sig`).
 *
 * [TS decision, §7.1] Only the project layer (`.harn/skills/<name>/`) and
 * the manifest's `[skills] paths` are read; never the home directory.
 */
import { createHash, createPublicKey, verify } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as nodePath from "node:path";
import { parse as parseToml } from "smol-toml";
import { display, HarnError, HDict, type Runtime, type Value } from "@harn/vm";
import { findProjectRoot } from "../../core/paths";
import { skillEntries, skillRegistry } from "./registry";

export const SKILL_FILE = "SKILL.md";

/** `when-to-use` → `when_to_use`. */
const snake = (k: string) => k.replace(/-/g, "_");

export interface ParsedSkill {
  meta: HDict;
  body: string;
}

/** Split a SKILL.md into its front matter text (null when none) and body. */
export function splitSkillFile(text: string): { front: string | null; body: string } {
  const src = text.replace(/^\uFEFF/, "");
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(src);
  return m ? { front: m[1]!, body: src.slice(m[0].length) } : { front: null, body: src };
}

/** A SKILL.md's front matter (keys normalised to snake_case) and body.
 * The YAML library loads on first use (it is large, and most runs never
 * read a skill file). */
export async function parseSkillFile(text: string): Promise<ParsedSkill> {
  const { front, body } = splitSkillFile(text);
  const meta = new Map<string, Value>();
  if (front !== null && front.trim() !== "") {
    const { yamlParse } = await import("../../formats/yaml");
    const raw = yamlParse(front);
    if (raw instanceof HDict) for (const k of raw.keys()) meta.set(snake(k), raw.get(k));
  }
  return { meta: new HDict(meta), body };
}

interface SkillsConfig {
  paths: string[];
  disable: string[];
  signerRegistry: string | null;
}

function manifestConfig(root: string): SkillsConfig {
  const out: SkillsConfig = { paths: [], disable: [], signerRegistry: null };
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(readFileSync(nodePath.join(root, "harn.toml"), "utf8")) as Record<string, unknown>;
  } catch {
    return out;
  }
  const s = doc.skills;
  if (s === null || typeof s !== "object") return out;
  const sec = s as Record<string, unknown>;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  out.paths = strings(sec.paths).map((p) => nodePath.resolve(root, p));
  out.disable = strings(sec.disable);
  if (typeof sec.signer_registry_url === "string" && sec.signer_registry_url !== "") out.signerRegistry = nodePath.resolve(root, sec.signer_registry_url);
  return out;
}

const CARD_KEYS = ["short", "when_to_use", "allowed_tools", "paths", "model", "effort", "argument_hint", "user_invocable", "trusted_signers"];

/** The compact registry card of a skill (no body). */
function card(dir: string, parsed: ParsedSkill, layer: string): HDict {
  const meta = parsed.meta;
  const name = meta.get("name");
  const m = new Map<string, Value>([["name", typeof name === "string" && name !== "" ? name : nodePath.basename(dir)]]);
  for (const k of CARD_KEYS) m.set(k, meta.get(k));
  const short = meta.get("short");
  const desc = meta.get("description");
  m.set("description", typeof desc === "string" ? desc : typeof short === "string" ? short : "");
  if (meta.has("disable_model_invocation")) m.set("disable_model_invocation", meta.get("disable_model_invocation"));
  if (meta.has("namespace")) m.set("namespace", meta.get("namespace"));
  m.set("source", layer);
  m.set("skill_dir", dir);
  return new HDict(m);
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Skill directories under `root`: `root` itself when it holds a
 * SKILL.md, else each subdirectory that does. */
function skillDirs(root: string): string[] {
  if (existsSync(nodePath.join(root, SKILL_FILE))) return [root];
  if (!isDir(root)) return [];
  return readdirSync(root)
    .sort()
    .map((n) => nodePath.join(root, n))
    .filter((d) => isDir(d) && existsSync(nodePath.join(d, SKILL_FILE)));
}

/** The skills of the project at `root`, sorted by name; a SKILL.md that
 * cannot be read or parsed is skipped with a warning. */
export async function discoverSkills(root: string, warn: (text: string) => void): Promise<HDict> {
  const config = manifestConfig(root);
  const layers: [string, string[]][] = [
    ["project", [nodePath.join(root, ".harn", "skills")]],
    ["manifest", config.paths],
  ];
  const byName = new Map<string, HDict>();
  for (const [layer, roots] of layers) {
    if (config.disable.includes(layer)) continue;
    for (const r of roots) {
      for (const dir of skillDirs(r)) {
        let entry: HDict;
        try {
          entry = card(dir, await parseSkillFile(readFileSync(nodePath.join(dir, SKILL_FILE), "utf8")), layer);
        } catch (e) {
          warn(`warning: skipping skill ${nodePath.join(dir, SKILL_FILE)}: ${e instanceof HarnError ? display(e.caughtValue()) : (e as Error).message}\n`);
          continue;
        }
        const name = display(entry.get("name"));
        if (!byName.has(name)) byName.set(name, entry);
      }
    }
  }
  const names = [...byName.keys()].sort();
  return skillRegistry(names.map((n) => byName.get(n)!));
}

/**
 * Bind the `skills` global when the script at `file` runs inside a
 * project (§2.3). Hosts call it before the program runs.
 */
export async function bindProjectSkills(rt: Runtime, file: string | null): Promise<void> {
  const start = file ? nodePath.dirname(nodePath.resolve(rt.cwd, file)) : rt.cwd;
  const root = findProjectRoot(start);
  if (root === null) return;
  rt.globals.set("skills", await discoverSkills(root, (t) => rt.stderr.write(t)));
}

/** The project's discovered skills (the `skills` global), if bound. */
export function boundSkills(rt: Runtime): HDict | null {
  const v = rt.globals.get("skills");
  return v instanceof HDict && v.get("_type") === "skill_registry" ? v : null;
}

export function findSkill(reg: HDict, id: string): HDict | null {
  const list = skillEntries(reg);
  return list.find((e) => e.get("name") === id) ?? list.find((e) => typeof e.get("namespace") === "string" && `${e.get("namespace") as string}/${e.get("name") as string}` === id) ?? null;
}

// ---------------------------------------------------------------------------
// Bodies and substitutions (§2.4)

export interface RenderContext {
  args: readonly string[] | null;
  skillDir: string | null;
  sessionId: string | null;
}

/** `$$`, `$ARGUMENTS`, `$N`, `${HARN_SKILL_DIR}`, `${HARN_SESSION_ID}`,
 * left to right; anything else (and a missing `$N`) stays as written. */
export function substitute(body: string, c: RenderContext): string {
  let out = "";
  let i = 0;
  const args = c.args ?? [];
  while (i < body.length) {
    const ch = body[i]!;
    if (ch !== "$") {
      out += ch;
      i++;
      continue;
    }
    const rest = body.slice(i + 1);
    if (rest.startsWith("$")) {
      out += "$";
      i += 2;
    } else if (rest.startsWith("ARGUMENTS")) {
      out += args.join(" ");
      i += 1 + "ARGUMENTS".length;
    } else if (rest.startsWith("{HARN_SKILL_DIR}") && c.skillDir !== null) {
      out += c.skillDir;
      i += 1 + "{HARN_SKILL_DIR}".length;
    } else if (rest.startsWith("{HARN_SESSION_ID}") && c.sessionId !== null) {
      out += c.sessionId;
      i += 1 + "{HARN_SESSION_ID}".length;
    } else {
      const digits = /^[0-9]+/.exec(rest);
      if (digits) {
        const n = Number(digits[0]);
        out += n >= 1 && n <= args.length ? args[n - 1]! : `$${digits[0]}`;
        i += 1 + digits[0].length;
      } else {
        out += "$";
        i++;
      }
    }
  }
  return out;
}

/** The body of a skill entry: its `body`, else the SKILL.md in its
 * directory (a compact card), else its `prompt`. */
export function skillBody(entry: HDict): string {
  const body = entry.get("body");
  if (typeof body === "string") return body;
  const dir = entry.get("skill_dir");
  if (typeof dir === "string" && dir !== "") {
    const file = nodePath.join(dir, SKILL_FILE);
    if (existsSync(file)) return splitSkillFile(readFileSync(file, "utf8")).body;
  }
  const prompt = entry.get("prompt");
  return typeof prompt === "string" ? prompt : "";
}

export function skillDirOf(entry: HDict): string | null {
  const d = entry.get("skill_dir");
  return typeof d === "string" && d !== "" ? d : null;
}

// ---------------------------------------------------------------------------
// Signatures (§2.6, P2)

export interface SignatureStatus {
  signed: boolean;
  trusted: boolean;
  fingerprint: string | null;
  /** Why a present signature does not verify. */
  problem: string | null;
}

const UNSIGNED: SignatureStatus = { signed: false, trusted: false, fingerprint: null, problem: null };

/** Verify `SKILL.md.sig` of a skill directory against the project's signer
 * registry (`[skills] signer_registry_url`, a directory of
 * `<fingerprint>.pub` PEM files). */
export function signatureOf(entry: HDict): SignatureStatus {
  const dir = skillDirOf(entry);
  if (dir === null) return UNSIGNED;
  const sigFile = nodePath.join(dir, `${SKILL_FILE}.sig`);
  if (!existsSync(sigFile)) return UNSIGNED;
  let sig: Record<string, unknown>;
  try {
    sig = JSON.parse(readFileSync(sigFile, "utf8")) as Record<string, unknown>;
  } catch {
    return { ...UNSIGNED, problem: "signature file is not valid JSON" };
  }
  const fp = typeof sig.signer_fingerprint === "string" ? sig.signer_fingerprint : null;
  if (sig.schema !== "harn-skill-sig/v1" || fp === null || typeof sig.ed25519_sig_base64 !== "string") {
    return { ...UNSIGNED, fingerprint: fp, problem: "signature file is not a harn-skill-sig/v1 record" };
  }
  const data = readFileSync(nodePath.join(dir, SKILL_FILE));
  if (createHash("sha256").update(data).digest("hex") !== sig.skill_sha256) {
    return { ...UNSIGNED, fingerprint: fp, problem: "SKILL.md does not match the signed digest" };
  }
  const root = findProjectRoot(dir);
  const registry = root === null ? null : manifestConfig(root).signerRegistry;
  const keyFile = registry === null ? null : nodePath.join(registry, `${fp}.pub`);
  if (keyFile === null || !existsSync(keyFile)) return { ...UNSIGNED, fingerprint: fp, problem: `no public key for signer ${fp}` };
  let ok: boolean;
  try {
    ok = verify(null, data, createPublicKey(readFileSync(keyFile, "utf8")), Buffer.from(sig.ed25519_sig_base64, "base64"));
  } catch {
    ok = false;
  }
  if (!ok) return { ...UNSIGNED, fingerprint: fp, problem: "signature does not verify" };
  const listed = entry.get("trusted_signers");
  const trusted = Array.isArray(listed) && listed.length > 0 ? listed.includes(fp) : true;
  return { signed: true, trusted, fingerprint: fp, problem: null };
}
