/** The installed aws-lambda-ric package, in deploy/tools/. */
export declare const RIC_PACKAGE: string;
/** The file the build leaves: the client is built exactly when it is there. */
export declare const RIC_ADDON: string;
/** preinstall.sh (curl and aws-lambda-cpp) on the locked tarball, in `dir`. Returns why it failed, or undefined. */
export declare function stageRic(dir: string): string | undefined;
/**
 * Builds the client with the package's own install scripts; with `staged` (a folder stageRic
 * built), preinstall.sh's output is copied from there. Returns why it failed, or undefined.
 */
export declare function buildRic(staged?: string): string | undefined;
/** This process's environment without the npm_* variables of a lifecycle, which would steer an npm run inside it. */
export declare function cleanEnv(): Record<string, string | undefined>;
