/** Where the deploy tools' Node 22 is (plain JavaScript in `node22.mjs`, which the postinstall runs). */
export { NODE22_PACKAGE, node22 } from "./node22.mjs";
