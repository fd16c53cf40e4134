/**
 * The e-mail signature badge: a 180x40 pill with a play button and "Hear my name" (in the
 * collection's language), light or dark, drawn at 1x or 2x for high-density screens. E-mail
 * clients strip iframes and scripts; an image in a link is what survives in a signature.
 */
import { html } from '../web/html.js';
import { drawable, pictureKey } from './card.js';
import { FONT_STACK, type FontBook } from './fonts.js';
import { fitLine } from './layout.js';
import type { Picture } from './renderer.js';

export const BADGE_TEMPLATE_VERSION = 1;
export const BADGE_WIDTH = 180;
export const BADGE_HEIGHT = 40;
export const BADGE_THEMES = ['light', 'dark'] as const;
export type BadgeTheme = (typeof BADGE_THEMES)[number];
export const BADGE_SCALES = [1, 2, 3] as const;
export type BadgeScale = (typeof BADGE_SCALES)[number];

const COLOURS: Record<BadgeTheme, { background: string; border: string; text: string; button: string; icon: string }> = {
  light: { background: '#ffffff', border: '#c7cbe0', text: '#101828', button: '#3538cd', icon: '#ffffff' },
  dark: { background: '#101828', border: '#344054', text: '#ffffff', button: '#8098f9', icon: '#101828' },
};

export interface BadgeContent {
  label: string;
  direction: 'ltr' | 'rtl';
  theme: BadgeTheme;
  scale: BadgeScale;
}

export function signatureBadge(fonts: FontBook, content: BadgeContent): Picture {
  const label = drawable(content.label);
  const { direction, theme } = content;
  return {
    key: pictureKey(['badge', BADGE_TEMPLATE_VERSION, direction, theme, label]),
    zoom: content.scale,
    build: async () => {
      const bold = await fonts.prepare([label], 700);
      const colours = COLOURS[theme];
      const rtl = direction === 'rtl';
      // The button sits at the reading start: left, or right in right-to-left languages.
      const buttonX = rtl ? BADGE_WIDTH - 20 : 20;
      const textX = rtl ? BADGE_WIDTH - 42 : 42;
      const size = fitLine(bold.measure, label, BADGE_WIDTH - 54, 14);
      const svg = html`<svg xmlns="http://www.w3.org/2000/svg" width="${BADGE_WIDTH}" height="${BADGE_HEIGHT}" viewBox="0 0 ${BADGE_WIDTH} ${BADGE_HEIGHT}" font-family="${FONT_STACK}">
<rect x="0.5" y="0.5" width="${BADGE_WIDTH - 1}" height="${BADGE_HEIGHT - 1}" rx="19.5" fill="${colours.background}" stroke="${colours.border}"/>
<circle cx="${buttonX}" cy="20" r="14" fill="${colours.button}"/>
<path d="${`M${buttonX - 4} 13 L${buttonX + 7} 20 L${buttonX - 4} 27 Z`}" fill="${colours.icon}"/>
<text x="${textX}" y="${(20 + size * 0.36).toFixed(2)}" font-size="${size.toFixed(2)}" font-weight="700" fill="${colours.text}" text-anchor="${rtl ? 'end' : 'start'}">${label}</text>
</svg>`;
      return { svg: svg.value, fonts: bold.files };
    },
  };
}
