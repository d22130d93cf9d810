import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "cli/test/**/*.test.ts", "editors/*/test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ["./vitest.tmpdir.ts", "./vitest.offline.ts"],
  },
});
