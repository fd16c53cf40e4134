import { describe, expect, it } from 'vitest';
import { composeDisplayName, isDefaultDisplayName, looksFamilyNameFirst, nameOrderOf } from './name-order.js';

describe('name order', () => {
  it('puts the given name first by default, as before', () => {
    expect(composeDisplayName('Wei', 'Zhang')).toBe('Wei Zhang');
    expect(composeDisplayName(' Ada ', '')).toBe('Ada');
  });

  it('joins Han names family first without a space', () => {
    expect(composeDisplayName('伟', '张', 'family_first')).toBe('张伟');
    expect(composeDisplayName('太郎', '山田', 'family_first')).toBe('山田太郎');
    expect(composeDisplayName('ソフィー', '佐藤', 'family_first')).toBe('佐藤ソフィー');
  });

  it('joins Hangul names family first without a space', () => {
    expect(composeDisplayName('민준', '김', 'family_first')).toBe('김민준');
  });

  it('keeps the space for Latin names family first', () => {
    expect(composeDisplayName('Wei', 'Zhang', 'family_first')).toBe('Zhang Wei');
    expect(composeDisplayName('Ferenc', 'Nagy', 'family_first')).toBe('Nagy Ferenc');
  });

  it('keeps the space when only one of the names is in Han, Kana or Hangul', () => {
    expect(composeDisplayName('Wei', '张', 'family_first')).toBe('张 Wei');
    expect(composeDisplayName('伟', 'Zhang', 'family_first')).toBe('Zhang 伟');
  });

  it('leaves a person with one name as that name', () => {
    expect(composeDisplayName('伟', '', 'family_first')).toBe('伟');
  });

  it('reads the order back from a display name that is a default composition', () => {
    expect(nameOrderOf('张伟', '伟', '张')).toBe('family_first');
    expect(nameOrderOf('Zhang Wei', 'Wei', 'Zhang')).toBe('family_first');
    expect(nameOrderOf('Wei Zhang', 'Wei', 'Zhang')).toBe('given_first');
    expect(nameOrderOf('Professor Zhang', 'Wei', 'Zhang')).toBe('given_first');
    expect(isDefaultDisplayName('张伟', '伟', '张')).toBe(true);
    expect(isDefaultDisplayName('Wei Zhang', 'Wei', 'Zhang')).toBe(true);
    expect(isDefaultDisplayName('Professor Zhang', 'Wei', 'Zhang')).toBe(false);
  });

  it('tells family-name-first names by their script or language', () => {
    expect(looksFamilyNameFirst({ first: '伟', last: '张', languages: [] })).toBe(true);
    expect(looksFamilyNameFirst({ first: 'Minjun', last: '김', languages: [] })).toBe(true);
    expect(looksFamilyNameFirst({ first: 'Ferenc', last: 'Nagy', languages: ['hu'] })).toBe(true);
    expect(looksFamilyNameFirst({ first: 'Lan', last: 'Nguyen', languages: [null, 'vi-VN'] })).toBe(true);
    expect(looksFamilyNameFirst({ first: 'Wei', last: 'Zhang', languages: ['zh-Hans'] })).toBe(true);
    expect(looksFamilyNameFirst({ first: 'Ada', last: 'Lovelace', languages: ['en', null] })).toBe(false);
    expect(looksFamilyNameFirst({ first: 'Huw', last: 'Jones', languages: ['cy'] })).toBe(false);
  });
});
