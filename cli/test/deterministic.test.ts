/**
 * `harn test --deterministic`, `--seed`, `--explore` end to end (spec/
 * extensions.md §5; formats in cli/src/deterministic.ts): the built `harn`
 * as a child process over test files in a temp dir.
 */
import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { cliSandbox, harnEnv } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-determ-", harn: "built", colour: "plain", timeout: 60_000 });
const { harn, file } = cli;

const SLEEPY = `
pipeline test_sleeps_a_minute() {
  let t0 = monotonic_ms()
  sleep(60s)
  println("slept " + to_string(monotonic_ms() - t0))
  println("now " + to_string(timestamp()))
}

pipeline test_deadline_cuts_a_sleep() {
  let r = try { deadline 1s { sleep(5s); "finished" } } catch (e) { "caught " + to_string(e) }
  println(r)
}
`;

// Two tasks that finish at the same virtual instant report through a
// channel: which one arrives first is the scheduler's choice.
const RACE = `
pipeline test_race() {
  let ch = channel("c", 10)
  let a = spawn { sleep(10ms); send(ch, "a") }
  let b = spawn { sleep(10ms); send(ch, "b") }
  println("order " + receive(ch) + receive(ch))
  await(a)
  await(b)
}
`;

// A lost update that only some interleavings show: task a reads the
// balance, waits, and writes back what it read plus 10.
const BANK = `
pipeline test_deposits() {
  let balance = atomic(0)
  let a = spawn {
    sleep(5ms)
    let seen = atomic_get(balance)
    sleep(5ms)
    atomic_set(balance, seen + 10)
  }
  let b = spawn {
    sleep(5ms)
    sleep(5ms)
    atomic_add(balance, 20)
  }
  await(a)
  await(b)
  assert_eq(atomic_get(balance), 30)
}
`;

