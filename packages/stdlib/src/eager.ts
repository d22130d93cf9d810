/**
 * `@harn/stdlib/eager`: `installStdlib` with every lazy group installed at
 * once, so every builtin answers synchronously from its first call. For
 * tests of the builtins themselves, for the build (registry/generate.ts)
 * and for embedders that prefer paying the whole load up front; `harn`
 * itself uses the lazy `installStdlib`.
 */
import type { Runtime } from "@harn/vm";
import { AGENT_MODULES } from "./agent/index";
import { FORMAT_MODULES } from "./formats/builtins";
import { HTTP_MODULES } from "./http/builtins";
import { INSTALL_STEPS } from "./index";
import { LONGRUN_MODULES } from "./longrun/index";
import { MCP_MODULES } from "./mcp/builtins";
import { installModule, type BuiltinModule, type Definition } from "./registry/define";
import { REGEX_MODULES } from "./regex/builtins";
import { SCHEMA_MODULES } from "./schema/builtins";
import { TEMPLATE_MODULES } from "./template/builtins";
import { TIME_MODULES } from "./time/builtins";
import { WORKFLOW_MODULES } from "./workflow/index";

/** The builtin modules of each lazy group, by group name. */
export const GROUP_MODULES: Readonly<Record<string, readonly BuiltinModule[]>> = {
  agent: AGENT_MODULES,
  formats: FORMAT_MODULES,
  http: HTTP_MODULES,
  longrun: LONGRUN_MODULES,
  mcp: MCP_MODULES,
  regex: REGEX_MODULES,
  schema: SCHEMA_MODULES,
  templates: TEMPLATE_MODULES,
  time: TIME_MODULES,
  workflow: WORKFLOW_MODULES,
};

/** Install everything; `observe` sees each builtin definition with its
 * group (`core` for the eager modules). */
export function installStdlibEagerly(rt: Runtime, observe?: (d: Definition, group: string) => void): void {
  for (const step of INSTALL_STEPS) {
    if (typeof step === "function") step(rt);
    else if ("install" in step) installModule(rt, step, null, observe && ((d) => observe(d, "core")));
    else for (const m of GROUP_MODULES[step.name]!) installModule(rt, m, null, observe && ((d) => observe(d, step.name)));
  }
}
