/**
 * `std/math` (spec/stdlib.md §24): statistics, vectors, distributions and
 * k-means. Argument checks throw strings (`items must be a list`, …).
 * Importing the module shadows the builtins `mean`, `median`,
 * `percentile`, `variance` and `stddev`.
 */
import { compare, float, HarnError, HDict, HFloat, isNumeric, isPromise, ops, toJsNumber, type CallContext, type Value } from "@harn/vm";
import { defineNativeModule, type NativeFn } from "./module";
import type { Define } from "../registry/define";
import type { Runtime } from "@harn/vm";

function fail(msg: string): never {
  throw HarnError.thrown(msg);
}

function numArg(label: string, v: Value): number {
  if (!isNumeric(v)) fail(`${label} must be numeric`);
  return toJsNumber(v);
}

function listArg(label: string, v: Value): Value[] {
  if (!Array.isArray(v)) fail(`${label} must be a list`);
  return v;
}

function numbers(label: string, v: Value): number[] {
  return listArg(label, v).map((x) => {
    if (!isNumeric(x)) fail(`${label} must contain only numbers`);
    return toJsNumber(x);
  });
}

function nonEmpty(label: string, v: Value): number[] {
  const xs = numbers(label, v);
  if (xs.length === 0) fail(`${label} must not be empty`);
  return xs;
}

function intArg(label: string, v: Value): number {
  if (typeof v !== "number") {
    if (v instanceof HFloat && Number.isInteger(v.v)) return v.v;
    fail(`${label} must be an integer`);
  }
  return v;
}

function probability(label: string, v: Value): number {
  const p = numArg(label, v);
  if (!(p > 0 && p < 1)) fail(`${label} must be between 0 and 1`);
  return p;
}

function positive(label: string, v: Value): number {
  const x = numArg(label, v);
  if (!(x > 0)) fail(`${label} must be greater than 0`);
  return x;
}

const floats = (xs: number[]): Value[] => xs.map((x) => float(x));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const meanOf = (xs: number[]) => sum(xs) / xs.length;

function varianceOf(xs: number[], sample: boolean, what = "variance"): number {
  if (sample && xs.length < 2) fail(`sample ${what} requires at least 2 values`);
  const m = meanOf(xs);
  const ss = xs.reduce((a, x) => a + (x - m) * (x - m), 0);
  return ss / (sample ? xs.length - 1 : xs.length);
}

function sameLength(a: number[], b: number[], msg: string): void {
  if (a.length !== b.length) fail(msg);
}

function vectors(a: Value, b: Value): [number[], number[]] {
  const x = numbers("a", a);
  const y = numbers("b", b);
  sameLength(x, y, "vectors must have the same length");
  return [x, y];
}

const norm = (v: number[]) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));

/** Scores of `xs` under an optional key function, possibly async. */
function scores(xs: Value[], fn: Value, ctx: CallContext): Value[] | Promise<Value[]> {
  if (fn === null) return xs;
  const out: Value[] = [];
  for (let i = 0; i < xs.length; i++) {
    const r = ctx.call(fn, [xs[i]!]);
    if (isPromise(r)) {
      return (async () => {
        out.push(await r);
        for (let j = i + 1; j < xs.length; j++) {
          const s = ctx.call(fn, [xs[j]!]);
          out.push(isPromise(s) ? await s : s);
        }
        return out;
      })();
    }
    out.push(r);
  }
  return out;
}

/** Indices sorted by score, stable; `desc` for descending. */
function order(s: Value[], desc: boolean): number[] {
  const idx = s.map((_, i) => i);
  idx.sort((i, j) => {
    const c = compare(s[i]!, s[j]!);
    return (desc ? -c : c) || i - j;
  });
  return idx;
}

/** Abramowitz–Stegun 7.1.26. */
function erf(z: number): number {
  const sign = z < 0 ? -1 : 1;
  const x = Math.abs(z);
  const t = 1 / (1 + 0.3275911 * x);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return sign * y;
}

