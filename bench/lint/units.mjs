/**
 * Ordinary Harn code for the benches (bench/lint, bench/lsp): documented
 * pub fns with loops and branches, background walks with their cleanup,
 * closures, dict/list literals, match. Each unit is about 40 lines,
 * numbered to keep names apart.
 */

/** One unit of ordinary code (about 40 lines), numbered to keep names apart. */
export function unit(f, i) {
  const n = `${f}_${i}`;
  return `/** Scores batch ${n}: doubles the even items above the limit. */
pub fn score_${n}(items: list<int>, limit: int) -> int {
  var total = 0
  for item in items {
    if item > limit && item % 2 == 0 {
      total = total + item * 2
    } else if item < 0 {
      continue
    } else {
      total += item
    }
  }
  let label = "batch ${n}: \${total} over \${limit}"
  log(label)
  return total
}

/** Collects batch ${n} in the background and summarises it. */
pub fn collect_${n}(root: string) -> dict {
  let scan = walk_dir(root, {long_running: true, max_depth: 3})
  defer { cancel_handle(scan) }
  let cfg = {name: "job_${n}", retries: 3, tags: ["a", "b", "c"]}
  let picked = cfg.tags.map({ t -> t + "_${i}" }).filter({ t -> len(t) > 2 })
  match cfg.retries {
    0 -> { return {ok: false} }
    1 -> { log("once") }
    _ -> { log(picked) }
  }
  let result = try { json_parse("{}") } catch (e) { {} }
  while len(picked) > 10 {
    break
  }
  return {
    ok: true,
    root: root,
    count: score_${n}([1, 2, 3], 2),
    result: result,
  }
}

`;
}
