/**
 * Human-in-the-loop requests at the terminal (agents-surface.md §6): under
 * `harn run` with stdin a terminal, a request without a host or mock asks
 * the person there. A real pseudo-terminal drives the built CLI (Python's
 * `pty` module, present wherever the suite runs); with stdin a pipe the
 * request waits for its timeout instead.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cliSandbox, harnBin, runCli } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-hitl-", harn: "built", colour: "plain", timeout: 50_000 });

/** Run `harn run <script>` in a pty; each answer is typed once `waitFor`
 * appears in the output. Returns everything the terminal showed. */
const DRIVER = `
import json, os, pty, select, sys, time
harn, script, steps = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
pid, fd = pty.fork()
if pid == 0:
    os.execvp("node", ["node", harn, "run", script])
out = b""
def read_some(deadline):
    global out
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return False
            if not chunk:
                return False
            out += chunk
            return True
    return True
pos = 0
for wait_for, answer in steps:
    deadline = time.time() + 20
    while wait_for.encode() not in out[pos:] and time.time() < deadline:
        if not read_some(deadline):
            break
    pos = out.index(wait_for.encode(), pos) + len(wait_for) if wait_for.encode() in out[pos:] else len(out)
    os.write(fd, (answer + "\\n").encode())
deadline = time.time() + 20
while read_some(deadline):
    pass
_, status = os.waitpid(pid, 0)
print(json.dumps({"out": out.decode(errors="replace"), "code": os.waitstatus_to_exitcode(status)}))
`;

function inPty(script: string, steps: [string, string][]): { out: string; code: number } {
  const r = spawnSync("python3", ["-c", DRIVER, harnBin, script, JSON.stringify(steps)], { cwd: cli.dir, encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`pty driver failed: ${r.stderr}`);
  const parsed = JSON.parse(r.stdout) as { out: string; code: number };
  return { out: parsed.out.replace(/\r\n/g, "\n"), code: parsed.code };
}

describe("human in the loop at the terminal", () => {
  it("asks questions and approvals at a terminal and goes on with the answers", () => {
    const script = cli.file(
      "ask.harn",
      [
        'let name = ask_user("Your name?")',
        'println("hello " + name)',
        'let n = ask_user("How many?", {default: 0})',
        "println(n + 1)",
        'let a = request_approval("deploy to prod")',
        'println("approved " + to_string(a.approved))',
        'try { request_approval("drop the database") } catch (e) { println(e.name) }',
        'println(dual_control(2, 2, { -> "launched" }, ["ann", "bob"]))',
        'println(escalate_to("oncall", "disk full").status)',
        "println(hitl_pending())",
      ].join("\n"),
    );
    const r = inPty(script, [
      ["> ", "Ada"],
      ["How many?", "41"],
      ["Approve? [y/N] ", "y"],
      ["Approve? [y/N] ", "n"],
      ["Reviewer: ", "ann"],
      ["Approve? [y/N] ", "y"],
      ["Reviewer: ", "bob"],
      ["Approve? [y/N] ", "yes"],
      ["Accept? [y/N] ", "y"],
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("[harn] Your name?\n> Ada\nhello Ada\n");
    expect(r.out).toContain("[harn] How many?\n> 41\n42\n");
    expect(r.out).toContain("[harn] approval requested: deploy to prod\nApprove? [y/N] y\napproved true\n");
    expect(r.out).toContain("[harn] approval requested: drop the database\nApprove? [y/N] n\nApprovalDeniedError\n");
    expect(r.out).toContain("[harn] approval requested: dual control (2 of 2) (2 approvals needed; reviewers: ann, bob)\nReviewer: ann\nApprove? [y/N] y\nReviewer: bob\nApprove? [y/N] yes\nlaunched\n");
    expect(r.out).toContain("[harn] escalation to oncall: disk full\nAccept? [y/N] y\naccepted\n[]\n");
  });

  it("does not prompt when stdin is not a terminal: the request waits for its timeout", () => {
    const script = cli.file("wait.harn", 'try { ask_user("Anyone?", {timeout: 200}) } catch (e) { println(e.name) }\n');
    const r = runCli(harnBin, ["run", script], { cwd: cli.dir, timeout: 30_000 });
    expect(r).toMatchObject({ code: 0, stdout: "HumanTimeoutError\n" });
    expect(r.stderr).not.toContain("Anyone?");
  });
});
