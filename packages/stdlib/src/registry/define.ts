/**
 * The builtin registry: the one way the stdlib defines the global functions
 * scripts call (docs/design.md "Adding a builtin").
 *
 * A domain module exports a `BuiltinModule`: an id and an `install(def, rt)`
 * that defines each of its builtins once with `def(name, fn, options)`. The
 * stdlib lists its modules in install order (index.ts `INSTALL_STEPS`, and
 * each lazy group's module list); nothing else defines builtin names (the
 * vm only exports the primitives they are made of).
 *
 * Defining a name twice is a programming error reported at start-up (every
 * `harn run` and every test would fail), unless the later definition says
 * `replaces: true`. The build installs every module once more to generate
 * what used to be listed by hand (registry/generate.ts): the lazy groups'
 * name lists, lint's builtin names and the builtin table (name, signature,
 * doc, group, long-running) that the checker and editors read.
 *
 * Signatures and docs are not here: they live in each domain's `docs.ts`,
 * which only the build reads, so `harn run` never loads them.
 */
import { RuntimeSlot, type BuiltinFn, type Runtime, type UnaryBuiltinFn } from "@harn/vm";

export interface BuiltinOptions {
  /** The one-argument form of a pure builtin (vm `UnaryBuiltinFn`). */
  readonly unary?: UnaryBuiltinFn;
  /** Accepts `long_running: true` / `background: true` and then returns a
   * handle (agents.md §1.7) instead of the result. */
  readonly longRunning?: boolean;
  /** Deliberately takes the place of the definition of a module installed
   * earlier (otherwise a second definition is an error). */
  readonly replaces?: boolean;
}

/** Defines one builtin of the module being installed. */
export type Define = (name: string, fn: BuiltinFn, options?: BuiltinOptions) => void;

export interface BuiltinModule {
  /** Names the module in errors and in the generated table, e.g. `core/strings`. */
  readonly id: string;
  /** Define the module's builtins (and set up anything else it owns in `rt`). */
  readonly install: (def: Define, rt: Runtime) => void;
}

export function builtinModule(id: string, install: (def: Define, rt: Runtime) => void): BuiltinModule {
  return { id, install };
}

/** A definition as the build sees it (registry/generate.ts). */
export interface Definition {
  readonly name: string;
  readonly module: string;
  readonly options: BuiltinOptions;
}

/** The module (or lazy group, `lazy:<group>`) that defined each builtin name in a runtime. */
const OWNERS = new RuntimeSlot("stdlib.builtinOwners", () => new Map<string, string>());

/**
 * Record `owner` as the definer of `name` in `rt`. `mayReplace` is the
 * owner (a lazy group's stubs) whose definition this one may take over
 * without saying `replaces`.
 */
export function claimName(rt: Runtime, name: string, owner: string, replaces: boolean, mayReplace: string | null = null): void {
  const owners = rt.slot(OWNERS);
  const previous = owners.get(name);
  if (previous !== undefined && previous !== mayReplace && !replaces) {
    throw new Error(`builtin \`${name}\` is defined twice, by ${previous} and by ${owner} (a definition that means to take the other's place says \`replaces: true\`)`);
  }
  if (previous === undefined && replaces) throw new Error(`builtin \`${name}\` of ${owner} says \`replaces: true\` but no module installed before it defines \`${name}\``);
  owners.set(name, owner);
}

/**
 * Install `module`'s builtins in `rt`. `group` is the lazy group being
 * loaded, whose stubs its definitions replace; `observe` sees each
 * definition (the build's table).
 */
export function installModule(rt: Runtime, module: BuiltinModule, group: string | null = null, observe?: (d: Definition) => void): void {
  const stubs = group === null ? null : `lazy:${group}`;
  module.install((name, fn, options = {}) => {
    claimName(rt, name, module.id, options.replaces === true, stubs);
    rt.defineBuiltin(name, fn, options.unary);
    observe?.({ name, module: module.id, options });
  }, rt);
}

export function installModules(rt: Runtime, modules: readonly BuiltinModule[], group: string | null = null): void {
  for (const m of modules) installModule(rt, m, group);
}
