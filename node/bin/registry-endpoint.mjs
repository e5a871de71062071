#!/usr/bin/env node
// `registry-endpoint` in a clone (package.json's `bin`): the command's TypeScript, run by tsx (a
// dependency of a clone, which the operator's install brings) on any Node, so that
// `npx registry-endpoint <command>` runs the sources as they are now, with no build step. The
// packed package's `bin` is the compiled lib/bin/registry-endpoint.mjs instead (node/pack/manifest.ts).
import { register } from "tsx/esm/api";

register();
await import("./registry-endpoint.ts");
