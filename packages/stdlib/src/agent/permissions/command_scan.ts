/**
 * The deterministic command scans of command policies
 * (spec/agents-surface.md §5.3): risk labels of a command's text before
 * it runs, and of its output after.
 */
import { isAbsolute, relative, resolve } from "node:path";

export interface Scan {
  action: string;
  labels: string[];
  confidence: number;
  rationale: string;
}

const CREDENTIAL_NAMES = [".env", "id_rsa", "id_ed25519", ".aws/credentials", ".npmrc", ".netrc", "credentials", "secret", "token", "api_key", "apikey"];
const PACKAGE_INSTALLS = ["npm install", "pnpm add", "yarn add", "pip install", "cargo install", "brew install", "apt install", "apt-get install"];
const DENIED = new Set(["destructive", "curl_pipe_shell", "credential_file_read", "network_exfil"]);

function word(text: string, ...words: string[]): string | undefined {
  return words.find((w) => new RegExp(`(?:^|[^a-z0-9_.-])${w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:$|[^a-z0-9_-])`).test(text));
}

function firstIn(text: string, needles: readonly string[]): string | undefined {
  return needles.find((n) => text.includes(n));
}

/** Whether `path` lies in one of `roots` (the roots themselves included). */
export function insideRoots(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = relative(resolve(root), resolve(path));
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
}

/** Absolute paths in a command text (tokens starting with `/`). */
function absolutePaths(text: string): string[] {
  return [...text.matchAll(/(?:^|[\s='"])(\/[^\s'";|&<>]*)/g)].map((m) => m[1]!).filter((p) => p !== "/dev/null");
}

/**
 * The risk scan of a command text (lower-cased), its working directory
 * and the workspace roots it should stay in.
 */
export function riskScan(command: string, cwd: string | null, roots: readonly string[], extra: readonly [string, string][] = []): Scan {
  const text = command.toLowerCase();
  const found: [string, string][] = [];
  const add = (label: string, why: string | undefined) => {
    if (why !== undefined) found.push([label, why]);
  };
  add("destructive", firstIn(text, ["rm -rf /", "rm -fr /", "mkfs", "dd if=", ":(){", "chmod -r 777 /", "chown -r "]));
  add("write_intent", firstIn(text, [" >", ">>", " tee ", "sed -i", "perl -pi", "truncate "]) ?? (text.startsWith("tee ") ? "tee " : undefined));
  const fetcher = word(text, "curl", "wget");
  if (fetcher !== undefined && text.includes("|")) add("curl_pipe_shell", firstIn(text, [" sh", " bash", " zsh"]) && `${fetcher} | shell`);
  const reader = firstIn(text, ["cat ", "less ", "head ", "tail ", "grep "]);
  const secret = firstIn(text, CREDENTIAL_NAMES);
  if (reader !== undefined && secret !== undefined) add("credential_file_read", `${reader.trim()} ${secret}`);
  add("network_exfil", word(text, "curl", "wget", "scp", "rsync", "nc", "ncat"));
  add("sudo", word(text, "sudo"));
  add("package_install", firstIn(text, PACKAGE_INSTALLS));
  if (/\bgit\s+push\b/.test(text)) add("git_force_push", text.match(/(?:^|\s)(--force(?:-with-lease)?|-f)(?:\s|$)/)?.[1]);
  add("process_kill", word(text, "kill", "pkill", "killall"));
  if (roots.length > 0) {
    const outside = [...(cwd !== null ? [cwd] : []), ...absolutePaths(command)].find((p) => !insideRoots(p, roots));
    add("outside_workspace", outside);
  }
  for (const [label, why] of extra) add(label, why);
  const labels = [...new Set(found.map(([l]) => l))].sort();
  const action = labels.length === 0 ? "allow" : labels.some((l) => DENIED.has(l)) ? "deny" : "require_approval";
  return {
    action,
    labels,
    confidence: labels.length === 0 ? 0.45 : 0.86,
    rationale: found.length === 0 ? "no high-risk command patterns detected" : found.map(([l, why]) => `${l}: ${why.trim()}`).join("; "),
  };
}

const SECRET_PATTERNS: readonly RegExp[] = [
  /AKIA[0-9A-Z]{16}/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\bsk-[A-Za-z0-9_-]{16,}/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /\b(?:password|passwd|secret|api_key|apikey|token)\s*[=:]\s*\S{6,}/i,
];

/** The scan of a command's output. */
export function resultScan(output: string): Scan {
  const found: [string, string][] = [];
  const secret = SECRET_PATTERNS.find((p) => p.test(output));
  if (secret !== undefined) found.push(["credential_output", "secret-like text in the output"]);
  const lower = output.toLowerCase();
  const boundary = firstIn(lower, ["permission denied", "operation not permitted"]);
  if (boundary !== undefined) found.push(["permission_boundary_hit", boundary]);
  const error = firstIn(lower, ["fatal:", "error:"]);
  if (error !== undefined) found.push(["error_output", error]);
  const labels = found.map(([l]) => l).sort();
  return {
    action: labels.includes("credential_output") ? "mark_unsafe" : "allow",
    labels,
    confidence: labels.length === 0 ? 0.45 : 0.86,
    rationale: found.length === 0 ? "no notable output patterns detected" : found.map(([l, why]) => `${l}: ${why.trim()}`).join("; "),
  };
}
