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
/**
 * One small file (about 11 lines) of a many-small-files project: a
 * documented function with a branch and a loop, importing the previous
 * file's function every tenth file. `smallJs` is the same code in
 * JavaScript, for ESLint.
 */
export function small(f) {
  const imp = f % 10 === 9 ? `import { step_${f - 1} } from "step_${f - 1}"\n\n` : "";
  const call = f % 10 === 9 ? `step_${f - 1}(x)` : "x";
  return `${imp}/** Step ${f}: doubles the positive items. */
pub fn step_${f}(x: int, items: list<int>) -> int {
  var total = ${call}
  for item in items {
    if item > 0 {
      total = total + item * 2
    }
  }
  log("step ${f}: \${total}")
  return total
}
`;
}

export function smallJs(f) {
  const imp = f % 10 === 9 ? `import { step_${f - 1} } from "./step_${f - 1}.js";\n\n` : "";
  const call = f % 10 === 9 ? `step_${f - 1}(x)` : "x";
  return `${imp}/** Step ${f}: doubles the positive items. */
export function step_${f}(x, items) {
  let total = ${call};
  for (const item of items) {
    if (item > 0) {
      total = total + item * 2;
    }
  }
  console.log(\`step ${f}: \${total}\`);
  return total;
}
`;
}
