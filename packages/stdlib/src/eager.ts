/**
 * `@harn/stdlib/eager`: `installStdlib` with every lazy group installed at
 * once, so every builtin answers synchronously from its first call. For
 * tests of the builtins themselves and for embedders that prefer paying
 * the whole load up front; `harn` itself uses the lazy `installStdlib`.
 */
import type { Runtime } from "@harn/vm";
import { installAgents } from "./agent/index";
import { installFormats } from "./formats/builtins";
import { installHttp } from "./http/builtins";
import { INSTALL_STEPS } from "./index";
import { installLongRunning } from "./longrun/index";
import { installRegex } from "./regex/builtins";
import { installSchema } from "./schema/builtins";
import { installTemplates } from "./template/builtins";
import { installTime } from "./time/builtins";

/** The real installer of each lazy group, by group name. */
export const GROUP_INSTALLERS: Readonly<Record<string, (rt: Runtime) => void>> = {
  agent: installAgents,
  formats: installFormats,
  http: installHttp,
  longrun: installLongRunning,
  regex: installRegex,
  schema: installSchema,
  templates: installTemplates,
  time: installTime,
};

export function installStdlibEagerly(rt: Runtime): void {
  for (const step of INSTALL_STEPS) {
    if (typeof step === "function") step(rt);
    else GROUP_INSTALLERS[step.name]!(rt);
  }
}
