/** The private key is written to FILE only (mode 0600, never over anything there): it is never printed. */
import { open } from "node:fs/promises";
import { printable } from "../common/printable.ts";
import { resolve } from "node:path";
import { shownPath } from "../../contract/config.ts";
import { generateSigningKey, keySet } from "../../assembly/jws.ts";
import { type Command, type CommandSpec, parseOrExit } from "../common/args.ts";

const SPEC: CommandSpec = {
  usage: "registry-endpoint keygen FILE",
  help: `
Makes a new Ed25519 key for signed builds: writes the private key to FILE as PKCS#8 PEM, readable by
its owner only (mode 0600), and prints its public JWK Set (what consumers pin, and what the build
serves at /api/registry.keys.json). FILE must not exist: a key is never overwritten, and "-" is
refused (the key is never printed). Put the file's text in REGISTRY_SIGNING_KEY where the build runs
(a CI secret); to rotate, put the old and the new key's blocks in it, one after the other, until
consumers pin the new key.

Exit codes: 0 written; 1 FILE exists or cannot be written; 2 a bad flag or argument.`,
  flags: {},
  positionals: { min: 1, max: 1 },
};

/** `registry-endpoint keygen` as a function. */
export const runKeygen: Command = async (argv, _env, io) => {
  const parsed = parseOrExit(SPEC, argv, io);
  if (typeof parsed === "number") return parsed;
  const name = parsed.positionals[0] as string;
  if (name === "") {
    io.stderr(`FILE: empty; give the new key's file name (${SPEC.usage})\n`);
    return 2;
  }
  // "-" reads as stdout to most commands: a private key is written only to a file of mode 0600, never printed.
  if (name === "-") {
    io.stderr(`FILE: "-" is not a file name here; the key is never written to stdout (${SPEC.usage})\n`);
    return 2;
  }
  const file = resolve(io.cwd, name);
  const shown = printable(shownPath(name), "");
  const { pem, key } = await generateSigningKey();
  let handle;
  try {
    // "wx": create only, failing on anything there (a file, a folder, a link, even to nothing).
    handle = await open(file, "wx", 0o600);
  } catch (error: unknown) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "EEXIST"
      ? "exists: a key is never overwritten; choose a new file"
      : `cannot be written (${code})`;
    io.stderr(`${shown}: ${why}\n`);
    return 1;
  }
  try {
    await handle.writeFile(pem);
    await handle.chmod(0o600);
  } finally {
    await handle.close();
  }
  io.stdout(`${JSON.stringify(keySet([key]), null, 2)}\n`);
  io.stderr(`wrote ${shown} (mode 0600): keep it secret; set REGISTRY_SIGNING_KEY to its text where the build runs\n`);
  return 0;
};
