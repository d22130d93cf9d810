/**
 * The project templates of `harn init` / `harn new` (spec/cli.md §7.2).
 * Every template is a `harn.toml` plus a few scripts that run, test and
 * lint cleanly as they are (cli/test/init.test.ts runs each one).
 * `{{name}}` stands for the project name.
 */

export const TEMPLATE_NAMES = ["basic", "agent", "mcp-server", "eval", "pipeline-lab", "package", "connector"] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

export interface TemplateFile {
  path: string;
  text: string;
}

const manifest = (extra = ""): TemplateFile => ({
  path: "harn.toml",
  text: `[package]\nname = "{{name}}"\nversion = "0.1.0"\n${extra}\n[dependencies]\n`,
});

const helpers: TemplateFile = {
  path: "lib/helpers.harn",
  text: `/** Helpers shared by the pipelines of {{name}}. */

/** A greeting for \`who\`. */
pub fn greet(who: string) -> string {
  return "Hello, " + who + "!"
}
`,
};

const basic: TemplateFile[] = [
  manifest(),
  {
    path: "main.harn",
    text: `import { greet } from "lib/helpers"

pipeline default(task) {
  let who = if len(argv) > 0 { argv[0] } else { "world" }
  println(greet(who))
}
`,
  },
  helpers,
  {
    path: "tests/test_main.harn",
    text: `import { greet } from "../lib/helpers"

pipeline test_greet() {
  assert_eq(greet("harn"), "Hello, harn!")
}

pipeline test_greet_empty() {
  assert_eq(greet(""), "Hello, !")
}
`,
  },
];

const agent: TemplateFile[] = [
  manifest(),
  {
    path: "main.harn",
    text: `import { lookup } from "lib/tools"

/** The model comes from HARN_LLM_PROVIDER (default: the offline mock). */
pipeline default(task) {
  let provider = env_or("HARN_LLM_PROVIDER", "mock")
  let options = {provider: provider, tools: lookup, max_iterations: 5}
  let result = agent_loop("Find out what harn is.", "Be concise.", options)
  println(result.status)
  println(result.text)
}
`,
  },
  {
    path: "lib/tools.harn",
    text: `/** The tools the agent may call. */

/** Look a topic up in a small built-in glossary. */
pub tool lookup(topic: string) -> string {
  description "Look a topic up in the glossary"
  let glossary = {harn: "a pipeline language for orchestrating AI agents"}
  return glossary[topic] ?? ("no entry for " + topic)
}
`,
  },
  {
    path: "tests/test_agent.harn",
    text: `import { lookup } from "../lib/tools"

pipeline test_lookup_tool() {
  let entry = tool_find(lookup, "lookup")
  assert_eq(entry.handler("harn"), "a pipeline language for orchestrating AI agents")
}

pipeline test_agent_answers() {
  llm_mock({text: "harn orchestrates agents"})
  let result = agent_loop("What is harn?", nil, {provider: "mock", tools: lookup})
  assert_eq(result.status, "done")
  assert_eq(result.text, "harn orchestrates agents")
}
`,
  },
];

const mcpServer: TemplateFile[] = [
  manifest(),
  {
    path: "main.harn",
    text: `import { tools } from "lib/server"

/** Offers the tools over MCP: \`harn serve mcp main.harn\` (stdio), or
 * with \`--transport http\`. Under \`harn run\` it only lists them. */
pipeline default(task) {
  for entry in tool_list(tools()) {
    println(entry.name + ": " + entry.description)
  }
  mcp_serve(tools())
}
`,
  },
  {
    path: "lib/server.harn",
    text: `/** The tools of the {{name}} MCP server. */

/** Every tool of the server, in one registry. */
pub fn tools() {
  var reg = tool_registry()
  let add = {
    parameters: {a: {type: "integer"}, b: {type: "integer"}},
    handler: { args -> args.a + args.b },
  }
  let echo = {
    parameters: {message: {type: "string"}},
    handler: { args -> args.message },
  }
  reg = tool_define(reg, "add", "Add two numbers", add)
  reg = tool_define(reg, "echo", "Echo a message back", echo)
  return reg
}
`,
  },
  {
    path: "tests/test_server.harn",
    text: `import { tools } from "../lib/server"

pipeline test_tools_listed() {
  let names = tool_list(tools()).map({ e -> e.name })
  assert_eq(names, ["add", "echo"])
}

pipeline test_add() {
  assert_eq(tool_find(tools(), "add").handler({a: 2, b: 3}), 5)
}
`,
  },
];

