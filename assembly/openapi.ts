/** The OpenAPI 3.1 description of one served version, from the version table and `responses.ts`'s own constants. */
import { ATOM_MEDIA_TYPE, JSON_FEED_MEDIA_TYPE } from "../feed/feed.ts";
import { changeFeedSchema } from "../feed/schema.ts";
import { basePathOf } from "../http/answer.ts";
import { CANONICAL_PATH, changesPaths, type ContractVersion } from "../contract/version-policy.ts";
import { KEYS_MEDIA_TYPE, KEYS_PATH, MANIFEST_MEDIA_TYPE, MANIFEST_TYP, manifestPath } from "./manifest.ts";
import {
  ALLOWED_METHODS,
  CACHE_CONTROL,
  COMMON_HEADERS,
  EXPOSABLE,
  exposeHeaders,
  PREFLIGHT_HEADERS,
} from "../http/responses.ts";

/** The OpenAPI media type IANA registers; docs/document.md, "Media type", says why not `application/openapi+json`. */
export const OPENAPI_MEDIA_TYPE = "application/vnd.oai.openapi+json;version=3.1";

/** Methods that answer 405 on every registry address, as OpenAPI names its operations. */
const REFUSED_METHODS = ["put", "post", "delete", "patch", "trace"] as const;

type Json = Record<string, unknown>;

const header = (description: string, schema: Json, required = false): Json => ({ description, required, schema });
const text = { type: "string" } as const;
const ref = (kind: string, name: string): Json => ({ $ref: `#/components/${kind}/${name}` });
const headerOf = (name: string): Json => ref("headers", name);
const responseOf = (name: string): Json => ref("responses", name);

/** The headers every answer carries (`COMMON_HEADERS`), each with its one value. */
const commonHeaders = (): Json =>
  Object.fromEntries(Object.keys(COMMON_HEADERS).map((name) => [headerName(name), headerOf(headerName(name))]));

/** `access-control-allow-origin` as it is written in a description: `Access-Control-Allow-Origin` (ETag is no common header). */
function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

/** Where a path sits in one version's description: what it serves and how its answers differ. */
interface Address {
  readonly path: string;
  readonly summary: string;
  readonly mediaType: string;
  readonly schema: Json;
  /** The canonical address: answers name the versioned path in `Content-Location` and never sunset. */
  readonly canonical: boolean;
  /** The document: its answers link the schema (`describedby`) and this description (`service-desc`). */
  readonly document: boolean;
  /**
   * Served by a signed build only (docs/deploying.md, "Signed builds"), 404 otherwise, with no `Link` and
   * `Last-Modified` = the signing time: the version's `manifest` (its lifecycle headers, 410 past its sunset, no link),
   * or the `keys` (the same on every version: never deprecated, never gone).
   */
  readonly signed?: "manifest" | "keys";
}

/**
 * The OpenAPI 3.1 description of `version` as served at `baseUrl`; with `canonical`, `/vaults.json` too (it serves this
 * version's bytes in this build).
 */
