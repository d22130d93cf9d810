/** The bundled `std/...` modules (spec/stdlib.md §24). */
import type { Runtime } from "@harn/vm";
import { installStdMath } from "./math";
import { installSmallStdModules } from "./small";
import { installSourceStdModules } from "./sources";

export function installStdModules(rt: Runtime): void {
  installStdMath(rt);
  installSmallStdModules(rt);
  installSourceStdModules(rt);
}
