/** Time, dates and durations (spec/stdlib.md §13). */
import type { BuiltinModule } from "../registry/define";
import { CLOCK_BUILTINS } from "./clock";
import { DATES_BUILTINS } from "./dates";
import { DURATIONS_BUILTINS } from "./durations";

/** The time group's builtin modules (lazy/groups.ts). */
export const TIME_MODULES: readonly BuiltinModule[] = [CLOCK_BUILTINS, DATES_BUILTINS, DURATIONS_BUILTINS];
