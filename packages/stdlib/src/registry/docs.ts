/**
 * Signatures and docs of the builtins, for the builtin table (hover and
 * completion in editors, registry/generate.ts). Taken from the spec
 * (/work/shared/spec, README "Specification") once and kept here with the
 * code; only the build reads them, so `harn run` never loads them.
 */

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

export const BUILTIN_DOCS: ReadonlyMap<string, BuiltinDoc> = collect([]);
