/** The evaluation's phoneme error rate (scripts/lib/phoneme-error-rate.ts): normalisation, edit distance, several references. */
import { describe, expect, it } from 'vitest';
import { comparablePhonemes, editDistance, EVAL_NOTATION, scoreAgainst } from '../scripts/lib/phoneme-error-rate.js';

describe('phoneme error rate', () => {
  it('drops stress, length, tie bars, tones and marks, keeps nasal vowels, reads g as ɡ', () => {
    expect(comparablePhonemes('/ˈt͡ɕʰa̠ŋ˧˥/')).toEqual(['t', 'ɕ', 'a', 'ŋ']);
    expect(comparablePhonemes('ʒuˈɐ̃w̃ gaː')).toEqual(['ʒ', 'u', 'ɐ\u0303', 'w\u0303', 'ɡ', 'a']);
  });

  it('counts edits over the reference length, against the closest reference', () => {
    expect(editDistance(['a', 'b', 'c'], ['a', 'c'])).toBe(1);
    expect(scoreAgainst('ħˈasan', ['ħasuna', 'ħasan'])).toEqual({ errors: 0, length: 5 });
    expect(scoreAgainst('pˈɛtɾɑː', ['ˈpeːtʀa'])).toEqual({ errors: 3, length: 5 });
  });

  it('applies a language’s notation to both sides', () => {
    expect(scoreAgainst('pˈɛtɾɑː', ['ˈpeːtʀa'], EVAL_NOTATION.de)).toEqual({ errors: 1, length: 5 });
    expect(scoreAgainst('rˈitʃːɪ', ['ˈrittʃi'], EVAL_NOTATION.it)).toEqual({ errors: 0, length: 6 });
  });
});