export function openApiDescription(version: ContractVersion, baseUrl: string, canonical: boolean): Json {
  const n = version.number;
  const documentSchema = { $ref: relativeRef(version.openapiPath, version.schemaPath) };
  const feeds = changesPaths(version);
  const addresses: Address[] = [
    ...(canonical
      ? [{
        path: CANONICAL_PATH,
        summary: `The registry, at its canonical address (the bytes of ${version.path})`,
        mediaType: "application/json",
        schema: documentSchema,
        canonical: true,
        document: true,
      }]
      : []),
    {
      path: version.path,
      summary: `The registry, v${n}`,
      mediaType: "application/json",
      schema: documentSchema,
      canonical: false,
      document: true,
    },
    {
      path: version.schemaPath,
      summary: `The JSON Schema (draft 2020-12) of the v${n} document`,
      mediaType: "application/schema+json",
      schema: { type: "object" },
      canonical: false,
      document: false,
    },
    {
      path: version.openapiPath,
      summary: `This description of v${n}`,
      mediaType: OPENAPI_MEDIA_TYPE,
      schema: { type: "object" },
      canonical: false,
      document: false,
    },
    {
      path: feeds.json,
      summary:
        `What changed between successive builds of v${n} (JSON Feed 1.1, each item's _registry says how to apply it)`,
      mediaType: JSON_FEED_MEDIA_TYPE,
      schema: ref("schemas", "ChangeFeed"),
      canonical: false,
      document: false,
    },
    {
      path: feeds.atom,
      summary:
        `What changed between successive builds of v${n} (Atom, RFC 4287: the same items, ids, dates and summaries)`,
      mediaType: ATOM_MEDIA_TYPE,
      schema: { type: "string", description: "An Atom feed document (XML)" },
      canonical: false,
      document: false,
    },
    {
      path: manifestPath(n),
      summary:
        `The signed manifest of v${n}: every file served for v${n} with its SHA-256, size and SRI string, signed at build time (a signed build only)`,
      mediaType: MANIFEST_MEDIA_TYPE,
      schema: ref("schemas", "Manifest"),
      canonical: false,
      document: false,
      signed: "manifest",
    },
    {
      path: KEYS_PATH,
      summary: "The public keys that sign the manifests, a JWK Set (a signed build only)",
      mediaType: KEYS_MEDIA_TYPE,
      schema: ref("schemas", "KeySet"),
      canonical: false,
      document: false,
      signed: "keys",
    },
  ];
  const schemaRef = relativeRef(version.openapiPath, version.schemaPath);
  const { $schema: _dialect, $id: _id, ...changeFeed } = changeFeedSchema(
    "",
    `${schemaRef}#/$defs/row`,
    `${schemaRef}#/$defs/edge`,
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "Registry endpoint",
      version: String(n),
      summary: `Contract v${n}: one read-only JSON document, the registry, and what describes it.`,
      description: [
        "Every address answers GET, HEAD and OPTIONS; any other method is 405. A path not listed here answers 404 with a problem document (RFC 9457).",
        "Each representation has a strong ETag per content coding; a conditional GET or HEAD answers 304.",
        "A version is deprecated once its successor is published (`Deprecation`, RFC 9745, and a `successor-version` link); after its sunset (`Sunset`, RFC 8594) its paths answer 410.",
        "Consumers must ignore keys they do not recognise. In a row, null means not known; a minimal row omits the keys a ruling withholds.",
        "Behind AWS Lambda, an event that is not an HTTP request answers 400.",
        `A build given a signing key also serves each version's manifest (${
          manifestPath(n)
        }: a JWS, RFC 7515, in general JSON serialization, EdDSA over Ed25519) and the public keys (${KEYS_PATH}, a JWK Set); without one, both answer 404. Consumers verify the manifest with keys they pinned out of band, then compare the SHA-256 of each file they read with its listing.`,
      ].join("\n\n"),
    },
    servers: [{ url: baseUrl }],
    // Public data, read without credentials: no operation asks for any.
    security: [],
    paths: Object.fromEntries(
      addresses.map((address) => [address.path, pathItem(address, `${basePathOf(baseUrl)}${version.path}`)]),
    ),
    components: components(changeFeed),
  };
}

/** `to` relative to the folder of `from` (both absolute paths): how the description names the schema. */
function relativeRef(from: string, to: string): string {
  const fromDirs = from.split("/").slice(1, -1);
  const toParts = to.split("/").slice(1);
  let shared = 0;
  while (shared < fromDirs.length && shared < toParts.length - 1 && fromDirs[shared] === toParts[shared]) shared++;
  return [...fromDirs.slice(shared).map(() => ".."), ...toParts.slice(shared)].join("/") || ".";
}

/** `location`: the versioned path as the canonical address names it, with the base URL's path in front. */
function pathItem(address: Address, location: string): Json {
  const id = operationStem(address.path);
  // The keys serve every version alike: never deprecated, never gone.
  const lifecycle = !address.canonical && address.signed !== "keys";
  const link = address.signed !== undefined
    ? {}
    : { Link: address.document ? headerOf("DocumentLink") : headerOf("SuccessorLink") };
  const ok = (withBody: boolean): Json => ({
    description: address.summary,
    headers: {
      ETag: headerOf("ETag"),
      "Last-Modified": headerOf(address.signed === undefined ? "Last-Modified" : "SignedLastModified"),
      "Cache-Control": headerOf("Cache-Control"),
      "Content-Length": headerOf("Content-Length"),
      "Content-Encoding": headerOf("Content-Encoding"),
      Vary: headerOf("Vary"),
      ...(address.canonical
        ? {
          "Content-Location": header(`The versioned path whose bytes this is: ${location}`, { const: location }, true),
        }
        : {}),
      ...link,
      ...(lifecycle ? { Deprecation: headerOf("Deprecation"), Sunset: headerOf("Sunset") } : {}),
      ...commonHeaders(),
    },
    ...(withBody ? { content: { [address.mediaType]: { schema: address.schema } } } : {}),
  });
  const conditional = [
    ref("parameters", "If-None-Match"),
    ref("parameters", "If-Modified-Since"),
    ref("parameters", "Accept-Encoding"),
  ];
  const responses = (withBody: boolean): Json => ({
    "200": ok(withBody),
    "304": responseOf("NotModified"),
    "400": responseOf("BadRequest"),
    ...(address.signed === undefined ? {} : { "404": responseOf("Unsigned") }),
    ...(lifecycle ? { "410": responseOf(address.signed === "manifest" ? "ManifestGone" : "Gone") } : {}),
  });
  return {
    summary: address.summary,
    get: {
      operationId: `get${id}`,
      summary: `Read ${address.summary.charAt(0).toLowerCase()}${address.summary.slice(1)}`,
      parameters: conditional,
      responses: responses(true),
    },
    head: {
      operationId: `head${id}`,
      summary: "The GET's status and headers, without a body",
      parameters: conditional,
      responses: responses(false),
    },
    options: {
      operationId: `options${id}`,
      summary: "CORS preflight",
      responses: { "204": responseOf("Preflight"), "400": responseOf("BadRequest") },
    },
    ...Object.fromEntries(
      REFUSED_METHODS.map((
        method,
      ) => [method, {
        operationId: `${method}${id}`,
        summary: "Refused: the registry is read-only",
        responses: { "405": responseOf("MethodNotAllowed"), "400": responseOf("BadRequest") },
      }]),
    ),
  };
}

