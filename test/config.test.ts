import { test } from "uvu";
import * as assert from "uvu/assert";
import { parseBaseUrl, resolveConfig, sentUrl, shownArgument, shownPath, shownUrl } from "../contract/config.ts";
import { readPrevious } from "../node/builder/previous.ts";
import { VERSIONS } from "../assembly/versions.ts";
import { runCli } from "./process.ts";

const NOW = () => new Date("2026-11-21T09:08:07.654Z");
const DEFAULT_BASE_URL = "http://localhost:8787";

test("the default base URL is http://localhost:8787; an empty BASE_URL counts as unset", () => {
  assert.equal(resolveConfig({}, {}, NOW), {
    ok: { baseUrl: "http://localhost:8787", builtAt: "2026-11-21T09:08:07Z" },
  });
  assert.equal(resolveConfig({ BASE_URL: "" }, {}, NOW), {
    ok: { baseUrl: "http://localhost:8787", builtAt: "2026-11-21T09:08:07Z" },
  });
});

test("base URL: absolute http(s), trailing slashes dropped, host lower-cased", () => {
  assert.equal(parseBaseUrl("https://Registry.Example.org/"), { ok: "https://registry.example.org" });
  assert.equal(parseBaseUrl("http://127.0.0.1:8787"), { ok: "http://127.0.0.1:8787" });
  assert.equal(parseBaseUrl("https://example.org/reg//"), { ok: "https://example.org/reg" });
  assert.equal(parseBaseUrl("https://example.org:443/"), { ok: "https://example.org" });
  assert.equal(parseBaseUrl("https://example.org/Reg-1/v_2.x~y"), { ok: "https://example.org/Reg-1/v_2.x~y" });
  // What the static export could not serve at the same address: a folder named with %, a _headers
  // placeholder, a collision with _headers.
  for (
    const bad of [
      "https://example.org/my reg",
      "https://example.org/my%20reg",
      "https://example.org/:splat",
      "https://example.org/a*",
      "https://example.org/a//b",
      "https://example.org/_headers",
      "https://example.org/_headers/x",
      "https://example.org/caf\u00e9",
    ]
  ) {
    assert.ok("error" in parseBaseUrl(bad), bad);
  }
  for (
    const bad of [
      "",
      "example.org",
      "/vaults",
      "ftp://example.org",
      "https://example.org/?a=1",
      "https://example.org/#x",
      "https://u:p@example.org",
      "https://u@example.org",
      "https://:p@example.org",
      "javascript:alert(1)",
    ]
  ) {
    assert.ok("error" in parseBaseUrl(bad), bad);
  }
});

test("built_at: explicit, else SOURCE_DATE_EPOCH, else the clock truncated to the second", () => {
  assert.equal(resolveConfig({}, {}, NOW), { ok: { baseUrl: DEFAULT_BASE_URL, builtAt: "2026-11-21T09:08:07Z" } });
  assert.equal(resolveConfig({ SOURCE_DATE_EPOCH: "1763683200" }, {}, NOW), {
    ok: { baseUrl: DEFAULT_BASE_URL, builtAt: "2025-11-21T00:00:00Z" },
  });
  assert.equal(
    resolveConfig({ SOURCE_DATE_EPOCH: "1763683200" }, { builtAt: "2026-01-01T00:00:00Z" }, NOW),
    { ok: { baseUrl: DEFAULT_BASE_URL, builtAt: "2026-01-01T00:00:00Z" } },
  );
  assert.equal(resolveConfig({ SOURCE_DATE_EPOCH: "" }, {}, NOW), {
    ok: { baseUrl: DEFAULT_BASE_URL, builtAt: "2026-11-21T09:08:07Z" },
  });
});

test("without an explicit clock, built_at is now, to the second", () => {
  const before = Math.floor(Date.now() / 1000) * 1000;
  const resolved = resolveConfig({});
  assert.ok("ok" in resolved);
  const builtAt = Date.parse(resolved.ok.builtAt);
  assert.ok(builtAt >= before && builtAt <= Date.now(), resolved.ok.builtAt);
});