/** Acklam's rational approximation of the standard normal quantile. */
function acklam(p: number): number {
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const high = 1 - low;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p <= high) {
    const q = p - 0.5;
    const r = q * q;
    return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  }
  const q = Math.sqrt(-2 * Math.log(1 - p));
  return -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
}

function normalParams(args: Value[], at: number): [number, number] {
  const mu = args[at] === null || args[at] === undefined ? 0 : numArg("mean", args[at]!);
  const sigma = args[at + 1] === null || args[at + 1] === undefined ? 1 : positive("stddev", args[at + 1]!);
  return [mu, sigma];
}

function kmeans(pointsV: Value, kV: Value, opts: Value): Value {
  const pts = listArg("points", pointsV);
  if (pts.length === 0) fail("points must not be empty");
  const points = pts.map((p) => numbers("points", listArg("points", p)));
  const dim = points[0]!.length;
  if (dim === 0) fail("points must have at least one dimension");
  if (points.some((p) => p.length !== dim)) fail("all points must have the same dimension");
  const k = intArg("k", kV);
  if (k < 1) fail("k must be at least 1");
  if (k > points.length) fail("k must not exceed the number of points");
  let maxIter = 100;
  if (opts instanceof HDict && opts.has("max_iterations") && opts.get("max_iterations") !== null) {
    maxIter = intArg("max_iterations", opts.get("max_iterations"));
    if (maxIter < 1) fail("max_iterations must be at least 1");
  }
  const dist2 = (a: number[], b: number[]) => a.reduce((s, x, i) => s + (x - b[i]!) * (x - b[i]!), 0);
  // farthest-point seeding from the first point
  const centroids: number[][] = [points[0]!.slice()];
  while (centroids.length < k) {
    let best = -1;
    let bestD = -1;
    points.forEach((p, i) => {
      const d = Math.min(...centroids.map((c) => dist2(p, c)));
      if (d > bestD) {
        bestD = d;
        best = i;
      }
    });
    centroids.push(points[best]!.slice());
  }
  const assign = (): { a: number[]; d: number[] } => {
    const a: number[] = [];
    const d: number[] = [];
    for (const p of points) {
      let bi = 0;
      let bd = Infinity;
      centroids.forEach((c, i) => {
        const x = dist2(p, c);
        if (x < bd) {
          bd = x;
          bi = i;
        }
      });
      a.push(bi);
      d.push(bd);
    }
    return { a, d };
  };
  let assignments: number[] | null = null;
  let counts: number[] = [];
  let inertia = 0;
  let iterations = 0;
  let converged = false;
  while (iterations < maxIter) {
    const { a, d } = assign();
    inertia = sum(d);
    // recompute centroids
    counts = new Array(k).fill(0);
    const sums = Array.from({ length: k }, () => new Array(dim).fill(0));
    a.forEach((c, i) => {
      counts[c]!++;
      points[i]!.forEach((x, j) => (sums[c]![j] += x));
    });
    for (let c = 0; c < k; c++) {
      if (counts[c]! > 0) centroids[c] = sums[c]!.map((s) => s / counts[c]!);
      else {
        // re-seed an empty cluster with the point of largest current error
        let worst = 0;
        d.forEach((x, i) => {
          if (x > d[worst]!) worst = i;
        });
        centroids[c] = points[worst]!.slice();
      }
    }
    iterations++;
    const same = assignments !== null && a.every((x, i) => x === assignments![i]);
    assignments = a;
    if (same) {
      converged = true;
      break;
    }
  }
  if (!converged) {
    const { a, d } = assign();
    assignments = a;
    inertia = sum(d);
    counts = new Array(k).fill(0);
    a.forEach((c) => counts[c]!++);
  }
  return HDict.of({
    centroids: centroids.map(floats),
    assignments: assignments!,
    counts,
    iterations,
    converged,
    inertia: float(inertia),
  });
}

