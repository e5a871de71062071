/**
 * node:http for the Node servers, by `process.getBuiltinModule`, not by `import`: Node 22's ESM view
 * of node:http reads every lazy export, and one of them loads undici, a third of the cold start of
 * `dist/node/server.mjs` spent on nothing. (getBuiltinModule is Node 20.16 and later; before it, the
 * import.) Import node:http's types directly; take its values from here.
 */
export const nodeHttp: typeof import("node:http") = process.getBuiltinModule?.("node:http") ??
  (await import("node:http"));
