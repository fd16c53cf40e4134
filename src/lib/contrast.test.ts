import { describe, expect, it } from 'vitest';
import { AA_TEXT_CONTRAST, contrastWithWhite, darkenForWhiteText, formatRatio, isHexColor } from './contrast.js';

describe('contrast of white text on a colour (WCAG 2)', () => {
  it('puts the AA boundary between #767676 (4.54:1) and #777777 (4.48:1)', () => {
    expect(formatRatio(contrastWithWhite('#767676'))).toBe('4.54');
    expect(contrastWithWhite('#767676')).toBeGreaterThanOrEqual(AA_TEXT_CONTRAST);
    expect(formatRatio(contrastWithWhite('#777777'))).toBe('4.48');
    expect(contrastWithWhite('#777777')).toBeLessThan(AA_TEXT_CONTRAST);
  });

  it('spans 1:1 (white) to 21:1 (black)', () => {
    expect(contrastWithWhite('#ffffff')).toBeCloseTo(1, 5);
    expect(contrastWithWhite('#000000')).toBeCloseTo(21, 5);
  });

  it('never shows a ratio just under the threshold as reaching it', () => {
    expect(formatRatio(4.4999)).toBe('4.49');
  });

  it('darkens a colour that fails to the lightest shade of its hue that passes, and keeps one that passes', () => {
    expect(darkenForWhiteText('#777777')).toBe('#767676');
    const yellow = darkenForWhiteText('#ffcc00');
    expect(contrastWithWhite(yellow)).toBeGreaterThanOrEqual(AA_TEXT_CONTRAST);
    expect(yellow).toMatch(/^#[0-9a-f]{6}$/);
    expect(darkenForWhiteText('#2456d3')).toBe('#2456d3');
  });

  it('accepts #rrggbb only', () => {
    expect(isHexColor('#A1b2C3')).toBe(true);
    for (const bad of ['#abc', 'a1b2c3', '#a1b2c3ff', 'red', '#ggg000', ' #a1b2c3']) expect(isHexColor(bad)).toBe(false);
  });
});
