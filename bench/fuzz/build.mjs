// Bundles fuzz.ts (the in-process fuzz worker) into fuzz.mjs.
import { bundleTs } from "../bundle-ts.mjs";
await bundleTs(new URL("fuzz.ts", import.meta.url));
