/**
 * The workflow layer (spec/workflows.md): skills, workflow graphs and
 * their runtime, artifacts and run records. A lazy builtin group of its
 * own: most agent scripts never touch it.
 */
import type { BuiltinModule } from "../registry/define";
import { AGENT_STATE_BUILTINS } from "./agent_state";
import { ARTIFACT_BUILTINS } from "./artifacts/builtins";
import { EVAL_BUILTINS } from "./evals/builtins";
import { FLOW_INVARIANT_BUILTINS } from "./flow/invariants";
import { FRICTION_BUILTINS } from "./friction/builtins";
import { WORKFLOW_GRAPH_BUILTINS } from "./graph/builtins";
import { PROJECT_BUILTINS } from "./project/builtins";
import { RUN_RECORD_BUILTINS } from "./records/builtins";
import { WORKFLOW_MAILBOX_BUILTINS, WORKFLOW_RUNTIME_BUILTINS } from "./runtime/builtins";
import { SKILL_BUILTINS } from "./skills/builtins";

/** The workflow group's builtin modules (lazy/groups.ts), in install order. */
export const WORKFLOW_MODULES: readonly BuiltinModule[] = [SKILL_BUILTINS, ARTIFACT_BUILTINS, RUN_RECORD_BUILTINS, EVAL_BUILTINS, FLOW_INVARIANT_BUILTINS, FRICTION_BUILTINS, WORKFLOW_GRAPH_BUILTINS, WORKFLOW_RUNTIME_BUILTINS, WORKFLOW_MAILBOX_BUILTINS, PROJECT_BUILTINS, AGENT_STATE_BUILTINS];
