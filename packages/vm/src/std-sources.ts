/**
 * The source texts of the bundled `std/...` modules (`Runtime.stdModules`):
 * a Map from import path to Harn source whose entries may be given as a
 * function that builds the text when it is first read.
 *
 * The stdlib's native modules generate a Harn wrapper for each of their
 * functions; doing that for every module at every start-up was about a
 * millisecond and a half of `harn run`, though few scripts import a std
 * module. Everything that reads the map (get, iteration, forEach, entries,
 * values) sees the built text; `has`, `keys` and `size` need no text, and
 * insertion order is the order the entries were defined in.
 */
export class StdModuleSources extends Map<string, string> {
  /** Texts defined lazily and not built yet. */
  private pending: Map<string, () => string> | undefined;

  /** Define `path` with a text `build` returns when the entry is first read. */
  setLazy(path: string, build: () => string): this {
    super.set(path, "");
    (this.pending ??= new Map()).set(path, build);
    return this;
  }

  override set(path: string, source: string): this {
    this.pending?.delete(path);
    return super.set(path, source);
  }

  override get(path: string): string | undefined {
    this.build(path);
    return super.get(path);
  }

  override delete(path: string): boolean {
    this.pending?.delete(path);
    return super.delete(path);
  }

  override clear(): void {
    this.pending?.clear();
    super.clear();
  }

  override entries(): MapIterator<[string, string]> {
    this.buildAll();
    return super.entries();
  }

  override values(): MapIterator<string> {
    this.buildAll();
    return super.values();
  }

  override [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  override forEach(fn: (source: string, path: string, map: Map<string, string>) => void, thisArg?: unknown): void {
    this.buildAll();
    super.forEach(fn, thisArg);
  }

  private build(path: string): void {
    const build = this.pending?.get(path);
    if (build === undefined) return;
    this.pending!.delete(path);
    // Replacing the value of an existing key keeps its place in the order.
    super.set(path, build());
  }

  private buildAll(): void {
    if (this.pending === undefined || this.pending.size === 0) return;
    for (const path of [...this.pending.keys()]) this.build(path);
  }
}
