/** The bundled `std/...` modules (spec/stdlib.md §24); the native
 * functions behind them are internal builtins (`__std_<module>_<name>`). */
import { builtinModule } from "../registry/define";
import { installAgentStateStdModule } from "./agent_state";
import { installContextStdModule } from "./context";
import { installExperimentsStdModule } from "./experiments";
import { installStdMath } from "./math";
import { installMemoryStdModule } from "./memory";
import { installPlanStdModule } from "./plan";
import { installSmallStdModules } from "./small";
import { installProjectStdModule } from "./project";
import { installPromptLibraryStdModule } from "./prompt_library";
import { installSourceStdModules } from "./sources";
import { installWorktreeStdModule } from "./worktree";

export const STD_MODULE_BUILTINS = builtinModule("std", (def, rt) => {
  installStdMath(def, rt);
  installSmallStdModules(def, rt);
  installSourceStdModules(rt);
  installContextStdModule(rt);
  installExperimentsStdModule(rt);
  installProjectStdModule(rt);
  installAgentStateStdModule(rt);
  installMemoryStdModule(rt);
  installPlanStdModule(rt);
  installWorktreeStdModule(rt);
  installPromptLibraryStdModule(rt);
});
