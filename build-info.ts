/**
 * What a bundle knows about its own build. `npm run build` replaces this module in the bundle with
 * one that stamps the build's `built_at` and base URL, so every instance of a deployment serves the
 * same bytes as `dist/static/`. Unbundled, both are undefined: `built_at` comes from
 * SOURCE_DATE_EPOCH or the clock at start, and the base URL from BASE_URL.
 */
export const BUILT_AT: string | undefined = undefined;
export const BASE_URL: string | undefined = undefined;
