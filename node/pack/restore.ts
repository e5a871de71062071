import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { restoreManifest } from "./manifest.ts";

restoreManifest(resolve(dirname(fileURLToPath(import.meta.url)), "../.."));
