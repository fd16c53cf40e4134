import { describe, expect, it } from 'vitest';
import { confusableSkeleton } from './confusables.js';

describe('confusableSkeleton', () => {
  it('gives whole-script look-alikes the skeleton of the Latin name they imitate', () => {
    expect(confusableSkeleton('арех')).toBe('apex'); // Cyrillic а р е х
    expect(confusableSkeleton('οrbit')).toBe('orbit'); // Greek omicron
    expect(confusableSkeleton('0rb1t')).toBe('orblt');
    expect(confusableSkeleton('orbit')).toBe('orbit');
    expect(confusableSkeleton('ѕсоре')).toBe('scope'); // Cyrillic ѕ с о р е
  });

  it('leaves names that only share letters, not looks, apart', () => {
    expect(confusableSkeleton('орбит')).not.toBe(confusableSkeleton('orbit')); // Cyrillic "orbit" is read, not mistaken
    expect(confusableSkeleton('東京')).toBe('東京');
    expect(confusableSkeleton('مدار')).not.toBe('');
  });
});