test("SOURCE_DATE_EPOCH: whole seconds within four-digit years only", () => {
  const builtAt = (epoch: string) => resolveConfig({ SOURCE_DATE_EPOCH: epoch }, {}, NOW);
  assert.equal(builtAt("0"), { ok: { baseUrl: DEFAULT_BASE_URL, builtAt: "1970-01-01T00:00:00Z" } });
  assert.equal(builtAt("253402300799"), { ok: { baseUrl: DEFAULT_BASE_URL, builtAt: "9999-12-31T23:59:59Z" } });
  for (const bad of ["-1", "1.5", "1e9", " 1", "253402300800", "now"]) {
    const got = builtAt(bad);
    assert.ok(
      "problems" in got && got.problems.length === 1 && got.problems[0]!.startsWith("SOURCE_DATE_EPOCH: "),
      bad,
    );
  }
});

test("base URL: explicit, else BASE_URL, else the default; problems name their setting", () => {
  assert.equal(resolveConfig({ BASE_URL: "https://a.example/" }, {}, NOW), {
    ok: { baseUrl: "https://a.example", builtAt: "2026-11-21T09:08:07Z" },
  });
  assert.equal(resolveConfig({ BASE_URL: "https://a.example/" }, { baseUrl: "https://b.example" }, NOW), {
    ok: { baseUrl: "https://b.example", builtAt: "2026-11-21T09:08:07Z" },
  });
  assert.equal(resolveConfig({ BASE_URL: "nope", SOURCE_DATE_EPOCH: "x" }, {}, NOW), {
    problems: [
      'BASE_URL: expected an absolute http or https URL without query, fragment or credentials, got "nope"',
      'SOURCE_DATE_EPOCH: expected whole seconds since 1970-01-01 (at most 253402300799), got "x"',
    ],
  });
  assert.equal(resolveConfig({}, { baseUrl: "ftp://x", builtAt: "2026-11-21" }, NOW), {
    problems: [
      '--base-url: expected an absolute http or https URL without query, fragment or credentials, got "ftp://x"',
      '--built-at: expected an RFC 3339 UTC timestamp like 2026-11-14T08:30:00Z, got "2026-11-21"',
    ],
  });
});

test("a base URL with a user name or password is refused naming the rule; no URL with an @ is ever echoed", async () => {
  const rule =
    "a base URL must not hold a user name or password (user:password@ before the host); the value is not printed";
  for (
    const url of [
      "https://user:hunter2@example.org",
      "https://hunter2@example.org/reg",
      "http://:hunter2@127.0.0.1:8787",
      "ftp://u:hunter2@example.org",
      "HTTPS://u:hunter2@Example.org",
    ]
  ) {
    assert.equal(parseBaseUrl(url), { error: rule }, url);
    assert.equal(resolveConfig({ BASE_URL: url }, {}, NOW), { problems: [`BASE_URL: ${rule}`] });
    assert.equal(resolveConfig({}, { baseUrl: url }, NOW), { problems: [`--base-url: ${rule}`] });
  }
  // Refused for another reason, a value with an @ is still not printed: it may hold a password.
  for (
    const url of [
      "https://example.org/?u=hunter2@x",
      "not a url hunter2@x",
      "mailto:hunter2@example.org",
      "https://example.org/#hunter2@",
    ]
  ) {
    const parsed = parseBaseUrl(url);
    assert.ok("error" in parsed, url);
    if ("error" in parsed) assert.not.ok(parsed.error.includes("hunter2"), parsed.error);
  }
  // An @ the parser reads as part of the path, where the operator may have meant a password: refused, never printed.
  for (
    const url of [
      "https://example.org/@team/",
      "https://deploy:8443/s3cr3t@registry.example",
      "https://tok/en@host.example/base",
      "https://user\\pass@host",
      "https://u:p\uff20host",
      "https://h/a\ufe6bb",
    ]
  ) {
    const parsed = parseBaseUrl(url);
    assert.ok("error" in parsed, url);
    if ("error" in parsed) {
      assert.ok(
        parsed.error.endsWith("got a value with an @, not printed (it may hold a user name or password)"),
        parsed.error,
      );
    }
  }
  // A query or fragment may hold a token: refused, and shown only up to it.
  assert.equal(parseBaseUrl("https://h.example/a?token=SECRET"), {
    error:
      'expected an absolute http or https URL without query, fragment or credentials, got "https://h.example/a" and a query or fragment, not printed',
  });
  for (
    const url of [
      "http://h/p\uff1ftok=SECRET",
      "http://h/p\uff03SECRET",
      "http://h/p\ufe56SECRET",
      "http://h/p\u2047SECRET",
      "http://h/p%3Ftok=SECRET",
      "http://h/p%23SECRET",
      "http://h/p%40SECRET",
      "http://SECRET%40h/",
    ]
  ) {
    const parsed = parseBaseUrl(url);
    assert.ok("error" in parsed && !parsed.error.includes("SECRET"), JSON.stringify(parsed));
  }
  assert.equal(parseBaseUrl("https://h.example/a#SECRET"), {
    error:
      'expected an absolute http or https URL without query, fragment or credentials, got "https://h.example/a" and a query or fragment, not printed',
  });
  assert.is(shownUrl("https://example.org/reg"), '"https://example.org/reg"');
  assert.not.ok(shownUrl("https://u:hunter2@example.org").includes("hunter2"));
  const cli = await runCli(["fixtures/registry.json", "--base-url", "https://admin:hunter2@registry.example.org"], {});
  assert.is(cli.code, 1);
  assert.is(cli.stderr, `--base-url: ${rule}\n`);
});