const evalTemplate: TemplateFile[] = [
  manifest(),
  {
    path: "main.harn",
    text: `import { cases, score } from "lib/cases"

/** Runs every case against the model and prints the pass rate. */
pipeline default(task) {
  let provider = env_or("HARN_LLM_PROVIDER", "mock")
  var passed = 0
  for c in cases() {
    let reply: dict = llm_call(c.prompt, nil, {provider: provider})
    if score(reply.text, c.expected) {
      passed += 1
    }
  }
  println("passed " + to_string(passed) + " of " + to_string(len(cases())))
}
`,
  },
  {
    path: "lib/cases.harn",
    text: `/** The evaluation cases and their scoring. */

/** The cases: a prompt and the text a good answer contains. */
pub fn cases() {
  return [
    {prompt: "What is 2 + 2? Answer with a number.", expected: "4"},
    {prompt: "Name the capital of France.", expected: "Paris"},
  ]
}

/** Does the answer contain the expected text? */
pub fn score(answer: string, expected: string) -> bool {
  return answer.contains(expected)
}
`,
  },
  {
    path: "tests/test_eval.harn",
    text: `import { cases, score } from "../lib/cases"

pipeline test_score() {
  assert(score("It is 4.", "4"))
  assert(!score("It is five.", "4"))
}

pipeline test_cases_have_answers() {
  for c in cases() {
    assert(len(c.expected) > 0)
  }
}
`,
  },
];

const pipelineLab: TemplateFile[] = [
  manifest(),
  {
    path: "main.harn",
    text: `import { clean, summarize } from "lib/stages"

/** A small pipeline: clean the input lines, then summarize them. */
pipeline default(task) {
  let lines = ["  alpha ", "", "beta", "  gamma"]
  println(summarize(clean(lines)))
}
`,
  },
  {
    path: "lib/stages.harn",
    text: `/** The stages of the lab pipeline. */

/** Trimmed, non-empty lines. */
pub fn clean(lines) {
  return lines.map({ l -> l.trim() }).filter({ l -> l != "" })
}

/** A one-line summary of the lines. */
pub fn summarize(lines) -> string {
  return to_string(len(lines)) + " lines: " + join(lines, ", ")
}
`,
  },
  {
    path: "tests/test_stages.harn",
    text: `import { clean, summarize } from "../lib/stages"

pipeline test_clean() {
  assert_eq(clean([" a ", "", "b"]), ["a", "b"])
}

pipeline test_summarize() {
  assert_eq(summarize(["a", "b"]), "2 lines: a, b")
}
`,
  },
];

const pkg: TemplateFile[] = [
  manifest('description = "A harn package"\n'),
  {
    path: "lib/{{name}}.harn",
    text: `/** The public functions of the {{name}} package. */

/** \`text\` repeated \`n\` times, separated by \`sep\`. */
pub fn repeat(text: string, n: int, sep: string = "") -> string {
  var parts = []
  for _i in 0 to n exclusive {
    parts = parts.push(text)
  }
  return join(parts, sep)
}
`,
  },
  {
    path: "tests/test_{{name}}.harn",
    text: `import { repeat } from "../lib/{{name}}"

pipeline test_repeat() {
  assert_eq(repeat("ab", 3), "ababab")
  assert_eq(repeat("x", 2, "-"), "x-x")
  assert_eq(repeat("x", 0), "")
}
`,
  },
];

const connector: TemplateFile[] = [
  manifest(),
  {
    path: "lib/connector.harn",
    text: `/** The {{name}} connector: turns raw events into normalized records. */

/** A normalized record for one raw event. */
pub fn normalize(event) {
  return {id: to_string(event.id), kind: event.type ?? "unknown", payload: event.data ?? {}}
}

/** The records of a batch of raw events, invalid ones (without an id) dropped. */
pub fn ingest(events) {
  return events.filter({ e -> e.id != nil }).map({ e -> normalize(e) })
}
`,
  },
  {
    path: "main.harn",
    text: `import { ingest } from "lib/connector"

pipeline default(task) {
  let events = [{id: 1, type: "created", data: {name: "a"}}, {type: "broken"}, {id: 2}]
  for record in ingest(events) {
    println(json_stringify(record))
  }
}
`,
  },
  {
    path: "tests/test_connector.harn",
    text: `import { ingest, normalize } from "../lib/connector"

pipeline test_normalize() {
  assert_eq(normalize({id: 7, type: "x"}), {id: "7", kind: "x", payload: {}})
}

pipeline test_ingest_drops_events_without_id() {
  assert_eq(len(ingest([{id: 1}, {type: "no id"}])), 1)
}
`,
  },
];

export const TEMPLATES: Record<TemplateName, TemplateFile[]> = {
  basic,
  agent,
  "mcp-server": mcpServer,
  eval: evalTemplate,
  "pipeline-lab": pipelineLab,
  package: pkg,
  connector,
};

/** The next steps printed after scaffolding (cli.md §7.2). */
export function nextSteps(template: TemplateName, dir: string | null): string[] {
  const steps: string[] = [];
  if (dir !== null) steps.push(`cd ${dir}`);
  if (template !== "package") steps.push("harn run main.harn");
  steps.push("harn test tests/", "harn fmt --check .", "harn lint .");
  return steps;
}
