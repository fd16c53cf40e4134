/**
 * The fonts shipped with the project for preview cards and badges (Noto, TTF from npm, copied to
 * dist/vendor by the build: src/lib/vendored.ts): Latin,
 * Cyrillic and Greek in Noto Sans, then Arabic, Devanagari and CJK (simplified Chinese, which
 * also covers most Japanese kanji and common Hangul-free CJK text). A character is drawn with the
 * first family that has it, in FAMILIES order, which is also the `font-family` list of the SVG
 * templates, so layout and rendering pick the same font.
 */
import { readFile } from 'node:fs/promises';
import { vendoredFile } from '../lib/vendored.js';
import { type FontMetrics, parseFontMetrics } from './font-metrics.js';

export type Weight = 400 | 700;

const FAMILIES = [
  { family: 'Noto Sans', pkg: 'noto-sans', file: 'NotoSans' },
  { family: 'Noto Sans Arabic', pkg: 'noto-sans-arabic', file: 'NotoSansArabic' },
  { family: 'Noto Sans Devanagari', pkg: 'noto-sans-devanagari', file: 'NotoSansDevanagari' },
  { family: 'Noto Sans SC', pkg: 'noto-sans-sc', file: 'NotoSansSC' },
] as const;

/** The SVG `font-family` value of every template. */
export const FONT_STACK = FAMILIES.map((f) => f.family).join(', ');
export const DEFAULT_FAMILY = FAMILIES[0].family;

/** Absolute path of a family's TTF at a weight. */
export function fontFile(familyIndex: number, weight: Weight): string {
  const f = FAMILIES[familyIndex];
  if (!f) throw new Error(`no font family ${familyIndex}`);
  const style = weight === 700 ? '700Bold' : '400Regular';
  return vendoredFile(`@expo-google-fonts/${f.pkg}`, `${style}/${f.file}_${style}.ttf`);
}

/** Loads each file's metrics once, on first use (the CJK font is by far the largest: only texts that need it load it). */
export class FontBook {
  private readonly loaded = new Map<string, Promise<FontMetrics>>();

  private metrics(familyIndex: number, weight: Weight): Promise<FontMetrics> {
    const file = fontFile(familyIndex, weight);
    let entry = this.loaded.get(file);
    if (!entry) {
      entry = readFile(file).then(parseFontMetrics);
      entry.catch(() => this.loaded.delete(file));
      this.loaded.set(file, entry);
    }
    return entry;
  }

  /**
   * A measurer for texts at one weight, and the font files those texts need. Only the families a
   * text uses are loaded: Noto Sans always (it is the default), the others when a character of
   * the text is missing from every family before them.
   */
  async prepare(texts: string[], weight: Weight): Promise<{ measure: (text: string) => number; files: string[] }> {
    const used = new Set<number>([0]);
    const fonts: FontMetrics[] = [await this.metrics(0, weight)];
    const familyOf = new Map<number, number>();
    for (const text of texts) {
      for (const char of text) {
        const codePoint = char.codePointAt(0) as number;
        if (familyOf.has(codePoint)) continue;
        let family = -1;
        for (let i = 0; i < FAMILIES.length; i++) {
          fonts[i] ??= await this.metrics(i, weight);
          if ((fonts[i] as FontMetrics).covers(codePoint)) {
            family = i;
            break;
          }
        }
        familyOf.set(codePoint, family);
        if (family >= 0) used.add(family);
      }
    }
    const measure = (text: string): number => {
      let width = 0;
      for (const char of text) {
        const codePoint = char.codePointAt(0) as number;
        const family = familyOf.get(codePoint) ?? 0;
        // A character no font has is drawn as a box about half an em wide.
        width += family < 0 ? 0.5 : (fonts[family] as FontMetrics).advance(codePoint);
      }
      return width;
    };
    return { measure, files: [...used].sort().map((i) => fontFile(i, weight)) };
  }
}