test("a base URL: its origin and path without trailing slashes, or the rule it breaks, never a value that may hold a password", () => {
  assert.equal(parseBaseUrl("https://Registry.Example.org/reg//"), { ok: "https://registry.example.org/reg" });
  assert.equal(parseBaseUrl("https://registry.example.org"), { ok: "https://registry.example.org" });
  assert.equal(parseBaseUrl("https://user:pw@registry.example.org"), {
    error:
      "a base URL must not hold a user name or password (user:password@ before the host); the value is not printed",
  });
  assert.equal(parseBaseUrl("https://user@registry.example.org"), {
    error:
      "a base URL must not hold a user name or password (user:password@ before the host); the value is not printed",
  });
  assert.equal(parseBaseUrl("ftp://registry.example.org"), {
    error:
      'expected an absolute http or https URL without query, fragment or credentials, got "ftp://registry.example.org"',
  });
  assert.equal(parseBaseUrl("https://registry.example.org/a b"), {
    error:
      'a base URL\'s path may hold only letters, digits and - . _ ~ between single slashes (the static export names its folders after it), got "https://registry.example.org/a b"',
  });
  for (const first of ["_headers", "_HEADERS", "_redirects", "_worker.js", "_routes.json", "_x"]) {
    const url = `https://registry.example.org/${first}/x`;
    assert.equal(parseBaseUrl(url), {
      error:
        `a base URL's path may not start with _ (static hosts read _headers, _redirects and the like at the root), got "${url}"`,
    });
  }
  assert.equal(
    parseBaseUrl("https://registry.example.org/a/_x"),
    { ok: "https://registry.example.org/a/_x" },
    "only the first segment is read at the root",
  );
  assert.is(shownUrl("https://x.org/@me"), "a value with an @, not printed (it may hold a user name or password)");
  assert.is(shownUrl("https://x.org/"), '"https://x.org/"');
});

test("a base URL whose host part holds a : that no port's digits follow (a user name and password without the @host) is refused and never printed; a port, an IPv6 literal and host:port are", () => {
  const hidden =
    "a value with a : in its host part that is not before a port, not printed (it may hold a user name and password)";
  for (
    const url of [
      "http://deploy:s3cr3t/x",
      "https://deploy:s3cr3t",
      "deploy:s3cr3t",
      "http://h:80:s3cr3t/",
      "http://[::1]:s3cr3t/",
      "https://deploy\uff1as3cr3t/x",
      "http:\\\\deploy:s3cr3t",
    ]
  ) {
    const parsed = parseBaseUrl(url);
    assert.ok("error" in parsed && parsed.error.endsWith(hidden), `${url}: ${JSON.stringify(parsed)}`);
  }
  assert.is(shownUrl("localhost:8787"), '"localhost:8787"');
  assert.is(shownUrl("http://[::1]:8787/a b"), '"http://[::1]:8787/a b"');
  assert.is(shownUrl("ftp://h:21/x:y"), '"ftp://h:21/x:y"', "a : in the path is not the host's");
  assert.is(shownUrl("http://h:/x"), '"http://h:/x"', "an empty port");
  assert.equal(parseBaseUrl("ftp://registry.example.org:21"), {
    error:
      'expected an absolute http or https URL without query, fragment or credentials, got "ftp://registry.example.org:21"',
  });
  // As the URL parser reads a value: C0 controls and spaces around it dropped, tabs and newlines within.
  for (
    const url of [
      " http://deploy:s3cr3t/x",
      "\thttp://deploy:s3cr3t/x",
      "\u0000http://deploy:s3cr3t/x",
      "ht\ttp://deploy:s3cr3t/x",
      "//deploy:s3cr3t/x",
      "http://deploy:[s3cr3t]/x",
      "http://admin:123456/x",
      "http:/deploy:s3cr3t",
      "https:deploy:s3cr3t",
    ]
  ) {
    assert.is(shownUrl(url), hidden, JSON.stringify(url));
  }
  assert.is(shownUrl("http://h:65535/x"), '"http://h:65535/x"', "five digits may be a port");
  // Every run of controls and spaces at either end goes, and only there: a space inside is no port's digit.
  for (const url of ["  //deploy:s3cr3t/x", "\u0001 http://deploy:s3cr3t/x", "http://h: 80/x", "u:pw////x"]) {
    assert.is(shownUrl(url), hidden, JSON.stringify(url));
  }
  assert.is(
    shownUrl("https://h.example:8443 \u0000 "),
    '"https://h.example:8443 \\u0000 "',
    "a port, then controls and spaces at the end",
  );
  assert.is(shownUrl("?token=s3cr3t"), '"" and a query or fragment, not printed', "a query from the first character");
  assert.is(shownUrl("#s3cr3t"), '"" and a query or fragment, not printed');
});

