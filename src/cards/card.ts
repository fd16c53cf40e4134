/**
 * The 1200x630 preview card social sites and chat apps show for a shared link (`og:image`):
 * the eyebrow ("How to say"), the name (shrunk, or broken at spaces, to fit: never cut), its
 * phonetic spelling, a detail line (pronouns, or what an agent is), and a footer (the
 * organisation) beside the voicename mark. An SVG template escaped by construction (the `html`
 * tag), rendered by `renderer.ts`.
 */
import { createHash } from 'node:crypto';
import { html, type SafeHtml } from '../web/html.js';
import { FONT_STACK, FontBook, type Weight } from './fonts.js';
import { fitBlock, fitLine } from './layout.js';
import type { Picture } from './renderer.js';

/** Bump when the drawing changes: it is part of every picture's key, so caches refresh. */
export const CARD_TEMPLATE_VERSION = 1;
export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;

export interface CardContent {
  /** Right-to-left languages mirror the layout. */
  direction: 'ltr' | 'rtl';
  eyebrow: string;
  name: string;
  phonetic: string | null;
  detail: string | null;
  footer: string | null;
}

// Characters XML 1.0 cannot carry (C0 controls but tab/newline, lone surrogates, U+FFFE/F):
// the safe-text rules refuse them on input already; this keeps a render from ever failing.
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
export const drawable = (text: string): string => text.replace(NOT_XML, '').replace(/\s+/g, ' ').trim();

/** A short, URL-safe hash of what a picture draws: its ETag and cache key. */
export const pictureKey = (parts: unknown[]): string =>
  createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);

const MARGIN = 96;
const TEXT_WIDTH = CARD_WIDTH - 2 * MARGIN;

interface Line {
  text: string;
  y: number;
  size: number;
  weight: Weight;
  fill: string;
}

function textElement(line: Line, direction: 'ltr' | 'rtl', x?: number): SafeHtml {
  const anchorX = x ?? (direction === 'rtl' ? CARD_WIDTH - MARGIN : MARGIN);
  return html`<text x="${anchorX}" y="${line.y.toFixed(1)}" font-size="${line.size.toFixed(2)}" font-weight="${line.weight}" fill="${line.fill}" text-anchor="${direction === 'rtl' ? 'end' : 'start'}">${line.text}</text>`;
}

/** The voicename mark: a play button and the word, in the footer's far corner. */
function mark(direction: 'ltr' | 'rtl'): SafeHtml {
  const circleX = direction === 'rtl' ? MARGIN + 26 : CARD_WIDTH - MARGIN - 190;
  return html`<g><circle cx="${circleX}" cy="538" r="26" fill="#3538cd"/><path d="${`M${circleX - 8} 524 L${circleX + 14} 538 L${circleX - 8} 552 Z`}" fill="#fff"/><text x="${circleX + 40}" y="550" font-size="32" font-weight="700" fill="#101828">voicename</text></g>`;
}

export function previewCard(fonts: FontBook, content: CardContent): Picture {
  const c: CardContent = {
    direction: content.direction,
    eyebrow: drawable(content.eyebrow),
    name: drawable(content.name),
    phonetic: content.phonetic ? drawable(content.phonetic) : null,
    detail: content.detail ? drawable(content.detail) : null,
    footer: content.footer ? drawable(content.footer) : null,
  };
  return {
    key: pictureKey(['card', CARD_TEMPLATE_VERSION, c.direction, c.eyebrow, c.name, c.phonetic, c.detail, c.footer]),
    zoom: 1,
    build: async () => {
      const bold = await fonts.prepare([c.name, 'voicename'], 700);
      const regular = await fonts.prepare([c.eyebrow, c.phonetic ?? '', c.detail ?? '', c.footer ?? ''], 400);
      const lines: Line[] = [];
      lines.push({
        text: c.eyebrow,
        y: 124,
        size: fitLine(regular.measure, c.eyebrow, TEXT_WIDTH, 34),
        weight: 400,
        fill: '#667085',
      });
      // The name takes what the other lines leave between the eyebrow and the footer.
      const below = (c.phonetic ? 70 : 0) + (c.detail ? 56 : 0);
      const name = fitBlock(bold.measure, c.name, {
        width: TEXT_WIDTH,
        height: 470 - 150 - below,
        max: 112,
        preferredMin: 64,
        lineHeight: 1.18,
      });
      let y = 150;
      for (const text of name.lines) {
        y += name.size * 1.18;
        lines.push({ text, y: y - name.size * 0.24, size: name.size, weight: 700, fill: '#101828' });
      }
      if (c.phonetic) {
        y += 70;
        lines.push({
          text: c.phonetic,
          y: y - 10,
          size: fitLine(regular.measure, c.phonetic, TEXT_WIDTH, 48),
          weight: 400,
          fill: '#3538cd',
        });
      }
      if (c.detail) {
        y += 56;
        lines.push({
          text: c.detail,
          y: y - 10,
          size: fitLine(regular.measure, c.detail, TEXT_WIDTH, 36),
          weight: 400,
          fill: '#475467',
        });
      }
      const footer: Line | null = c.footer
        ? { text: c.footer, y: 550, size: fitLine(regular.measure, c.footer, TEXT_WIDTH - 280, 32), weight: 400, fill: '#344054' }
        : null;
      const svg = html`<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_WIDTH}" height="${CARD_HEIGHT}" viewBox="0 0 ${CARD_WIDTH} ${CARD_HEIGHT}" font-family="${FONT_STACK}">
<rect width="${CARD_WIDTH}" height="${CARD_HEIGHT}" fill="#eef0f6"/>
<rect x="32" y="32" width="${CARD_WIDTH - 64}" height="${CARD_HEIGHT - 64}" rx="28" fill="#ffffff"/>
<rect x="${c.direction === 'rtl' ? CARD_WIDTH - 44 : 32}" y="32" width="12" height="${CARD_HEIGHT - 64}" fill="#3538cd"/>
${lines.map((line) => textElement(line, c.direction))}
<line x1="${MARGIN}" y1="486" x2="${CARD_WIDTH - MARGIN}" y2="486" stroke="#eaecf0" stroke-width="2"/>
${footer ? textElement(footer, c.direction) : ''}
${mark(c.direction)}
</svg>`;
      return { svg: svg.value, fonts: [...new Set([...bold.files, ...regular.files])] };
    },
  };
}
