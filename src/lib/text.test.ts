import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { addNfcKeyword, SAFE_MULTILINE_TEXT_PATTERN, SAFE_TEXT_PATTERN, unsafeTextReason } from './text.js';

describe('unsafeTextReason', () => {
  it('accepts ordinary text in any script, emoji (surrogate pairs) included', () => {
    for (const text of ['Siobhán Ní Bhriain', '張偉', 'محمد', 'Zoë 👋🏽', '', 'a\u200db', 'ﬁ']) {
      expect(unsafeTextReason(text)).toBeNull();
    }
  });

  it('refuses NUL, C0, DEL, C1, lone surrogates and bidi overrides/isolates', () => {
    for (const text of [
      'a\u0000b',
      'a\u0001',
      'a\u001b[31m',
      'x\u007f',
      'x\u0085',
      'x\u009f',
      'a\ud800b',
      'a\udc00',
      'end\ud83d',
      '\u202egnp.exe',
      'a\u202ab',
      'a\u2066b',
      'a\u2069',
    ]) {
      expect(unsafeTextReason(text), JSON.stringify(text)).not.toBeNull();
    }
  });

  it('allows tab and line breaks only in multi-line text', () => {
    expect(unsafeTextReason('a\tb\nc\r\n')).not.toBeNull();
    expect(unsafeTextReason('a\tb\nc\r\n', { multiline: true })).toBeNull();
    expect(unsafeTextReason('a\u0000\n', { multiline: true })).not.toBeNull();
  });
});

describe('addNfcKeyword', () => {
  it('NFC-normalises fields marked x-nfc in place, beside the text patterns', () => {
    const ajv = new Ajv();
    addNfcKeyword(ajv);
    const validate = ajv.compile({
      type: 'object',
      properties: {
        name: { type: 'string', pattern: SAFE_TEXT_PATTERN, 'x-nfc': true },
        items: { type: 'array', items: { type: 'string', 'x-nfc': true } },
        note: { type: 'string', pattern: SAFE_MULTILINE_TEXT_PATTERN },
      },
    });
    const data = { name: 'Cafe\u0301', items: ['e\u0301'], note: 'line\nline' };
    expect(validate(data)).toBe(true);
    expect(data).toEqual({ name: 'Café', items: ['é'], note: 'line\nline' });
    expect(validate({ name: 'a\u202eb' })).toBe(false);
    expect(validate({ note: 'a\u0000' })).toBe(false);
  });
});

describe('SAFE_TEXT_PATTERN and SAFE_MULTILINE_TEXT_PATTERN', () => {
  // The published schema enforces the rule with these patterns: they must refuse exactly what
  // unsafeTextReason refuses, whether a validator compiles them with the `u` flag or without.
  const samples = (): string[] => {
    const texts: string[] = ['', 'Zoë 👋🏽', '張偉 \ud83d\ude00', 'end\ud83d', '\ude00start', 'a\ud800\ud800b'];
    for (let code = 0; code <= 0xffff; code++) texts.push(`a${String.fromCharCode(code)}b`);
    return texts;
  };

  for (const flags of ['u', '']) {
    it(`refuses exactly what unsafeTextReason refuses (flags "${flags}")`, () => {
      const single = new RegExp(SAFE_TEXT_PATTERN, flags);
      const multi = new RegExp(SAFE_MULTILINE_TEXT_PATTERN, flags);
      for (const text of samples()) {
        expect(single.test(text), JSON.stringify(text)).toBe(unsafeTextReason(text) === null);
        expect(multi.test(text), JSON.stringify(text)).toBe(unsafeTextReason(text, { multiline: true }) === null);
      }
    });
  }
});
