/**
 * The concurrency forms (spec/semantics.md §9): `spawn`, `parallel`,
 * `select`, `deadline` and `mutex`. Their run-time half (tasks, fan-out,
 * channels, locks) is the runtime's `Concurrency` (../concurrency.ts).
 */
import type * as A from "@harn/parser";
import { HarnError } from "../../errors";
import { HChannel, type HClosure, HDict, HTask, type Value, err, ok, typeOf } from "../../values";
import type { Compiler } from "../compile";
import { chanState, durationMs, linkToSignal, LOCKS } from "../concurrency";
import { Ctl } from "../control";
import type { Async, Ev, ExprEv } from "../frame";
import { evalArgs, located, thenMaybe as then } from "../helpers";
import { Task } from "../task";

export function compileSpawn(c: Compiler, n: A.SpawnExpr): ExprEv {
  const conc = c.interp.concurrency;
  const proto = c.compileFunction(null, [], n.body, n.span, { returnsLast: true, allowRest: false });
  const mk = c.makeClosure(proto);
  return (fr) => {
    const parent = fr.task;
    const closure = mk(fr) as HClosure;
    const child = new Task(`${parent.id}:spawn:${++parent.spawnCount}`, parent, null);
    child.name = "spawn";
    linkToSignal(child, parent.signal);
    const handle = new HTask(`vm_task_${++parent.handleCount}`, child);
    conc.startTask(child, closure.impl, [], fr);
    return handle;
  };
}

export function compileParallel(c: Compiler, n: A.Parallel): ExprEv {
  const conc = c.interp.concurrency;
  const params = n.variable ? [{ name: n.variable, type: null, default: null, rest: false, span: n.span }] : [];
  const proto = c.compileFunction(null, params, n.body, n.span, { returnsLast: true, allowRest: false });
  const mk = c.makeClosure(proto);
  const src = c.expr(n.expr);
  const maxOpt = n.options.find(([k]) => k === "max_concurrent");
  const maxEv = maxOpt ? c.expr(maxOpt[1]) : null;
  const mode = n.mode;
  const kind = mode === "count" ? "parallel" : mode === "each" ? "parallel_each" : mode === "settle" ? "parallel_settle" : "parallel_each_stream";
  const taskName = mode === "count" ? "parallel" : mode === "each" ? "parallel each" : mode === "settle" ? "parallel settle" : "parallel each as stream";
  const file = c.file;
  const span = n.span;
  return (fr) =>
    then(src(fr), (s) =>
      then(maxEv ? maxEv(fr) : null, (mx): Async<Value> => {
        let items: Value[];
        if (mode === "count") {
          const count = typeof s === "number" && s > 0 ? s : 0;
          items = Array.from({ length: count }, (_, i) => i);
        } else {
          if (!Array.isArray(s)) return null;
          items = s;
        }
        let limit = 0;
        if (mx !== null) {
          if (typeof mx !== "number" && typeof mx !== "bigint") throw located(HarnError.type(`parallel max_concurrent must be an int; got ${typeOf(mx)}`), span, file);
          limit = Number(mx) > 0 ? Number(mx) : 0;
        }
        const parent = fr.task;
        const group = `${parent.id}:${kind}:${++parent.fanoutCount}`;
        const closure = mk(fr) as HClosure;
        const impl = closure.impl;
        const tasks = items.map((_, i) => {
          const t = new Task(`${group}:${i}`, parent, null);
          t.name = taskName;
          t.groupId = group;
          linkToSignal(t, parent.signal);
          return t;
        });
        if (mode === "eachStream") {
          const stream = conc.fanoutStream(tasks);
          void conc.runFanout(tasks, items, impl, fr, limit, stream.settled);
          return stream.gen;
        }
        const run = conc.runFanout(tasks, items, impl, fr, limit);
        return run.then(() => {
          if (mode === "settle") {
            let failed = 0;
            const results = tasks.map((t) => {
              if (t.error !== null) {
                failed++;
                return err(t.error instanceof HarnError ? t.error.description() : String(t.error));
              }
              parent.write(t.output());
              return ok(t.result);
            });
            return HDict.of({ failed, results, succeeded: tasks.length - failed });
          }
          for (const t of tasks) {
            if (t.error !== null) throw t.error;
            parent.write(t.output());
          }
          return tasks.map((t) => t.result);
        });
      }),
    );
}

