/** Where the deploy tools' Node 22 is (plain JavaScript in `node22.mjs`, which the postinstall runs). */
export { node22, NODE22_PACKAGE } from "./node22.mjs";
