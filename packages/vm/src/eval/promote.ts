/** Marks code that may use the frame (`fr`, the slot array, the tick
 * counter) inside a loop unit, for a rare path such as a framed call: when
 * the loop keeps its slots in JS locals, they are stored to the frame
 * before it and loaded back after it. */
export function framedRegion(code: string): string {
  return `${SPILL} ${code} ${RELOAD}`;
}
const SPILL = "/*spill*/";
const RELOAD = "/*reload*/";
const REGION = /\/\*spill\*\/[\s\S]*?\/\*reload\*\//g;
/** REGION as a capture group: `split` keeps the regions, at odd indexes. */
const REGION_SPLIT = new RegExp(`(${REGION.source})`);
/** A suspension exit of a loop unit (jit.ts suspend): the continuation it
 * starts awaits before it touches the frame, so after the write-back. */
const SUSPEND_EXIT = /return new Suspend\(.*?, [012]\);/g;
/** An exit of a failing int path (jit.ts Unit.exit): it runs the rest of
 * the iteration in the closure tier, after the write-back. */
const INT_EXIT = /return k\d+\(fr\);/g;

/**
 * A loop unit's lines with its frame slots kept in JS locals (`s3` for
 * `s[3]`): loaded on entry, stored back on every exit (each `return`, and
 * a throw, which an enclosing `try` of the same frame may observe) and
 * around every framed region. V8 keeps such locals in registers, unboxed,
 * where slot array accesses are memory traffic and box every non-small
 * int. Only for loops whose code hands the frame to nothing outside
 * framed regions and suspension exits (no `fr` besides the tick): then
 * nothing but these lines reads or writes the slots while the locals are
 * live. Null when the lines do not qualify.
 *
 * `ints`: slots the lines only ever store ints in. Unless a framed region
 * (whose callee might store anything) is among the lines, the unit checks
 * on entry that they hold ints, declining the iteration (ONCE) when one
 * does not, and converts them (`+s3`): with every value flowing into them
 * a number, V8 keeps them unboxed.
 */
export function promoteSlots(lines: string[], ints: number[] = []): string[] | null {
  const tick = "interp.tickLoop(fr.task)";
  const slots = new Set<number>();
  for (const line of lines) {
    const l = line.replace(REGION, "");
    if (/\bfr\b/.test(l.split(tick).join("").replace(SUSPEND_EXIT, "").replace(INT_EXIT, ""))) return null;
    // A string constant that looks like code would be rewritten too.
    for (const str of l.match(/"(?:[^"\\]|\\.)*"/g) ?? []) if (str.includes("s[") || str.includes("return")) return null;
    for (const m of l.matchAll(/\bs\[(\d+)\]/g)) slots.add(Number(m[1]));
    // Any other use of the slot array, or a return the rewrite below would
    // not see.
    if (/\bs\b(?!\[\d+\])/.test(l) || /\breturn\b(?! [^;]*;)/.test(l)) return null;
    if (/\breturn\b/.test(line.match(REGION)?.join("") ?? "")) return null;
  }
  if (slots.size === 0) return null;
  const names = [...slots].sort((a, b) => a - b);
  const store = names.map((n) => `s[${n}] = s${n};`).join(" ");
  // Each exit stores the locals itself: one shared write-back after the
  // loop (a labelled try, passed once early to give its stores type
  // feedback) cost 01, 05 and 07 10-25 ms of CPU in a fresh process.
  const out = [`let ${names.map((n) => `s${n} = s[${n}]`).join(", ")};`];
  const guarded = lines.some((l) => l.includes(SPILL)) ? [] : ints.filter((n) => slots.has(n));
  if (guarded.length > 0) out.push(`if (${guarded.map((n) => `typeof s${n} !== "number"`).join(" || ")}) return ONCE;`, guarded.map((n) => `s${n} = +s${n};`).join(" "));
  out.push("try {");
  const reload = names.map((n) => `s${n} = s[${n}];`).join(" ");
  for (const l of lines) {
    // Outside framed regions, slots become locals and returns exits; a
    // region is kept as it is, between a spill and a reload.
    const parts = l.split(REGION_SPLIT);
    const rewritten = parts.map((part, i) =>
      i % 2 === 1 ? `${store} ${part.slice(SPILL.length, -RELOAD.length)} ${reload}` : part.replace(/\bs\[(\d+)\]/g, "s$1").replace(/\breturn ([^;]*);/g, `{ ${store} return $1; }`),
    );
    out.push(rewritten.join(""));
  }
  out.push(`} catch (e) { ${store} throw e; }`);
  return out;
}
