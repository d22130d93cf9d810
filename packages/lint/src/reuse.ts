/**
 * Emptying the collections a linter keeps from file to file. V8 gives an
 * array whose length is set to 0 a fresh empty store (the next push
 * allocates one again) and a cleared Set a new table even when it was
 * empty: per file and per collection, that was a good part of the garbage
 * of linting many small files. Popping keeps an array's store.
 */
export function clearArray(a: unknown[]): void {
  while (a.length > 0) a.pop();
}

export function clearSet(s: Set<unknown>): void {
  if (s.size !== 0) s.clear();
}
