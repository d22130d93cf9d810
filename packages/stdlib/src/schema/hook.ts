/**
 * The compiler's type-alias lowering (spec/stdlib.md §11.6), installed
 * eagerly: the compiler calls `runtime.typeSchema` while compiling, before
 * any schema builtin (a lazy group, lazy/groups.ts) has run.
 */
import type { Runtime } from "@harn/vm";
import { lowerType } from "./lowering";

export function installSchemaLowering(rt: Runtime): void {
  rt.typeSchema = (type, aliases) => lowerType(type, aliases);
}