test("a value from the command line: a path as it is, anything with a : or an @ as shownUrl shows it, a file or folder named like a URL shown so too", async () => {
  assert.is(shownArgument("fixtures/registry.json"), '"fixtures/registry.json"');
  assert.is(
    shownArgument("http://deploy:s3cr3t@h/"),
    "a value with an @, not printed (it may hold a user name or password)",
  );
  assert.is(
    shownArgument("deploy\uff1as3cr3t"),
    "a value with a : in its host part that is not before a port, not printed (it may hold a user name and password)",
  );
  assert.is(
    shownArgument("https://h.example/reg?token=s3cr3t"),
    '"https://h.example/reg" and a query or fragment, not printed',
  );
  assert.is(shownPath("fixtures/registry.json"), "fixtures/registry.json");
  assert.is(
    shownPath("node_modules/@scope/registry.json"),
    "node_modules/@scope/registry.json",
    "a path with an @ but no scheme",
  );
  assert.is(shownPath("C:\\builds\\registry.json"), "C:\\builds\\registry.json", "a drive letter is no scheme");
  assert.is(shownPath("https://h.example/registry.json"), "https://h.example/registry.json");
  assert.is(shownArgument("notes?v=2#top"), '"notes?v=2#top"', "without a : or an @, no URL: shown whole");
  assert.is(
    shownPath("./backups/v2:old#1.json"),
    "./backups/v2:old#1.json",
    "a path that only holds a scheme-like word later",
  );
  assert.is(
    shownPath("https://deploy:s3cr3t@h.example/registry.json"),
    "a value with an @, not printed (it may hold a user name or password)",
  );
  for (
    const args of [["fixtures/registry.json", "http://deploy:s3cr3t@h/"], [
      "https://deploy:s3cr3t@h.example/registry.json",
    ]]
  ) {
    const cli = await runCli(args, {});
    assert.ok(cli.code === 1 || cli.code === 2, `${args.join(" ")}: ${cli.code}`);
    assert.not.ok(cli.stderr.includes("s3cr3t"), cli.stderr);
  }
  for (
    const location of [
      "https:deploy:s3cr3t@h.example",
      " https://deploy:s3cr3t@h.example",
      "http:/deploy:s3cr3t@h.example",
      "https://h.example/reg?token=s3cr3t",
    ]
  ) {
    const previous = await readPrevious(location, {
      baseUrl: "https://h.example",
      builtAt: "2026-11-21T12:00:00Z",
      versions: VERSIONS,
    });
    assert.ok(
      "error" in previous && previous.error.startsWith("--previous: ") && !previous.error.includes("s3cr3t"),
      JSON.stringify(previous),
    );
  }
});

test("sentUrl names a server-sent URL by its path (same origin) or host and path, never its user name, query or fragment", () => {
  const base = "https://registry.example.org/reg";
  assert.is(sentUrl("/reg/api/x.json?token=SECRET#frag", base), "/reg/api/x.json");
  assert.is(sentUrl("https://user:SECRET@other.example/p?q=SECRET", base), "other.example/p");
  // The parser sees no user name here, so the @ would reach the message: nothing is printed.
  assert.is(
    sentUrl("foo:user:SECRET@evil.example/p", base),
    "an address holding an @, not printed (it may hold a user name or password)",
  );
  assert.is(sentUrl(null, base), "nowhere");
  assert.is(sentUrl("http://[", base), "an address that is not a URL");
});

test.run();