/** `/api/registry.v1.schema.json` as an operation id's stem: `ApiRegistryV1SchemaJson`. */
function operationStem(path: string): string {
  return path.split(/[^A-Za-z0-9]+/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(""); // an empty word adds nothing
}

const problemResponse = (description: string, headers: Json = {}): Json => ({
  description,
  headers: {
    "Cache-Control": header("Errors are never cached", { const: "no-store" }, true),
    "Content-Length": headerOf("Content-Length"),
    ...headers,
    ...commonHeaders(),
  },
  content: { "application/problem+json": { schema: ref("schemas", "Problem") } },
});

/** Every response header an answer can carry, by the name a description gives it. */
const HEADERS: Readonly<Record<string, Json>> = {
  ETag: header("A strong ETag, one per content coding", { type: "string", pattern: '^"[0-9a-f]{32}"$' }, true),
  "Last-Modified": header("The build's built_at, as an HTTP-date", text, true),
  SignedLastModified: header("When the build signed it (the manifest's iat), as an HTTP-date", text, true),
  "Cache-Control": header("How long a cache may keep the answer", { const: CACHE_CONTROL }, true),
  "Content-Length": header("The length of the body in this coding (of the GET's body, for HEAD)", {
    type: "string",
    pattern: "^[0-9]+$",
  }, true),
  "Content-Encoding": header("The coding of the body, when it is not identity", { enum: ["gzip", "br"] }),
  Vary: header("Sent when more than one coding is on offer", { const: "Accept-Encoding" }),
  DocumentLink: header(
    'The schema (`rel="describedby"`), this description (`rel="service-desc"`, RFC 8631), the change feeds (`rel="alternate"` with `type="application/feed+json"` and `type="application/atom+xml"`) and, once deprecated, the successor (`rel="successor-version"`)',
    text,
    true,
  ),
  SuccessorLink: header('Once deprecated, the successor\'s counterpart (`rel="successor-version"`)', text),
  Deprecation: header("Once the successor is published: `@` and its publication as epoch seconds (RFC 9745)", {
    type: "string",
    pattern: "^@[0-9]+$",
  }),
  Sunset: header(
    "Once deprecated and when a sunset is set: the HTTP-date after which this path answers 410 (RFC 8594)",
    text,
  ),
  Allow: header("The methods every address allows", { const: ALLOWED_METHODS }, true),
  ...Object.fromEntries(
    Object.entries(COMMON_HEADERS).map((
      [name, value],
    ) => [headerName(name), header("Sent on every answer, errors included", { const: value }, true)]),
  ),
  "Access-Control-Expose-Headers": header(
    "The non-safelisted headers a browser consumer may read: always ETag, Link and Allow, then each of the others this answer sends",
    {
      type: "string",
      pattern: `^${exposeHeaders()}${Object.values(EXPOSABLE).map((name) => `(, ${name})?`).join("")}$`,
    },
    true,
  ),
  ...Object.fromEntries(
    Object.entries(PREFLIGHT_HEADERS).map((
      [name, value],
    ) => [headerName(name), header("Sent on every preflight answer", { const: value }, true)]),
  ),
};

/** The request headers a GET or HEAD is conditioned or negotiated on. */
const PARAMETERS: Readonly<Record<string, Json>> = {
  "If-None-Match": {
    name: "If-None-Match",
    in: "header",
    description: "ETags the client holds; `*` matches any. Compared weakly.",
    schema: text,
  },
  "If-Modified-Since": {
    name: "If-Modified-Since",
    in: "header",
    description: "An HTTP-date; used only without If-None-Match.",
    schema: text,
  },
  "Accept-Encoding": {
    name: "Accept-Encoding",
    in: "header",
    description: "gzip and br are offered; identity otherwise.",
    schema: text,
  },
};

/** The answers every address shares, whatever it serves. */
const RESPONSES: Readonly<Record<string, Json>> = {
  NotModified: {
    description:
      "The client's copy is current (If-None-Match matched the ETag of the coding it would get, or If-Modified-Since is not before Last-Modified)",
    headers: {
      ETag: headerOf("ETag"),
      "Last-Modified": headerOf("Last-Modified"),
      "Cache-Control": headerOf("Cache-Control"),
      Vary: headerOf("Vary"),
      Link: headerOf("SuccessorLink"),
      "Content-Location": header("On the canonical address: the versioned path it serves", text),
      Deprecation: headerOf("Deprecation"),
      Sunset: headerOf("Sunset"),
      ...commonHeaders(),
    },
  },
  Preflight: {
    description: "A CORS preflight: any origin may read, without credentials",
    headers: {
      Allow: headerOf("Allow"),
      ...Object.fromEntries(
        Object.keys(PREFLIGHT_HEADERS).map((name) => [headerName(name), headerOf(headerName(name))]),
      ),
      ...commonHeaders(),
    },
  },
  MethodNotAllowed: problemResponse("The registry is read-only", { Allow: headerOf("Allow") }),
  Gone: problemResponse("Past this version's sunset: its successor is linked", {
    Link: header('The successor\'s counterpart (`rel="successor-version"`)', text, true),
  }),
  ManifestGone: problemResponse("Past this version's sunset, as its document is: its successor has its own manifest"),
  Unsigned: problemResponse("The build was not signed (no signing key): it serves no manifest and no keys"),
  BadRequest: problemResponse("AWS Lambda only: the event is not an HTTP request"),
};

const base64urlText = { type: "string", pattern: "^[A-Za-z0-9_-]+$" } as const;

/** A manifest as served: a JWS in general JSON serialization (RFC 7515 §7.2.1), one signature per key. */
const MANIFEST_SCHEMA: Json = {
  description:
    `A JWS in general JSON serialization (RFC 7515 §7.2.1). Each signature's protected header is {"alg":"EdDSA","kid":<the key's RFC 7638 thumbprint>,"typ":"${MANIFEST_TYP}"} (EdDSA over Ed25519, RFC 8037); a consumer accepts the manifest when one signature by a key it pinned verifies, and ignores the others. The payload (base64url of JSON) is {"iss": the base URL, "version": N, "seq": the document's built_at in epoch seconds, "iat": the signing time, "exp": when the signature stops holding (epoch seconds), "files": {"<path>": {"sha256": hex, "size": bytes, "integrity": "sha256-<base64>"}}} for every file served for version N.`,
  type: "object",
  required: ["payload", "signatures"],
  properties: {
    payload: base64urlText,
    signatures: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["protected", "signature"],
        properties: { protected: base64urlText, signature: base64urlText },
      },
    },
  },
};

/** The key set as served: public Ed25519 JWKs (RFC 7517, RFC 8037). */
const KEY_SET_SCHEMA: Json = {
  description:
    "The public JWK Set (RFC 7517) of the keys that sign the manifests, each under its RFC 7638 thumbprint. A convenience: consumers pin keys they obtained out of band.",
  type: "object",
  required: ["keys"],
  properties: {
    keys: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["kty", "crv", "x", "kid"],
        properties: {
          kty: { const: "OKP" },
          crv: { const: "Ed25519" },
          x: base64urlText,
          kid: base64urlText,
          alg: { const: "EdDSA" },
          use: { const: "sig" },
        },
      },
    },
  },
};

function components(changeFeed: Json): Json {
  return {
    parameters: PARAMETERS,
    headers: HEADERS,
    responses: RESPONSES,
    schemas: {
      Problem: {
        description: "A problem document (RFC 9457).",
        type: "object",
        required: ["type", "title", "status"],
        properties: {
          type: { const: "about:blank" },
          title: text,
          status: { type: "integer", minimum: 400, maximum: 599 },
        },
      },
      ChangeFeed: changeFeed,
      Manifest: MANIFEST_SCHEMA,
      KeySet: KEY_SET_SCHEMA,
    },
  };
}