export function compileSelect(c: Compiler, n: A.SelectExpr): Ev {
  const chans = n.cases.map((k) => c.expr(k.channel));
  const bodies = n.cases.map((k) => {
    c.pushScope();
    try {
      const slot = k.variable === "_" ? -1 : c.declareLocal(k.variable, false);
      return { slot, body: c.block(k.body, true) };
    } finally {
      c.popScope();
    }
  });
  const timeout = n.timeout ? { dur: c.expr(n.timeout.duration), body: c.scopedBlock(n.timeout.body, true) } : null;
  const dflt = n.defaultBody ? c.scopedBlock(n.defaultBody, true) : null;
  const file = c.file;
  const span = n.span;
  const clock = c.interp.rt.clock;
  return (fr) =>
    then(evalArgs(chans, null, fr), (cs) =>
      then(timeout ? timeout.dur(fr) : null, (d) => {
        const states = cs.map((ch) => {
          if (!(ch instanceof HChannel)) throw located(HarnError.thrown("select: all arguments must be channels"), span, file);
          return chanState(ch);
        });
        const poll = (): { run: Ev } | null => {
          for (let i = 0; i < states.length; i++) {
            const t = states[i]!.tryTake();
            if (t) {
              const b = bodies[i]!;
              if (b.slot >= 0) fr.s[b.slot] = t.v;
              return { run: b.body };
            }
          }
          return null;
        };
        const first = poll();
        if (first) return first.run(fr);
        if (dflt) return dflt(fr);
        const task = fr.task;
        const deadlineAt = timeout ? clock.monotonic() + durationMs(d) : Infinity;
        return (async () => {
          for (;;) {
            if (states.length > 0 && states.every((s) => s.closed && s.queue.length === 0) && !timeout) return null;
            const ac = new AbortController();
            const link = () => ac.abort(task.signal.reason);
            task.signal.addEventListener("abort", link, { once: true });
            const waits: Promise<unknown>[] = states.map((s) => s.changed(ac.signal).catch(() => undefined));
            let timedOut = false;
            if (timeout) {
              const left = deadlineAt - clock.monotonic();
              waits.push(
                clock.sleep(Math.max(0, left), ac.signal).then(
                  () => {
                    timedOut = true;
                  },
                  () => undefined,
                ),
              );
            }
            try {
              await Promise.race(waits);
            } finally {
              task.signal.removeEventListener("abort", link);
              ac.abort();
            }
            task.checkAborted();
            const got = poll();
            if (got) {
              const r = got.run(fr);
              return r instanceof Promise ? await r : r;
            }
            if (timedOut || (timeout && clock.monotonic() >= deadlineAt)) {
              const r = timeout!.body(fr);
              return r instanceof Promise ? await r : r;
            }
          }
        })();
      }),
    );
}

export function compileDeadline(c: Compiler, n: A.DeadlineBlock): Ev {
  const dur = c.expr(n.duration);
  const body = c.scopedBlock(n.body, true);
  const file = c.file;
  const span = n.span;
  const clock = c.interp.rt.clock;
  return (fr) =>
    then(dur(fr), (d) => {
      const ms = durationMs(d);
      const task = fr.task;
      const outer = task.signal;
      const ac = new AbortController();
      const onOuter = () => ac.abort(outer.reason);
      if (outer.aborted) ac.abort(outer.reason);
      else outer.addEventListener("abort", onOuter, { once: true });
      const cancelTimer = clock.timer(ms, () => ac.abort(located(HarnError.thrown("Deadline exceeded"), span, file)));
      task.signal = ac.signal;
      const cleanup = () => {
        cancelTimer();
        outer.removeEventListener("abort", onOuter);
        task.signal = outer;
      };
      let r;
      try {
        r = body(fr);
      } catch (e) {
        cleanup();
        throw e;
      }
      if (r instanceof Promise)
        return r.then(
          (v) => {
            cleanup();
            return v;
          },
          (e) => {
            cleanup();
            throw e;
          },
        );
      cleanup();
      return r;
    });
}

export function compileMutex(c: Compiler, n: A.MutexBlock): Ev {
  const body = c.scopedBlock(n.body, false);
  const rt = c.interp.rt;
  return (fr) => {
    const locks = rt.slot(LOCKS);
    const run = () => {
      let r;
      try {
        r = body(fr);
      } catch (e) {
        locks.release("__default__");
        throw e;
      }
      const done = (x: unknown) => {
        locks.release("__default__");
        return x instanceof Ctl ? x : null;
      };
      if (r instanceof Promise)
        return r.then(done, (e) => {
          locks.release("__default__");
          throw e;
        });
      return done(r);
    };
    if (locks.tryAcquire("__default__")) return run();
    return locks.acquire("__default__", fr.task.signal).then(run);
  };
}
