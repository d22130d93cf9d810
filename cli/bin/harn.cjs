#!/usr/bin/env node
// The `harn` command. The real code is the bundle that `pnpm build` writes.
require("../dist/harn.cjs");