describe("harn test --deterministic: the virtual clock", () => {
  it("sleeps a virtual minute inside a 5 s real timeout and reports the virtual time", () => {
    file("sleepy.harn", SLEEPY);
    const r = harn(["test", "--deterministic", "--timeout", "5000", "sleepy.harn"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("slept 60000\n");
    // the virtual wall clock starts at 2026-01-01T00:00:00Z
    expect(r.stdout).toContain("now 1767225660.0\n");
    expect(r.stdout).toMatch(/ {2}PASS {2}test_sleeps_a_minute \[.*sleepy\.harn\] \(\d+ ms; virtual 60000 ms\)\n/);
    expect(r.stdout).toContain("caught Deadline exceeded\n");
    expect(r.stdout).toMatch(/ {2}PASS {2}test_deadline_cuts_a_sleep \[.*\] \(\d+ ms; virtual 1000 ms\)\n/);
  });

  it("runs tests one at a time even with --parallel (idleness is read off the shared event loop)", () => {
    file("par/a.harn", SLEEPY);
    file("par/b.harn", SLEEPY);
    const r = harn(["test", "--deterministic", "--parallel", "--timeout", "5000", "par"]);
    expect(r.code).toBe(0);
    expect(r.stdout.match(/virtual 60000 ms/g)?.length).toBe(2);
  });

  it("on the real clock the same test hits --timeout", () => {
    file("sleepy_real.harn", SLEEPY);
    const r = harn(["test", "--timeout", "300", "--filter", "minute", "sleepy_real.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("timed out after 300ms");
  });

  it("child processes run in real time: a deadline around one means what it says", () => {
    file(
      "proc.harn",
      `pipeline test_child_within_deadline() {
  let r = deadline 1h { shell("sleep 0.2; echo done") }
  println("child said " + r.stdout)
}

pipeline test_child_past_deadline() {
  let r = try { deadline 200ms { shell("sleep 30; echo late") } } catch (e) { "caught " + to_string(e) }
  println(r)
}
`,
    );
    const r = harn(["test", "--deterministic", "--timeout", "10000", "proc.harn"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("child said done\n");
    expect(r.stdout).toContain("caught Deadline exceeded\n");
    expect(r.stdout).toMatch(/PASS {2}test_child_past_deadline \[.*\] \(\d+ ms; virtual 200 ms\)/);
  });

  it("golden-file tests run on it too", () => {
    file("golden/nap.harn", 'let t0 = monotonic_ms()\nsleep(3s)\nprintln(monotonic_ms() - t0)\n');
    file("golden/nap.expected", "3000\n");
    const r = harn(["test", "--deterministic", "--timeout", "2000", "golden"]);
    expect(r.stdout).toContain("1 passed, 0 failed");
    expect(r.code).toBe(0);
  });
});

describe("harn test --deterministic: retries wait on the virtual clock", () => {
  it("a mocked 429's Retry-After and a real server's 503 Retry-After pass inside a 5 s timeout", async () => {
    file(
      "retry.harn",
      `pipeline test_retry_after_mocked() {
  http_mock("GET", "https://api.test", {responses: [{status: 429, headers: {"Retry-After": "30"}}, {status: 200, body: "ok"}]})
  let t0 = monotonic_ms()
  let r = http_get("https://api.test", {retry: {max: 1, backoff_ms: 0}})
  println("mocked " + to_string(r.status) + " " + r.body + " after " + to_string(monotonic_ms() - t0))
}

pipeline test_retry_after_real_server() {
  let t0 = monotonic_ms()
  let r = http_get(env("RETRY_URL"), {retry: {max: 2, backoff_ms: 20000}})
  println("real " + to_string(r.status) + " " + r.body + " after " + to_string(monotonic_ms() - t0))
}
`,
    );
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests++;
      if (requests === 1) res.writeHead(503, { "retry-after": "45" }).end("busy");
      else res.end("fine");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
      // asynchronously: the server answers from this process's event loop
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          [cli.bin, "test", "--deterministic", "--timeout", "5000", "retry.harn"],
          { cwd: cli.dir, env: harnEnv("plain", { RETRY_URL: url }), encoding: "utf8" },
          (e, out) => (e && e.code !== 1 ? reject(e) : resolve(out)),
        ),
      );
      expect(stdout).toContain("mocked 200 ok after 30000\n");
      expect(stdout).toMatch(/PASS {2}test_retry_after_mocked \[.*\] \(\d+ ms; virtual 30000 ms\)/);
      expect(stdout).toContain("real 200 fine after 45000\n");
      expect(stdout).toMatch(/PASS {2}test_retry_after_real_server \[.*\] \(\d+ ms; virtual 45000 ms\)/);
      expect(requests).toBe(2);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe("harn test --deterministic: mocked streams", () => {
  it("a receive timeout on a mocked websocket waits virtually", () => {
    file(
      "ws.harn",
      `pipeline test_idle_echo() {
  websocket_mock("wss://echo.test", {echo: true})
  let ws = websocket_connect("wss://echo.test")
  let t0 = monotonic_ms()
  let r = websocket_receive(ws, 30s)
  println("got " + r.type + " after " + to_string(monotonic_ms() - t0))
}
`,
    );
    const r = harn(["test", "--deterministic", "--timeout", "5000", "ws.harn"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("got timeout after 30000\n");
    expect(r.stdout).toMatch(/PASS {2}test_idle_echo \[.*\] \(\d+ ms; virtual 30000 ms\)/);
  });
});

describe("harn test --seed: the scheduler", () => {
  const orderFor = (seed: number | null): string => {
    const args = seed === null ? ["test", "--deterministic", "race.harn"] : ["test", "--seed", String(seed), "race.harn"];
    const r = harn(args);
    expect(r.code).toBe(0);
    const m = /order (ab|ba)/.exec(r.stdout);
    expect(m).not.toBeNull();
    return m![1]!;
  };

  it("one seed is one order, and some seeds differ", () => {
    file("race.harn", RACE);
    const seeds = [1, 2, 3, 4, 5, 6, 7, 8];
    const first = seeds.map(orderFor);
    const again = seeds.map(orderFor);
    expect(again).toEqual(first);
    expect(new Set(first)).toEqual(new Set(["ab", "ba"]));
    // without a seed: start order, then registration order
    expect(orderFor(null)).toBe("ab");
  });
});

describe("harn test --deterministic: randomness", () => {
  it("the unseeded random builtins replay with the seed", () => {
    file("dice.harn", 'pipeline test_dice() {\n  println("dice " + to_string(random_int(1, 1000000)) + " " + to_string(random()))\n}\n');
    const dice = (args: string[]) => /dice .*/.exec(harn(["test", ...args, "dice.harn"]).stdout)![0];
    expect(dice(["--seed", "5"])).toBe(dice(["--seed", "5"]));
    expect(dice(["--deterministic"])).toBe(dice(["--deterministic"]));
    expect(dice(["--seed", "6"])).not.toBe(dice(["--seed", "5"]));
  });
});

describe("harn test --explore", () => {
  it("finds the interleaving that loses an update and prints a seed that replays it", () => {
    file("bank.harn", BANK);
    // the FIFO order happens to be a good one
    expect(harn(["test", "--deterministic", "bank.harn"]).code).toBe(0);

    const r = harn(["test", "--explore", "30", "bank.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("Assertion failed: expected 30, got 10");
    const seed = /\n {8}seed: (\d+)\n/.exec(r.stdout);
    expect(seed).not.toBeNull();
    const replay = /\n {8}replay: harn (test --deterministic --seed \d+ --filter test_deposits \S+bank\.harn)\n/.exec(r.stdout);
    expect(replay).not.toBeNull();
    expect(replay![1]).toContain(`--seed ${seed![1]} `);

    const again = harn(replay![1]!.split(" "));
    expect(again.code).toBe(1);
    expect(again.stdout).toContain("Assertion failed: expected 30, got 10");
    expect(again.stdout).toContain(`seed: ${seed![1]}\n`);
  });

  it("reports how many seeds a passing test ran", () => {
    file("race2.harn", RACE);
    const r = harn(["test", "--explore", "5", "race2.harn"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/PASS {2}test_race \[.*\] \(\d+ ms; virtual 10 ms; 5 seeds\)/);
    // only one run's output is shown
    expect(r.stdout.match(/order /g)?.length).toBe(1);
  });

  it("names the seed of a failing conformance test", () => {
    file("conformance/tests/bank.harn", BANK.replace("pipeline test_deposits()", "pipeline main()"));
    file("conformance/tests/bank.expected", "");
    const r = harn(["test", "conformance", "--explore", "30"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/\n {2}seed: \d+\n {2}replay: harn test --deterministic --seed \d+ conformance tests\/bank\.harn\n/);
  });

  it("rejects bad values as usage errors", () => {
    const bad = harn(["test", "--seed", "x1", "race.harn"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("error: invalid --seed value 'x1'");
    const zero = harn(["test", "--explore", "0", "race.harn"]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("error: invalid --explore value '0'");
    const crash = harn(["test", "conformance", "--crash-points"]);
    expect(crash.code).toBe(2);
    expect(crash.stderr).toContain("error: --crash-points runs user tests");
  });
});
