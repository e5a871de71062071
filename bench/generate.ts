/**
 * Deterministic large sources for the benchmarks: `n` vaults shaped like the default snapshot
 * (classes, statuses, sparse personas and notes, a few suppressed, eleven internal keys a vault,
 * edges).
 */

const CLASSES = ["archive", "journal", "ledger", "reference", "research", "commons"];
const STATUSES = ["active", "active", "active", "pending", "dormant", "proposed", "retired", "paused"];
const WORDS = [
  "harbour",
  "tide",
  "salt",
  "kelp",
  "storm",
  "pilot",
  "ferry",
  "gull",
  "wreck",
  "dune",
  "reef",
  "quay",
  "net",
  "buoy",
  "cliff",
  "fjord",
  "Brück",
  "Échange",
  "Ødegård",
];

/** A small, seeded PRNG (mulberry32): the same `seed` gives the same source on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A valid source with `n` vaults and about `n` edges. */
export function generateSource(n: number, seed = 1): Record<string, unknown> {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const words = (k: number) => Array.from({ length: k }, () => pick(WORDS)).join(" ");
  const vaults = Array.from({ length: n }, (_, i) => {
    const suppressed = next() < 0.03;
    return {
      vault_slug: `vault-${i.toString(36)}`,
      display_name: `${words(2)} ${i}`,
      class: next() < 0.05 ? null : pick(CLASSES),
      status: pick(STATUSES),
      ...(next() < 0.3 ? { persona: words(1) } : {}),
      ...(next() < 0.4 ? { note: `${words(8)}.` } : {}),
      tagline: `${words(4)}!`,
      ...(next() < 0.8 ? { last_synced: next() < 0.7 ? "2026-10-02" : "2026-09-30" } : {}),
      ...(suppressed ? { suppressed: true, internal_ruling: `RULING-${i}` } : {}),
      // Ten more internal keys, as an operator's declaration carries (eleven in all with owner):
      // set without the generator's random calls, so every other figure's data stays the same.
      owner: `ops-${i % 17}@internal`,
      cost_centre: `CC-${i % 97}`,
      review_due: "2027-03-01",
      risk_rating: i % 5,
      steward_email: `steward-${i % 31}@internal`,
      retention_days: 3650,
      audit_ref: `AUD-${i}`,
      internal_tags: ["ops", i % 2 === 0 ? "even" : "odd"],
      ticket_id: `T-${i % 1009}`,
      legacy_code: `L${i}`,
      budget_line: { year: 2026, line: i % 13 },
    };
  });
  const seen = new Set<string>();
  const edges = [];
  for (let i = 0; i < n; i++) {
    const source = vaults[Math.floor(next() * n)]?.vault_slug as string;
    const target = vaults[Math.floor(next() * n)]?.vault_slug as string;
    const type = pick(["cites", "feeds", "mirrors", "draws_on", "reports_to"]);
    const key = `${source} ${target} ${type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    edges.push({ source, target, type });
  }
  return {
    registry_schema_version: "3.2",
    generated_at: "2026-11-14T08:30:00Z",
    source_inventory_sha: "9c1e4b7d2f8a6035e1d94c7b0a2f6e83d5b19c47",
    licence: { id: "CC-BY-4.0", url: "https://creativecommons.org/licenses/by/4.0/" },
    internal_keys: [
      "internal_ruling",
      "owner",
      "cost_centre",
      "review_due",
      "risk_rating",
      "steward_email",
      "retention_days",
      "audit_ref",
      "internal_tags",
      "ticket_id",
      "legacy_code",
      "budget_line",
    ],
    labels: { class: Object.fromEntries(CLASSES.map((c) => [c, c[0]?.toUpperCase() + c.slice(1)])), status: {} },
    vaults,
    edges,
  };
}
