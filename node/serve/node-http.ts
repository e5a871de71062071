/**
 * node:http by `process.getBuiltinModule` (Node 20.16 and later; before it, the import), not by `import`: Node 22's
 * ESM view of node:http reads every lazy export, and one loads undici, a third of the server's cold start spent on
 * nothing. Import node:http's types directly; take its values from here.
 */
export const nodeHttp: typeof import("node:http") = process.getBuiltinModule?.("node:http") ??
  (await import("node:http"));
