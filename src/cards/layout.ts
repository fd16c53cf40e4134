/**
 * Fitting text into a box without cutting it: a line shrinks until it fits; a name may also
 * break into up to three lines at spaces, whichever gives the larger type. Widths come from the
 * font metrics (fonts.ts) with a small margin for shaping, which the metrics do not model.
 */

/** Measured width of a text at 1 px font size. */
export type Measure = (text: string) => number;

const SHAPING_MARGIN = 1.06;

/** The largest size ≤ `max` at which `text` fits in `width` (no lower bound: never cut). */
export function fitLine(measure: Measure, text: string, width: number, max: number): number {
  const natural = measure(text) * SHAPING_MARGIN;
  return natural === 0 ? max : Math.min(max, width / natural);
}

export interface FittedBlock {
  lines: string[];
  size: number;
}

/** Every way to split `words` into `count` non-empty lines, in order. */
function splits(words: string[], count: number): string[][] {
  if (count === 1) return [[words.join(' ')]];
  const out: string[][] = [];
  for (let i = 1; i <= words.length - count + 1; i++) {
    for (const rest of splits(words.slice(i), count - 1)) out.push([words.slice(0, i).join(' '), ...rest]);
  }
  return out;
}

/**
 * A name in a box `width` x `height`: one line at the largest size up to `max`; when that is
 * below `preferredMin` and the name has spaces, two or three lines if they allow larger type.
 * `lineHeight` is the line advance in em.
 */
export function fitBlock(
  measure: Measure,
  text: string,
  box: { width: number; height: number; max: number; preferredMin: number; lineHeight: number },
): FittedBlock {
  const one = Math.min(fitLine(measure, text, box.width, box.max), box.height / box.lineHeight);
  let best: FittedBlock = { lines: [text], size: one };
  const words = text.split(/ +/).filter((w) => w !== '');
  // Dozens of words would make the split count explode; such a name stays on one line.
  if (one >= box.preferredMin || words.length < 2 || words.length > 24) return best;
  for (let count = 2; count <= Math.min(3, words.length); count++) {
    const heightLimit = box.height / (box.lineHeight * count);
    for (const lines of splits(words, count)) {
      const size = Math.min(heightLimit, ...lines.map((line) => fitLine(measure, line, box.width, box.max)));
      if (size > best.size) best = { lines, size };
    }
  }
  return best;
}
