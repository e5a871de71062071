/**
 * node:http by `process.getBuiltinModule` (Node 20.16+; else the import): Node 22's ESM view of node:http reads every
 * lazy export, one loading undici, a third of the cold start. Take node:http's values from here, its types directly.
 */
export const nodeHttp: typeof import("node:http") = process.getBuiltinModule?.("node:http") ??
  (await import("node:http"));
