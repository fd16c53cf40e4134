/** A collection's brand colour: the one rule that decides what may be stored. */
import { AppError } from '../../errors.js';
import { AA_TEXT_CONTRAST, contrastWithWhite, darkenForWhiteText, formatRatio, isHexColor } from '../../lib/contrast.js';

/**
 * A brand colour as stored (lower case), refused unless white text on it (its buttons) reaches
 * WCAG AA; the refusal gives the ratio and the lightest darker shade of the same hue that passes.
 */
export function checkBrandColor(color: string | null): string | null {
  if (color === null) return null;
  const param = 'branding.brand_color';
  if (!isHexColor(color)) throw new AppError('parameter_invalid', 'A brand colour is written #rrggbb, e.g. #2456d3.', { param });
  const stored = color.toLowerCase();
  const ratio = contrastWithWhite(stored);
  if (ratio < AA_TEXT_CONTRAST) {
    throw new AppError(
      'parameter_invalid',
      `White text on ${stored} has a contrast of ${formatRatio(ratio)}:1; buttons need at least ${AA_TEXT_CONTRAST}:1 (WCAG AA). ` +
        `A darker shade that reaches it: ${darkenForWhiteText(stored)}.`,
      { param },
    );
  }
  return stored;
}

/**
 * The style sheet that gives a page the brand colour, or null without one. The public pages'
 * Content-Security-Policy is `style-src 'self'`: an inline `style` attribute or `<style>` element
 * would be refused (allowing them would need `'unsafe-inline'` for every page, or a per-response
 * hash), so the colour comes as a tiny sheet of our own. It is named by the colour, not the
 * collection: it reveals nothing, every collection with that colour shares one cached file, and a
 * changed colour is a new URL, so the sheet is immutable.
 */
export const brandStyleUrl = (color: string | null): string | null => (color === null ? null : `/brand/${color.slice(1)}.css`);

/**
 * The sheet at `brandStyleUrl(color)`: the pages' accent (buttons, borders, focus rings) in that
 * colour. The tint behind accent-coloured text becomes white: a tint of a colour that only just
 * reaches 4.5:1 on white would take its text below it.
 */
export const brandStyleSheet = (color: string): string => `:root {\n  --accent: ${color};\n  --accent-tint: #fff;\n}\n`;
