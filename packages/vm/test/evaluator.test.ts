/**
 * The evaluator through its public API (ProgramRunner on a Runtime), with a
 * minimal println, sleep, channel and receive (built from the vm's
 * primitives, as the stdlib builds its own) so the tests do not depend on
 * the stdlib. Behaviour that
 * `.harn` golden files cannot show lives here: runtime isolation, cleanup
 * of timers and tasks, cancellation from the host, the module host, the
 * operators' int/bigint boundary.
 */
import { parse } from "@harn/parser";
import { describe, expect, it } from "vitest";
import {
  channelReceive,
  CompileError,
  HarnError,
  type HChannel,
  makeChannel,
  type ModuleHost,
  ProgramRunner,
  Runtime,
  type Value,
  display,
  ops,
  HFloat,
} from "../src/index";

function runtime(out: string[]): Runtime {
  const rt = new Runtime({ stdout: { write: (t) => void out.push(t) }, stderr: { write: () => undefined }, cwd: "/", env: {} });
  rt.defineBuiltin("println", (args, ctx) => {
    ctx.out(display(args[0] ?? "") + "\n");
    return null;
  });
  rt.defineBuiltin("sleep", (args, ctx) => rt.clock.sleep(args[0] as number, ctx.signal).then(() => null));
  rt.defineBuiltin("channel", (args) => makeChannel(String(args[0]), 256));
  rt.defineBuiltin("receive", (args, ctx) => channelReceive(args[0] as HChannel, ctx.signal));
  return rt;
}

async function run(source: string, modules?: ModuleHost): Promise<{ out: string; value: Value }> {
  const out: string[] = [];
  const { program, errors } = parse(source);
  expect(errors).toEqual([]);
  const value = await new ProgramRunner(runtime(out), { file: "t.harn", modules }).run(program);
  return { out: out.join(""), value };
}

async function failure(source: string): Promise<unknown> {
  try {
    await run(source);
  } catch (e) {
    return e;
  }
  throw new Error("expected the program to fail");
}

function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === "Timeout" || r === "Immediate").length;
}

describe("ProgramRunner", () => {
  it("returns the entry pipeline's value", async () => {
    expect((await run("pipeline default() {\n  let x = 20\n  x * 2 + 2\n}\n")).value).toBe(42);
    expect((await run("let x = 1\nx + 1\n")).value).toBe(null);
  });

  it("keeps two runtimes apart, even running at the same time", async () => {
    const src = (tag: string) => `var n = 0\nfor i in 1 to 3 {\n  sleep(5)\n  n = n + 1\n  println("${tag}\${n}")\n}\n`;
    const a = new Runtime({ stdout: { write: () => undefined }, stderr: { write: () => undefined }, cwd: "/", env: {} });
    void a;
    const [x, y] = await Promise.all([run(src("a")), run(src("b"))]);
    expect(x.out).toBe("a1\na2\na3\n");
    expect(y.out).toBe("b1\nb2\nb3\n");
  });

  it("cancels un-awaited tasks and clears their timers when the program ends", async () => {
    const before = timers();
    const r = await run('spawn { sleep(3600000) }\nlet c = channel("c")\nspawn { receive(c) }\nprintln("done")\n');
    expect(r.out).toBe("done\n");
    // let the cancellations settle
    await new Promise((res) => setImmediate(res));
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it("stops a CPU-bound loop when the host cancels", async () => {
    const out: string[] = [];
    const { program } = parse("var i = 0\nwhile true { i += 1 }\n");
    const runner = new ProgramRunner(runtime(out), { file: "spin.harn" });
    const p = runner.run(program);
    setTimeout(() => runner.cancel(HarnError.thrown("stop")), 20);
    const e = await p.then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(HarnError);
    expect((e as HarnError).description()).toBe("Thrown: stop");
  });

  it("runs 100,000 returns and 10,000-deep tail calls", async () => {
    const r = await run("fn one(x) { return x }\nvar s = 0\nfor i in 0 to 100000 exclusive { s = s + one(1) }\nfn t(n) {\n  if n == 0 { return 0 }\n  return t(n - 1)\n}\nprintln(s)\nprintln(t(10000))\n");
    expect(r.out).toBe("100000\n0\n");
  });

  it("reports compile errors before running anything", async () => {
    const e = await failure('println("never")\nwhile true {\n  let f = { -> break }\n}\n');
    expect(e).toBeInstanceOf(CompileError);
    expect((e as CompileError).message).toBe("break outside of loop");
  });

  it("gives uncaught errors their location, line suffix and call notes", async () => {
    const e = (await failure('fn inner(x) {\n  return x / 0\n}\nfn outer() { return inner(1) + 1 }\nouter()\n')) as HarnError;
    expect(e.description()).toBe("Runtime error: Division by zero (line 2)");
    expect(e.span).toMatchObject({ line: 2, column: 14 });
    expect(e.frames.map((f) => `${f.name}:${f.line}`)).toEqual(["outer:4", "pipeline:5"]);
  });
});

describe("modules through a host", () => {
  const sources: Record<string, string> = {
    "/lib/a.harn": 'import { b } from "./b"\npub fn a() { return "a" + b() }\n',
    "/lib/b.harn": 'pub fn b() { return "b" + c() }\nfn c() { return "c" }\n',
    "/lib/x.harn": 'import "./y"\npub fn x() { return 1 }\n',
    "/lib/y.harn": 'import "./x"\npub fn y() { return 2 }\n',
  };
  const host: ModuleHost = {
    resolve(from, path) {
      const base = from.startsWith("/lib/") ? "/lib/" : "/lib/";
      const key = base + path.replace("./", "").replace("lib/", "") + ".harn";
      return key in sources ? key : null;
    },
    load(key) {
      return parse(sources[key]!).program;
    },
  };

  it("imports transitively, with module-private helpers late-bound", async () => {
    expect((await run('import { a } from "./lib/a"\nprintln(a())\n', host)).out).toBe("abc\n");
  });

  it("reports an import cycle with its path", async () => {
    const out: string[] = [];
    const e = await new ProgramRunner(runtime(out), { file: "t.harn", modules: host }).run(parse('import "./lib/x"\n').program).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CompileError);
    expect((e as CompileError).message).toBe("Import cycle: /lib/x.harn -> /lib/y.harn -> /lib/x.harn");
  });
});

describe("operators", () => {
  it("wraps ints at 64 bits across the number/bigint boundary", () => {
    expect(ops.add(9007199254740991, 1)).toBe(9007199254740992n);
    expect(ops.sub(9007199254740992n, 1)).toBe(9007199254740991);
    expect(ops.add(9223372036854775807n, 1)).toBe(-9223372036854775808n);
    expect(ops.mul(4294967296, 4294967296)).toBe(0);
    expect(ops.pow(2, 64)).toBe(0);
    expect(ops.div(-7, 2)).toBe(-3);
    expect(ops.mod(-7, 3)).toBe(-1);
    expect(ops.div(9223372036854775807n, 2)).toBe(4611686018427387903n);
  });

  it("never produces -0 from int arithmetic", () => {
    expect(Object.is(ops.mul(0, -5), 0)).toBe(true);
    expect(Object.is(ops.div(0, -5), 0)).toBe(true);
    expect(Object.is(ops.mod(-4, 2), 0)).toBe(true);
  });

  it("treats float exponents and negative int exponents as float pow", () => {
    expect(ops.pow(2, -1)).toEqual(new HFloat(0.5));
    expect((ops.pow(new HFloat(1.1), 10) as HFloat).v).toBe(2.593742460100002);
  });
});
