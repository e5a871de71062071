/**
 * Node's modules by `process.getBuiltinModule` (Node 20.16+; else the import), for code on the Node
 * server's start path: Node 22's ESM view of a built-in reads every lazy export, and node:http's
 * loads undici (a third of the cold start), node:util's its diff and colour modules and stderr
 * (8 ms). Take values from here, types from the modules directly.
 */
export const nodeHttp: typeof import("node:http") = process.getBuiltinModule?.("node:http") ??
  (await import("node:http"));
export const nodeUtil: typeof import("node:util") = process.getBuiltinModule?.("node:util") ??
  (await import("node:util"));
export const nodeDiagnostics: typeof import("node:diagnostics_channel") =
  process.getBuiltinModule?.("node:diagnostics_channel") ?? (await import("node:diagnostics_channel"));
export const nodeNet: typeof import("node:net") = process.getBuiltinModule?.("node:net") ??
  (await import("node:net"));
