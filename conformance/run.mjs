// `pnpm test`'s second half: the conformance suite through the built harn,
// with HARN_HOME in a temp directory removed afterwards. The suite's
// scripts start processes, and every runtime that does records itself in
// `$HARN_HOME/runs` (stdlib core/run_registry.ts): a test run must never
// write to the developer's ~/.harn. Arguments go to `harn test conformance`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const home = mkdtempSync(join(tmpdir(), "harn-conformance-home-"));
try {
  const r = spawnSync(process.execPath, [join(repo, "cli", "bin", "harn.cjs"), "test", "conformance", ...process.argv.slice(2)], {
    cwd: repo,
    stdio: "inherit",
    env: { ...process.env, HARN_HOME: home },
  });
  process.exitCode = r.status ?? 1;
} finally {
  rmSync(home, { recursive: true, force: true });
}
