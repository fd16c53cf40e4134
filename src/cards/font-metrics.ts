/**
 * Just enough of a TrueType file to lay out text before it is rendered: which characters a font
 * has (`cmap`) and how wide each glyph is (`hmtx`). Shaping (ligatures, kerning) is ignored, so
 * layouts keep a margin; resvg does the real shaping when it renders.
 */

export interface FontMetrics {
  /** Whether the font has a glyph for the code point. */
  covers(codePoint: number): boolean;
  /** Advance width of the code point's glyph, in em (0 when the font lacks it). */
  advance(codePoint: number): number;
}

interface Table {
  offset: number;
  length: number;
}

function tables(font: Buffer): Map<string, Table> {
  const count = font.readUInt16BE(4);
  const found = new Map<string, Table>();
  for (let i = 0; i < count; i++) {
    const record = 12 + i * 16;
    found.set(font.toString('latin1', record, record + 4), {
      offset: font.readUInt32BE(record + 8),
      length: font.readUInt32BE(record + 12),
    });
  }
  return found;
}

function required(all: Map<string, Table>, tag: string): Table {
  const table = all.get(tag);
  if (!table) throw new Error(`font has no ${tag} table`);
  return table;
}

/** Glyph id lookup of a format 12 subtable (full Unicode): sorted groups, binary search. */
function format12(font: Buffer, at: number): (codePoint: number) => number {
  const groups = font.readUInt32BE(at + 12);
  const first = at + 16;
  return (codePoint) => {
    let low = 0;
    let high = groups - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const group = first + mid * 12;
      const start = font.readUInt32BE(group);
      const end = font.readUInt32BE(group + 4);
      if (codePoint < start) high = mid - 1;
      else if (codePoint > end) low = mid + 1;
      else return font.readUInt32BE(group + 8) + (codePoint - start);
    }
    return 0;
  };
}

/** Glyph id lookup of a format 4 subtable (Basic Multilingual Plane). */
function format4(font: Buffer, at: number): (codePoint: number) => number {
  const segments = font.readUInt16BE(at + 6) / 2;
  const ends = at + 14;
  const starts = ends + segments * 2 + 2;
  const deltas = starts + segments * 2;
  const rangeOffsets = deltas + segments * 2;
  return (codePoint) => {
    if (codePoint > 0xffff) return 0;
    for (let i = 0; i < segments; i++) {
      if (font.readUInt16BE(ends + i * 2) < codePoint) continue;
      const start = font.readUInt16BE(starts + i * 2);
      if (start > codePoint) return 0;
      const delta = font.readInt16BE(deltas + i * 2);
      const rangeOffset = font.readUInt16BE(rangeOffsets + i * 2);
      if (rangeOffset === 0) return (codePoint + delta) & 0xffff;
      const glyph = font.readUInt16BE(rangeOffsets + i * 2 + rangeOffset + (codePoint - start) * 2);
      return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
    }
    return 0;
  };
}

function glyphLookup(font: Buffer, cmap: Table): (codePoint: number) => number {
  const count = font.readUInt16BE(cmap.offset + 2);
  let bmp: number | null = null;
  for (let i = 0; i < count; i++) {
    const record = cmap.offset + 4 + i * 8;
    const platform = font.readUInt16BE(record);
    const encoding = font.readUInt16BE(record + 2);
    const at = cmap.offset + font.readUInt32BE(record + 4);
    const format = font.readUInt16BE(at);
    if (format === 12 && (platform === 3 || platform === 0)) return format12(font, at);
    if (format === 4 && ((platform === 3 && encoding === 1) || platform === 0)) bmp ??= at;
  }
  if (bmp === null) throw new Error('font has no Unicode cmap');
  return format4(font, bmp);
}

export function parseFontMetrics(font: Buffer): FontMetrics {
  const all = tables(font);
  const unitsPerEm = font.readUInt16BE(required(all, 'head').offset + 18);
  const longMetrics = font.readUInt16BE(required(all, 'hhea').offset + 34);
  const hmtx = required(all, 'hmtx').offset;
  const glyphOf = glyphLookup(font, required(all, 'cmap'));
  const advanceOf = (glyph: number) => font.readUInt16BE(hmtx + Math.min(glyph, longMetrics - 1) * 4) / unitsPerEm;
  return {
    covers: (codePoint) => glyphOf(codePoint) !== 0,
    advance: (codePoint) => {
      const glyph = glyphOf(codePoint);
      return glyph === 0 ? 0 : advanceOf(glyph);
    },
  };
}
