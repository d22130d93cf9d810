/**
 * `harn init [NAME] [--template T]` and `harn new NAME [--template T]`
 * (spec/cli.md §7.2): scaffold a project from a template (templates.ts).
 * With NAME a new directory NAME is made (it must not exist yet); without
 * it `init` scaffolds into the current directory, creating each file that
 * is missing (`  create  {path}`) and leaving existing ones alone
 * (`  skip  {path} (already exists)`). `harn new package NAME` and
 * `harn new connector NAME` pick those templates.
 */
import { existsSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { Command, Option } from "commander";
import { nextSteps, TEMPLATE_NAMES, TEMPLATES, type TemplateName } from "../templates";
import type { SetExitCode } from "./index";
import { makeDirsSync } from "@harn/stdlib/make-dirs";
import { osErrorText } from "@harn/stdlib/oserror";

/** A file system failure (no permission, a read-only or pseudo file system) is one line, not a stack. */
function scaffold(name: string | undefined, template: TemplateName): number {
  try {
    return scaffoldFiles(name, template);
  } catch (e) {
    const path = (e as { path?: unknown }).path;
    if (typeof path !== "string") throw e;
    process.stderr.write(`Cannot create '${path}': ${osErrorText(e)}\n`);
    return 1;
  }
}

/** Where the project goes: a new directory NAME, or the current directory (null). */
function scaffoldFiles(name: string | undefined, template: TemplateName): number {
  const root = name === undefined ? process.cwd() : resolve(name);
  if (name !== undefined) {
    if (existsSync(root)) {
      process.stderr.write(`Directory '${name}' already exists\n`);
      return 1;
    }
    makeDirsSync(root);
  }
  const project = basename(root);
  for (const file of TEMPLATES[template]) {
    const rel = file.path.replaceAll("{{name}}", project);
    const shown = name === undefined ? rel : join(name, rel);
    const path = join(root, rel);
    if (existsSync(path)) {
      process.stdout.write(`  skip  ${shown} (already exists)\n`);
      continue;
    }
    makeDirsSync(dirname(path));
    writeFileSync(path, file.text.replaceAll("{{name}}", project), { flag: "wx" });
    process.stdout.write(`  create  ${shown}\n`);
  }
  process.stdout.write(`\nCreated the ${template} project '${project}'. Next steps:\n`);
  for (const step of nextSteps(template, name ?? null)) process.stdout.write(`  ${step}\n`);
  return 0;
}

const templateOption = () =>
  new Option("--template <template>", "project template").choices([...TEMPLATE_NAMES]).default("basic");

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("init")
    .description("scaffold a project in a new directory NAME, or in the current directory")
    .argument("[name]", "directory to create")
    .addOption(templateOption())
    .action((name: string | undefined, opts: { template: TemplateName }) => {
      setExitCode(scaffold(name, opts.template));
    });
  program
    .command("new")
    .description("scaffold a project in a new directory (`harn new package NAME`, `harn new connector NAME`)")
    .argument("<name>", "directory to create, or `package`/`connector` followed by it")
    .argument("[rest]", "the directory, after `package` or `connector`")
    .addOption(templateOption())
    .action((first: string, rest: string | undefined, opts: { template: TemplateName }, cmd: Command) => {
      if (first === "package" || first === "connector") {
        if (rest === undefined) cmd.error(`error: \`harn new ${first}\` requires a NAME`, { exitCode: 2 });
        setExitCode(scaffold(rest, first));
        return;
      }
      if (rest !== undefined) cmd.error(`error: unexpected argument '${rest}'`, { exitCode: 2 });
      setExitCode(scaffold(first, opts.template));
    });
}
