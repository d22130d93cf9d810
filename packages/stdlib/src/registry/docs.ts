/**
 * Signatures and docs of the builtins, for the builtin table (hover and
 * completion in editors, registry/generate.ts). Each domain keeps its own
 * table beside its modules (`core/docs.ts`, `http/docs.ts`, ...), taken from
 * the spec once (its words; the spec's ⟂T/⟂R marks spelled out) and
 * checked by hand; only the build reads them, so `harn run` never loads
 * them. A documented name that no module defines fails the build.
 */
import { AGENT_DOCS } from "../agent/docs";
import { CORE_DOCS } from "../core/docs";
import { FORMAT_DOCS } from "../formats/docs";
import { HTTP_DOCS } from "../http/docs";
import { LONGRUN_DOCS } from "../longrun/docs";
import { MCP_DOCS } from "../mcp/docs";
import { REGEX_DOCS } from "../regex/docs";
import { SCHEMA_DOCS } from "../schema/docs";
import { TEMPLATE_DOCS } from "../template/docs";
import { TIME_DOCS } from "../time/docs";
import { WORKFLOW_DOCS } from "../workflow/docs";

/** `name: [signature, doc]`: the signature as the spec writes the call. */
export type BuiltinDocs = Readonly<Record<string, readonly [signature: string, doc: string]>>;

export interface BuiltinDoc {
  readonly signature: string;
  readonly doc: string;
}

function collect(tables: readonly BuiltinDocs[]): ReadonlyMap<string, BuiltinDoc> {
  const all = new Map<string, BuiltinDoc>();
  for (const table of tables) {
    for (const [name, [signature, doc]] of Object.entries(table)) {
      if (all.has(name)) throw new Error(`registry docs: \`${name}\` is documented twice`);
      all.set(name, { signature, doc });
    }
  }
  return all;
}

export const BUILTIN_DOCS: ReadonlyMap<string, BuiltinDoc> = collect([
  CORE_DOCS,
  AGENT_DOCS,
  FORMAT_DOCS,
  HTTP_DOCS,
  LONGRUN_DOCS,
  REGEX_DOCS,
  SCHEMA_DOCS,
  TEMPLATE_DOCS,
  TIME_DOCS,
  WORKFLOW_DOCS,
  MCP_DOCS,
]);