const FNS: NativeFn[] = [
  {
    name: "clamp",
    params: "v, lo, hi",
    fn: ([v = null, lo = null, hi = null]) => {
      const x = numArg("value", v);
      if (x < numArg("min", lo)) return lo;
      if (x > numArg("max", hi)) return hi;
      return v;
    },
  },
  {
    name: "lerp",
    params: "a, b, t",
    fn: ([a = null, b = null, t = null]) => {
      numArg("a", a);
      numArg("b", b);
      numArg("t", t);
      return ops.add(a, ops.mul(ops.sub(b, a), t));
    },
  },
  {
    name: "map_range",
    params: "v, in_lo, in_hi, out_lo, out_hi",
    fn: ([v = null, a = null, b = null, c = null, d = null]) => {
      const [x, inLo, inHi, outLo, outHi] = [numArg("value", v), numArg("in_min", a), numArg("in_max", b), numArg("out_min", c), numArg("out_max", d)];
      return float(outLo + ((x - inLo) * (outHi - outLo)) / (inHi - inLo));
    },
  },
  { name: "deg_to_rad", params: "d", fn: ([d = null]) => float((numArg("degrees", d) * Math.PI) / 180) },
  { name: "rad_to_deg", params: "r", fn: ([r = null]) => float((numArg("radians", r) * 180) / Math.PI) },
  {
    name: "sum",
    params: "xs",
    fn: ([xs = null]) => {
      numbers("items", xs);
      return (xs as Value[]).reduce<Value>((acc, x) => ops.add(acc, x), 0);
    },
  },
  ...["avg", "mean"].map(
    (name): NativeFn => ({
      name,
      params: "xs",
      fn: ([xs = null]) => {
        const v = numbers("items", xs);
        return v.length === 0 ? 0 : float(meanOf(v));
      },
    }),
  ),
  {
    name: "median",
    params: "xs",
    fn: ([xs = null]) => {
      nonEmpty("items", xs);
      const sorted = [...(xs as Value[])].sort((a, b) => toJsNumber(a as HFloat) - toJsNumber(b as HFloat));
      const n = sorted.length;
      if (n % 2 === 1) return sorted[(n - 1) / 2]!;
      return float((toJsNumber(sorted[n / 2 - 1] as HFloat) + toJsNumber(sorted[n / 2] as HFloat)) / 2);
    },
  },
  {
    name: "percentile",
    params: "xs, p",
    fn: ([xs = null, pv = null]) => {
      const v = nonEmpty("items", xs).sort((a, b) => a - b);
      const p = numArg("percentile", pv);
      if (p < 0 || p > 100) fail("percentile must be between 0 and 100");
      const h = ((v.length - 1) * p) / 100;
      const lo = Math.floor(h);
      const hi = Math.min(lo + 1, v.length - 1);
      return float(v[lo]! + (h - lo) * (v[hi]! - v[lo]!));
    },
  },
  { name: "variance", params: "xs, sample = false", fn: ([xs = null, s = null]) => float(varianceOf(nonEmpty("items", xs), s === true)) },
  { name: "stddev", params: "xs, sample = false", fn: ([xs = null, s = null]) => float(Math.sqrt(varianceOf(nonEmpty("items", xs), s === true))) },
  {
    name: "argsort",
    params: "xs, score_fn = nil",
    fn: ([xs = null, f = null], ctx) => {
      const items = listArg("items", xs);
      const s = scores(items, f, ctx);
      return isPromise(s) ? s.then((x) => order(x, false)) : order(s, false);
    },
  },
  {
    name: "top_k",
    params: "xs, k, score_fn = nil",
    fn: ([xs = null, kv = null, f = null], ctx) => {
      const items = listArg("items", xs);
      const k = intArg("k", kv);
      if (k < 0) fail("k must be non-negative");
      const pick = (s: Value[]) => order(s, true).slice(0, k).map((i) => items[i]!);
      const s = scores(items, f, ctx);
      return isPromise(s) ? s.then(pick) : pick(s);
    },
  },
  {
    name: "minmax_scale",
    params: "xs",
    fn: ([xs = null]) => {
      const v = numbers("items", xs);
      if (v.length === 0) return [];
      const lo = Math.min(...v);
      const hi = Math.max(...v);
      return floats(v.map((x) => (hi === lo ? 0 : (x - lo) / (hi - lo))));
    },
  },
  {
    name: "zscore",
    params: "xs, sample = false",
    fn: ([xs = null, s = null]) => {
      const v = numbers("items", xs);
      if (v.length === 0) return [];
      const m = meanOf(v);
      const sd = Math.sqrt(varianceOf(v, s === true));
      return floats(v.map((x) => (sd === 0 ? 0 : (x - m) / sd)));
    },
  },
  {
    name: "weighted_mean",
    params: "xs, ws",
    fn: ([xs = null, wsv = null]) => {
      const v = nonEmpty("items", xs);
      const w = numbers("weights", wsv);
      sameLength(v, w, "items and weights must have the same length");
      if (w.some((x) => x < 0)) fail("weights must contain only non-negative numbers");
      const total = sum(w);
      if (!(total > 0)) fail("weights must sum to a positive value");
      return float(v.reduce((a, x, i) => a + x * w[i]!, 0) / total);
    },
  },
  {
    name: "weighted_choice",
    params: "items, ws = nil",
    fn: ([itemsV = null, wsv = null], ctx) => {
      const items = listArg("items", itemsV);
      if (items.length === 0) fail("items must not be empty");
      const random = () => {
        const r = ctx.runtime.builtins.get("random")?.([], ctx);
        return r instanceof HFloat ? r.v : Math.random();
      };
      if (wsv === null) return items[Math.min(items.length - 1, Math.floor(random() * items.length))]!;
      const w = numbers("weights", wsv);
      sameLength(w, items.map(() => 0), "items and weights must have the same length");
      if (w.some((x) => x < 0)) fail("weights must contain only non-negative numbers");
      const total = sum(w);
      if (!(total > 0)) fail("weights must sum to a positive value");
      let r = random() * total;
      for (let i = 0; i < items.length; i++) {
        r -= w[i]!;
        if (r < 0) return items[i]!;
      }
      return items[items.length - 1]!;
    },
  },
  {
    name: "softmax",
    params: "xs, temperature = 1.0",
    fn: ([xs = null, tv = null]) => {
      const v = numbers("items", xs);
      const t = tv === null ? 1 : positive("temperature", tv);
      if (v.length === 0) return [];
      const max = Math.max(...v);
      const ex = v.map((x) => Math.exp((x - max) / t));
      const total = sum(ex);
      return floats(ex.map((x) => x / total));
    },
  },
  {
    name: "normal_pdf",
    params: "x, mu = 0, sigma = 1",
    fn: (args) => {
      const x = numArg("x", args[0] ?? null);
      const [mu, sigma] = normalParams(args, 1);
      const z = (x - mu) / sigma;
      return float(Math.exp(-0.5 * z * z) / (sigma * Math.sqrt(2 * Math.PI)));
    },
  },
  {
    name: "normal_cdf",
    params: "x, mu = 0, sigma = 1",
    fn: (args) => {
      const x = numArg("x", args[0] ?? null);
      const [mu, sigma] = normalParams(args, 1);
      return float(0.5 * (1 + erf((x - mu) / (sigma * Math.SQRT2))));
    },
  },
  {
    name: "normal_quantile",
    params: "p, mu = 0, sigma = 1",
    fn: (args) => {
      const p = probability("probability", args[0] ?? null);
      const [mu, sigma] = normalParams(args, 1);
      return float(mu + sigma * acklam(p));
    },
  },
  {
    name: "dot",
    params: "a, b",
    fn: ([a = null, b = null]) => {
      const [x, y] = vectors(a, b);
      return float(x.reduce((s, v, i) => s + v * y[i]!, 0));
    },
  },
  { name: "vector_norm", params: "v", fn: ([v = null]) => float(norm(numbers("vector", v))) },
  {
    name: "vector_normalize",
    params: "v",
    fn: ([v = null]) => {
      const x = numbers("vector", v);
      const n = norm(x);
      if (n === 0) fail("cannot normalize a zero vector");
      return floats(x.map((a) => a / n));
    },
  },
  {
    name: "cosine_similarity",
    params: "a, b",
    fn: ([a = null, b = null]) => {
      const [x, y] = vectors(a, b);
      const nx = norm(x);
      const ny = norm(y);
      if (nx === 0 || ny === 0) fail("cosine similarity requires non-zero vectors");
      return float(x.reduce((s, v, i) => s + v * y[i]!, 0) / (nx * ny));
    },
  },
  {
    name: "euclidean_distance",
    params: "a, b",
    fn: ([a = null, b = null]) => {
      const [x, y] = vectors(a, b);
      return float(Math.sqrt(x.reduce((s, v, i) => s + (v - y[i]!) ** 2, 0)));
    },
  },
  {
    name: "manhattan_distance",
    params: "a, b",
    fn: ([a = null, b = null]) => {
      const [x, y] = vectors(a, b);
      return float(x.reduce((s, v, i) => s + Math.abs(v - y[i]!), 0));
    },
  },
  {
    name: "chebyshev_distance",
    params: "a, b",
    fn: ([a = null, b = null]) => {
      const [x, y] = vectors(a, b);
      return float(x.reduce((s, v, i) => Math.max(s, Math.abs(v - y[i]!)), 0));
    },
  },
  {
    name: "covariance",
    params: "xs, ys, sample = false",
    fn: ([xs = null, ys = null, s = null]) => float(covariance(xs, ys, s === true)),
  },
  {
    name: "correlation",
    params: "xs, ys, sample = false",
    fn: ([xs = null, ys = null, s = null]) => {
      const x = nonEmpty("xs", xs);
      const y = nonEmpty("ys", ys);
      sameLength(x, y, "xs and ys must have the same length");
      const sample = s === true;
      if (sample && x.length < 2) fail("sample correlation requires at least 2 values");
      const sx = Math.sqrt(varianceOf(x, sample));
      const sy = Math.sqrt(varianceOf(y, sample));
      if (sx === 0 || sy === 0) fail("correlation requires non-constant inputs");
      return float(covariance(xs, ys, sample) / (sx * sy));
    },
  },
  {
    name: "moving_avg",
    params: "xs, window",
    fn: ([xs = null, wv = null]) => {
      const v = numbers("items", xs);
      const w = intArg("window", wv);
      if (w < 1) fail("window must be at least 1");
      if (w > v.length) fail("window must not exceed the number of items");
      const out: number[] = [];
      for (let i = 0; i + w <= v.length; i++) out.push(meanOf(v.slice(i, i + w)));
      return floats(out);
    },
  },
  {
    name: "ema",
    params: "xs, alpha",
    fn: ([xs = null, av = null]) => {
      const v = numbers("items", xs);
      const alpha = probability("alpha", av);
      const out: number[] = [];
      v.forEach((x, i) => out.push(i === 0 ? x : alpha * x + (1 - alpha) * out[i - 1]!));
      return floats(out);
    },
  },
  { name: "kmeans", params: "points, k, options = nil", fn: ([p = null, k = null, o = null]) => kmeans(p, k, o) },
];

function covariance(xsV: Value, ysV: Value, sample: boolean): number {
  const x = nonEmpty("xs", xsV);
  const y = nonEmpty("ys", ysV);
  sameLength(x, y, "xs and ys must have the same length");
  if (sample && x.length < 2) fail("sample covariance requires at least 2 values");
  const mx = meanOf(x);
  const my = meanOf(y);
  const s = x.reduce((a, v, i) => a + (v - mx) * (y[i]! - my), 0);
  return s / (sample ? x.length - 1 : x.length);
}

export function installStdMath(def: Define, rt: Runtime): void {
  defineNativeModule(def, rt, "std/math", FNS);
}
