/**
 * Builtin groups whose implementation loads on first use.
 *
 * Most of the stdlib's code (the agent layer, HTTP, templates, dates, regex
 * translation, schemas, data formats, long-running work) is never touched by
 * a typical script, yet parsing it was most of `harn run`'s start-up. A lazy
 * group defines every one of its builtin names at install time as a small
 * stub; the first call of any of them imports the group's module (the CLI
 * bundle is split at that dynamic `import()`, cli/build.mjs), runs the
 * group's builtin modules (registry/define.ts) and from then on forwards straight to the
 * real builtin. So every name exists from the start (`--allow`/`--deny`,
 * "did you mean" suggestions and lint's builtin list see them all) and
 * behaviour is the real builtin's.
 *
 * The first call of a stub returns a promise (the import), which the
 * maybe-async convention allows but which would also let other tasks run at
 * a point where the real builtin would not have waited. Hosts therefore load
 * the groups a program names before running it (`preloadBuiltins`, fed by
 * `builtinNamesIn`), and a stub only loads on its own for names reached
 * dynamically.
 *
 * Per-runtime state lives in a slot: two runtimes load and install
 * independently (the imported module itself is shared, as modules are).
 */
import { HarnError, RuntimeSlot, type BuiltinFn, type Runtime } from "@harn/vm";
import { claimName, installModules, type BuiltinModule } from "../registry/define";

export interface LazyGroup {
  /** For messages, tests and the builtin table. */
  readonly name: string;
  /** Every builtin the group's modules define (generated, group-names.ts). */
  readonly builtins: readonly string[];
  /** Of those, the ones whose definition says `replaces: true`. */
  readonly replacing: ReadonlySet<string>;
  /** Import the group's code and hand back its builtin modules. */
  readonly load: () => Promise<readonly BuiltinModule[]>;
}

interface GroupState {
  /** The stub defined for each name, to tell it from a host's override. */
  readonly stubs: Map<string, BuiltinFn>;
  /** The real builtins once installed. */
  readonly real: Map<string, BuiltinFn>;
  loading: Promise<void> | null;
  loaded: boolean;
}

const GROUPS = new RuntimeSlot("stdlib.lazyGroups", () => new Map<LazyGroup, GroupState>());

/** Define stubs for every builtin of `group`. */
export function installLazyGroup(rt: Runtime, group: LazyGroup): void {
  const state: GroupState = { stubs: new Map(), real: new Map(), loading: null, loaded: false };
  rt.slot(GROUPS).set(group, state);
  for (const name of group.builtins) {
    const stub: BuiltinFn = (args, ctx) => {
      const real = state.real.get(name);
      if (real !== undefined) return real(args, ctx);
      return loadGroup(rt, group, state)!.then(() => {
        const f = state.real.get(name);
        if (f === undefined) throw HarnError.runtime(`internal error: builtin ${name} is missing from the ${group.name} group`);
        return f(args, ctx);
      });
    };
    state.stubs.set(name, stub);
    claimName(rt, name, `lazy:${group.name}`, group.replacing.has(name));
    rt.defineBuiltin(name, stub);
  }
}

/**
 * Import and install `group` (once per runtime). Null when it is already
 * installed. Names a host redefined after `installStdlib` keep the host's
 * definition: the group's definitions only replace stubs.
 */
function loadGroup(rt: Runtime, group: LazyGroup, state: GroupState): Promise<void> | null {
  if (state.loaded) return null;
  if (state.loading === null) {
    state.loading = group.load().then((modules) => {
      const overridden = new Map<string, BuiltinFn>();
      for (const [name, stub] of state.stubs) {
        const current = rt.builtins.get(name);
        if (current !== undefined && current !== stub) overridden.set(name, current);
      }
      installModules(rt, modules, group.name);
      for (const name of group.builtins) {
        const f = rt.builtins.get(name);
        if (f !== undefined && f !== state.stubs.get(name)) state.real.set(name, f);
      }
      for (const [name, f] of overridden) rt.builtins.set(name, f);
      state.loaded = true;
    });
  }
  return state.loading;
}

/**
 * Load every lazy group that defines one of `names` and still has a stub
 * for it in `rt`. Null when nothing needs loading, so synchronous callers
 * stay synchronous.
 */
export function preloadBuiltins(rt: Runtime, names: Iterable<string>): Promise<void> | null {
  const groups = rt.slot(GROUPS);
  if (groups.size === 0) return null;
  const pending: Promise<void>[] = [];
  const wanted = new Set(names);
  for (const [group, state] of groups) {
    if (state.loaded) continue;
    for (const [name, stub] of state.stubs) {
      if (wanted.has(name) && rt.builtins.get(name) === stub) {
        pending.push(loadGroup(rt, group, state)!);
        break;
      }
    }
  }
  return pending.length === 0 ? null : Promise.all(pending).then(() => undefined);
}

/** Load every lazy group of `rt` (embedders that want no first-call loads). */
export function preloadAllBuiltins(rt: Runtime): Promise<void> | null {
  const names: string[] = [];
  for (const state of rt.slot(GROUPS).values()) names.push(...state.stubs.keys());
  return preloadBuiltins(rt, names);
}

/** Whether `group`'s implementation is installed in `rt` (hosts skip work
 * for layers a script never used, e.g. stopping background agents). */
export function isGroupLoaded(rt: Runtime, groupName: string): boolean {
  for (const [group, state] of rt.slot(GROUPS)) if (group.name === groupName) return state.loaded;
  return false;
}
