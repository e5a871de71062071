/** What one build serves: precomputed answers; `assembly/prepare.ts` fills it and nothing here computes. */
import type { Problem, Resource } from "./responses.ts";

/** What a start line or a log says about a build. */
export interface BuildMeta {
  readonly builtAt: string;
  readonly baseUrl: string;
  readonly vaultCount: number;
  readonly edgeCount: number;
  /** The strong ETag of the identity bytes `/vaults.json` serves. */
  readonly etag: string;
  /** The versioned path whose bytes `/vaults.json` serves. */
  readonly canonicalOf: string;
}

/** Everything one build serves: each route's resource, each sunset path's 410, and what it was built from. */
export interface Build {
  readonly routes: ReadonlyMap<string, Resource>;
  readonly gone: ReadonlyMap<string, Problem>;
  readonly meta: BuildMeta;
}
