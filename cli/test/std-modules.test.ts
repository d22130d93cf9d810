/**
 * The std modules agents import (spec/workflows.md §5) as a user runs them:
 * separate `harn run` processes sharing what the modules keep on disk.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./cli-harness";

const box = cliSandbox({ prefix: "harn-std-modules-", harn: "one-file", colour: "plain", timeout: 60_000, dirPerTest: true, gitRoot: true });
const offline = { HARN_LLM_PROVIDER: "mock" };

describe("std/project", () => {
  it("keeps project_enrich's cache under the script's state root, so a second run makes no model call", () => {
    box.file("proj/Cargo.toml", '[package]\nname = "engine"\n');
    box.file("proj/src/lib.rs", "pub fn run() {}\n");
    box.file(
      "enrich.harn",
      `import { project_enrich } from "std/project"
pipeline main() {
  llm_mock({text: "{\\"summary\\": \\"from the model\\"}"})
  let r = project_enrich("proj", {prompt: "Summarise {{ package_name }}", schema: {type: "object", required: ["summary"]}})
  println(r.summary + " cached=" + to_string(r._provenance.cached) + " calls=" + to_string(len(llm_mock_calls())))
}
`,
    );
    const first = box.harn(["run", "enrich.harn"], { env: offline });
    expect(first.stderr).not.toContain("Error");
    expect(first.stdout).toBe("from the model cached=false calls=1\n");
    expect(readdirSync(join(box.dir, ".harn/cache/project_enrich"))).toHaveLength(1);
    expect(existsSync(join(box.dir, "std"))).toBe(false);
    const second = box.harn(["run", "enrich.harn"], { env: offline });
    expect(second.stdout).toBe("from the model cached=true calls=0\n");
    box.file("proj/src/lib.rs", "pub fn run() { todo!() }\n");
    expect(box.harn(["run", "enrich.harn"], { env: offline }).stdout).toBe("from the model cached=false calls=1\n");
  });
});
