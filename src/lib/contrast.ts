/**
 * Colour contrast as WCAG 2 defines it (relative luminance of sRGB colours), for the brand colour
 * a collection sets: its buttons carry white text, which must stay readable (AA: 4.5:1 for text).
 */

/** WCAG 2 AA for normal-size text. */
export const AA_TEXT_CONTRAST = 4.5;

const HEX_COLOR = /^#[0-9a-f]{6}$/i;

export const isHexColor = (value: string): boolean => HEX_COLOR.test(value);

const channels = (hex: string): [number, number, number] => [
  Number.parseInt(hex.slice(1, 3), 16),
  Number.parseInt(hex.slice(3, 5), 16),
  Number.parseInt(hex.slice(5, 7), 16),
];

const toHex = (rgb: readonly number[]): string => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;

/** Relative luminance (0 black … 1 white) of `#rrggbb`. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Contrast ratio (1 … 21) of white text on `#rrggbb`. */
export const contrastWithWhite = (hex: string): number => 1.05 / (relativeLuminance(hex) + 0.05);

/**
 * A ratio as contrast checkers show it (two decimals), except that a ratio under AA never reads
 * as reaching it (4.497 shows as 4.49, not 4.50).
 */
export function formatRatio(ratio: number): string {
  const rounded = Math.round(ratio * 100) / 100;
  return (ratio < AA_TEXT_CONTRAST && rounded >= AA_TEXT_CONTRAST ? AA_TEXT_CONTRAST - 0.01 : rounded).toFixed(2);
}

/**
 * The lightest shade of `hex` (same hue: every channel scaled by one factor) on which white text
 * reaches `minimum`; the colour itself when it already does.
 */
export function darkenForWhiteText(hex: string, minimum = AA_TEXT_CONTRAST): string {
  const rgb = channels(hex);
  for (let k = 255; k >= 0; k--) {
    const shade = toHex(rgb.map((c) => Math.round((c * k) / 255)));
    if (contrastWithWhite(shade) >= minimum) return shade;
  }
  return '#000000';
}
