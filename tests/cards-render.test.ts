/**
 * The card renderer itself: the shipped fonts draw CJK, Arabic and Devanagari names as glyphs
 * (not the boxes of a font that lacks them), the renderer shares and caches renders by content,
 * and pictures come out at their declared size and zoom.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { FontBook, type Picture, previewCard, WorkerImageRenderer } from '../src/cards/index.js';
import { parseFontMetrics } from '../src/cards/font-metrics.js';
import { FONT_STACK, fontFile } from '../src/cards/fonts.js';
import { pngSize } from './helpers/link-preview.js';

let renders = 0;
const renderer = new WorkerImageRenderer({ onRender: () => (renders += 1) });
const fonts = new FontBook();
afterAll(() => renderer.close());

let counter = 0;
/** One line of text drawn with the given font files (and family list). */
function textPicture(text: string, files: string[], family = FONT_STACK): Picture {
  counter += 1;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="120"><rect width="480" height="120" fill="#fff"/><text x="20" y="80" font-family="${family}" font-size="56" font-weight="700">${text}</text></svg>`;
  return { key: `test-${counter}`, zoom: 1, build: async () => ({ svg, fonts: files }) };
}

const LATIN_ONLY = [fontFile(0, 700)];
const SHIPPED = [0, 1, 2, 3].map((family) => fontFile(family, 700));

describe('shipped fonts', () => {
  it('have a glyph for every character of CJK, Arabic, Devanagari, Cyrillic and Greek names', () => {
    const metrics = SHIPPED.map((file) => parseFontMetrics(readFileSync(file)));
    for (const name of ['王小明', '李雪梅', 'محمد بن سلمان', 'अनन्या शर्मा', 'Ярослава', 'Ὀδυσσεύς', 'Siobhán Ní Bhriain']) {
      const missing = [...name].filter((char) => !metrics.some((font) => font.covers(char.codePointAt(0) as number)));
      expect(missing, name).toEqual([]);
    }
    // The Latin font alone lacks them: the check above is not vacuous.
    expect(metrics[0]?.covers('王'.codePointAt(0) as number)).toBe(false);
    expect(metrics[0]?.covers('م'.codePointAt(0) as number)).toBe(false);
  });

  it('render CJK and Arabic names as glyphs, where a font without them draws identical boxes', async () => {
    for (const [name, reordered] of [
      ['王小明', '明王小'],
      ['محمد', 'دمحم'],
    ] as const) {
      // With only the Latin font every character is the same box: reordering changes nothing.
      const boxes = await renderer.png(textPicture(name, LATIN_ONLY, 'Noto Sans'));
      expect((await renderer.png(textPicture(reordered, LATIN_ONLY, 'Noto Sans'))).equals(boxes), name).toBe(true);
      // With the shipped fonts the characters are distinct glyphs, and differ from the boxes.
      const glyphs = await renderer.png(textPicture(name, SHIPPED));
      expect(glyphs.equals(boxes), name).toBe(false);
      expect((await renderer.png(textPicture(reordered, SHIPPED))).equals(glyphs), name).toBe(false);
    }
  });
});

describe('renderer', () => {
  it('renders a picture once: concurrent requests share the render, later ones hit the cache', async () => {
    const card = previewCard(fonts, {
      direction: 'ltr',
      eyebrow: 'How to say',
      name: `Zoë Quinn ${Date.now()}`,
      phonetic: 'ZOH-ee',
      detail: null,
      footer: 'From Example',
    });
    const before = renders;
    const [a, b] = await Promise.all([renderer.png(card), renderer.png(card)]);
    expect(a.equals(b)).toBe(true);
    expect(await renderer.png(card)).toBe(a);
    expect(renders - before).toBe(1);
    expect(pngSize(a)).toEqual({ width: 1200, height: 630 });
  });

  it('keys pictures by what they draw', () => {
    const content = { direction: 'ltr', eyebrow: 'How to say', name: 'Ana', phonetic: null, detail: null, footer: null } as const;
    expect(previewCard(fonts, content).key).toBe(previewCard(fonts, { ...content }).key);
    expect(previewCard(fonts, { ...content, name: 'Ana ' }).key).toBe(previewCard(fonts, content).key);
    expect(previewCard(fonts, { ...content, footer: 'From X' }).key).not.toBe(previewCard(fonts, content).key);
    expect(previewCard(fonts, { ...content, direction: 'rtl' }).key).not.toBe(previewCard(fonts, content).key);
  });

  it('refuses new renders with a busy error beyond its queue, and keeps working after', async () => {
    const small = new WorkerImageRenderer({ maxQueued: 1 });
    try {
      const first = small.png(textPicture('one', LATIN_ONLY));
      await expect(small.png(textPicture('two', LATIN_ONLY))).rejects.toThrow('image renderer busy');
      await first;
      expect(pngSize(await small.png(textPicture('three', LATIN_ONLY)))).toEqual({ width: 480, height: 120 });
    } finally {
      await small.close();
    }
  });
});
