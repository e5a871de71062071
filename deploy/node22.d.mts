/** The `node22` package's binary, where `npm ci` installed it. */
export declare const NODE22_PACKAGE: string;
/** The Node 22 (or newer) to run the deploy tools with, if this platform has one. */
export declare function node22(): string | undefined;
