/** The installed aws-lambda-ric package, in deploy/tools/. */
export declare const RIC_PACKAGE: string;
/** The file the build leaves: the client is built exactly when it is there. */
export declare const RIC_ADDON: string;
/** Builds the client with the package's own install scripts. Returns why it failed, or undefined. */
export declare function buildRic(): string | undefined;
