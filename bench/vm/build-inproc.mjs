// Bundles inproc.ts (the in-process timing aid) into inproc.mjs.
import { bundleTs } from "../bundle-ts.mjs";
await bundleTs(new URL("inproc.ts", import.meta.url));
