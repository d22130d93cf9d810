/**
 * User journeys end to end: realistic scripts that combine several features,
 * run through `harn` as a child process, pinned where a user hit something
 * that surprised them.
 */
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-journeys-", harn: "one-file", colour: "plain", env: { HARN_LLM_CALLS_DISABLED: "1" }, timeout: 60_000 });
const { harn, file } = cli;

describe("agent journeys", () => {
  it("tools: [a, b] over two tool declarations offers both tools to the model", () => {
    // Each `tool` declaration binds a one-tool registry; listing them is the
    // natural way to give a loop several tools. The model's calls used to be
    // refused as "not available in the current environment".
    file(
      "two_tools.harn",
      `tool add(a: int, b: int) -> int {
  description "Add two numbers"
  return a + b
}

tool owner(name: string) -> string {
  description "Who owns a service"
  return "alice owns " + name
}

pipeline main() {
  llm_mock({text: "", tool_calls: [{name: "add", arguments: {a: 2, b: 3}}, {name: "owner", arguments: {name: "api"}}]})
  llm_mock({text: "5, and alice. ##DONE##"})
  let r = agent_loop("Add 2 and 3; who owns the api?", nil, {provider: "mock", tools: [add, owner], tool_format: "native", persistent: true})
  println(r.status)
  println(r.tools.successful)
  println(r.tools.rejected)
  let results = r.transcript.messages.filter({ m -> m.role == "tool" }).map({ m -> m.content })
  println(results)
}
`,
    );
    const r = harn(["run", "two_tools.harn"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("done\n[add, owner]\n[]\n[5, alice owns api]\n");
    expect(r.code).toBe(0);
  });
});
