import { describe, expect, it } from 'vitest';
import { fitBlock, fitLine } from './layout.js';

// Every character 0.6 em wide: a text of n characters measures 0.6 n at 1 px.
const measure = (text: string) => [...text].length * 0.6;
const box = { width: 600, height: 300, max: 100, preferredMin: 60, lineHeight: 1.2 };

describe('fitLine', () => {
  it('keeps the largest size up to the maximum, and shrinks without a lower bound so nothing is cut', () => {
    expect(fitLine(measure, 'Ana', 600, 100)).toBe(100);
    const long = 'x'.repeat(500);
    const size = fitLine(measure, long, 600, 100);
    expect(size * measure(long)).toBeLessThanOrEqual(600);
    expect(size).toBeGreaterThan(1);
  });
});

describe('fitBlock', () => {
  it('keeps a name that fits on one line', () => {
    expect(fitBlock(measure, 'Ana Lima', box)).toEqual({ lines: ['Ana Lima'], size: 100 });
  });

  it('breaks a long name at spaces when that allows larger type, keeping every word', () => {
    const name = 'Oluwaseunfunmilayo Adebayo-Ogunlesi Wolfeschlegelsteinhausen';
    const fitted = fitBlock(measure, name, box);
    expect(fitted.lines.length).toBeGreaterThan(1);
    expect(fitted.lines.join(' ')).toBe(name);
    expect(fitted.size).toBeGreaterThan(fitLine(measure, name, box.width, box.max));
    for (const line of fitted.lines) expect(measure(line) * fitted.size).toBeLessThanOrEqual(box.width);
    expect(fitted.lines.length * fitted.size * box.lineHeight).toBeLessThanOrEqual(box.height + 1e-9);
  });

  it('shrinks a single long word instead of cutting it', () => {
    const word = 'Wolfeschlegelsteinhausenbergerdorffwelchevoralternwarengewissenhaft';
    const fitted = fitBlock(measure, word, box);
    expect(fitted.lines).toEqual([word]);
    expect(measure(word) * fitted.size).toBeLessThanOrEqual(box.width);
  });
});
