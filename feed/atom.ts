/** The Atom form (RFC 4287) of a change feed: no rows or edges; the JSON feed's `_registry` is what consumers apply. */
import { ATOM_MEDIA_TYPE, type ChangeFeed, type FeedPlace, JSON_FEED_MEDIA_TYPE, xmlSafe } from "./feed.ts";

/** `text` as XML character data or an attribute value: `&<>"'` escaped, characters XML forbids replaced. */
function escapeXml(text: string): string {
  return xmlSafe(text).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c] as string,
  );
}

/** The Atom feed of `feed`, as UTF-8 bytes. `updated` is the newest item's date. */
export function atomFeed(place: FeedPlace, feed: ChangeFeed): Uint8Array<ArrayBuffer> {
  const e = escapeXml;
  const updated = feed.items[0]?.date_published ?? "1970-01-01T00:00:00Z";
  const entries = feed.items.map((item) =>
    [
      "  <entry>",
      `    <id>${e(item.id)}</id>`,
      `    <title>${e(item.title)}</title>`,
      `    <updated>${e(item.date_published)}</updated>`,
      `    <published>${e(item.date_published)}</published>`,
      `    <link rel="alternate" type="application/json" href="${e(item.url)}"/>`,
      `    <category term="${e(item._registry.class)}" label="change class"/>`,
      `    <summary>${e(item.content_text)}</summary>`,
      "  </entry>",
    ].join("\n")
  );
  const lines = [
    `<?xml version="1.0" encoding="utf-8"?>`,
    `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">`,
    `  <id>${e(place.atomUrl)}</id>`,
    `  <title>${e(feed.title)}</title>`,
    `  <subtitle>${e(feed.description)}</subtitle>`,
    `  <updated>${e(updated)}</updated>`,
    `  <author><name>${e(new URL(place.documentUrl).host)}</name></author>`,
    `  <link rel="self" type="${ATOM_MEDIA_TYPE}" href="${e(place.atomUrl)}"/>`,
    `  <link rel="alternate" type="${JSON_FEED_MEDIA_TYPE}" href="${e(place.feedUrl)}"/>`,
    `  <link rel="related" type="application/json" href="${e(place.documentUrl)}"/>`,
    ...entries,
    "</feed>",
  ];
  return new TextEncoder().encode(`${lines.join("\n")}\n`);
}
