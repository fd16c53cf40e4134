/**
 * What a link-preview scraper reads, by hand: the `<meta property|name=… content=…>` tags of a
 * page, and the size a PNG declares in its IHDR chunk.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' };
const decode = (value: string) => value.replace(/&(amp|lt|gt|quot|#39|#96);/g, (_m, name: string) => ENTITIES[name] as string);

/** `og:…` and `twitter:…` (and any other named meta tag) → content; the first of duplicates wins, as scrapers do. */
export function metaTags(page: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const [tag] of page.matchAll(/<meta\s[^>]*>/g)) {
    const attributes = new Map([...tag.matchAll(/([a-z:-]+)="([^"]*)"/g)].map((m) => [m[1] as string, decode(m[2] as string)]));
    const name = attributes.get('property') ?? attributes.get('name');
    const content = attributes.get('content');
    if (name !== undefined && content !== undefined && !tags.has(name)) tags.set(name, content);
  }
  return tags;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the IHDR chunk; throws unless the bytes start like a PNG. */
export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.length < 24 || !png.subarray(0, 8).equals(PNG_SIGNATURE) || png.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('not a PNG');
  }
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
