import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { addTextRules, unsafeTextReason } from './text.js';

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

describe('addTextRules', () => {
  it('adds the formats and NFC-normalises fields marked x-nfc in place', () => {
    const ajv = new Ajv();
    addTextRules(ajv);
    const validate = ajv.compile({
      type: 'object',
      properties: {
        name: { type: 'string', format: 'safe-text', 'x-nfc': true },
        items: { type: 'array', items: { type: 'string', 'x-nfc': true } },
        note: { type: 'string', format: 'safe-text-multiline' },
      },
    });
    const data = { name: 'Cafe\u0301', items: ['e\u0301'], note: 'line\nline' };
    expect(validate(data)).toBe(true);
    expect(data).toEqual({ name: 'Café', items: ['é'], note: 'line\nline' });
    expect(validate({ name: 'a\u202eb' })).toBe(false);
    expect(validate({ note: 'a\u0000' })).toBe(false);
  });
});
