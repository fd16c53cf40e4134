/**
 * The respelling key both ways: the examples people see, errors for letters outside the key, and
 * the round trip (IPA → respelling → IPA keeps every sound) over a few hundred names from the
 * CMU dictionary.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CmuLexicon } from './cmu-lexicon.js';
import { ipaToRespelling, RESPELLING_KEY, RespellingError, respellingToIpa } from './respelling-key.js';
import { comparable } from './syllables.js';

const names = (
  JSON.parse(readFileSync(new URL('../../eval/pronunciation/en.json', import.meta.url), 'utf8')) as { names: string[] }
).names;

describe('ipaToRespelling', () => {
  it.each([
    ['ʃɪvˈɔːn', 'shiv-AWN'],
    ['ˈiːfə', 'EE-fə'],
    ['kˈæθɹɪn', 'KATH-rin'],
    ['ˌælɪɡzˈændɚ', 'al-ig-ZAN-dər'],
    ['kˈɛnjə', 'KEN-yə'],
    ['smˈɪθ', 'SMITH'],
    ['/ˈdʒoʊ.ən/', 'JOH-ən'],
  ])('%s is %s', (ipa, respelling) => {
    expect(ipaToRespelling(ipa)).toBe(respelling);
  });

  it('writes sounds English lacks with the key’s letters, and the tap as r outside English', () => {
    expect(ipaToRespelling('xˌoakˈin', 'es')).toBe('khoh-ah-KEEN');
    expect(ipaToRespelling('fʁɑ̃swˈa', 'fr')).toBe('frahñ-SWAH');
    expect(ipaToRespelling('ˈmaɾja', 'es')).toBe('MAHR-yah');
    expect(ipaToRespelling('bˈɛɾi', 'en')).toBe('BET-ee');
    expect(ipaToRespelling('ɲˈoki ˈʎamo', 'it')).toBe('NYOH-kee LYAH-moh');
    expect(ipaToRespelling('mˈyləɾ', 'de')).toBe('MÜ-lər');
    expect(ipaToRespelling('ˈɯn', 'ko')).toBe('EUN');
    expect(ipaToRespelling('ˈʔa', 'ar')).toBe("'AH");
  });

  it('cuts where two sounds’ letters would read as a third', () => {
    // ʌ then ɹ in one syllable would read as the "ur" of nurse.
    expect(respellingToIpa(ipaToRespelling('ˈhʌɹ'))).toBe('ˈhʌɹ');
  });

  it('refuses IPA it has no letters for, naming the symbol', () => {
    expect(() => ipaToRespelling('ʘa')).toThrow(expect.objectContaining({ name: 'RespellingError', part: 'ʘ' }));
  });
});

describe('respellingToIpa', () => {
  it.each([
    ['shiv-AWN', 'en', 'ʃɪvˈɔːn'],
    ['EE-fə', 'en', 'ˈiːfə'],
    ['EE-fuh', 'en', 'ˈiːfə'],
    ['khoh-ah-KEEN', 'es', 'xoaˈkin'],
    ['frahñ-SWAH', 'fr', 'fʁɑ̃ˈswa'],
    ['MAHR-yah', 'es', 'ˈmaɾja'],
    ['ROH-zə', 'en', 'ˈɹoʊzə'],
    ['Shiv-awn', 'en', 'ʃɪvɔːn'],
  ])('%s (%s) is %s', (respelling, language, ipa) => {
    expect(respellingToIpa(respelling, language)).toBe(ipa);
  });

  it.each([
    ['shiv-AWQ', 'q'],
    ['x-AWN', 'x'],
    ['shiv--AWN', 'shiv--AWN'],
    ['-AWN', '-AWN'],
    ['ñah', 'ñah'],
    ['shiv AWN!', '!'],
    ['   ', '   '],
  ])('refuses %s, naming %s', (respelling, part) => {
    let caught: unknown;
    try {
      respellingToIpa(respelling);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RespellingError);
    expect((caught as RespellingError).part).toBe(part);
  });

  it('reads every row of the key back to its own sound', () => {
    for (const row of RESPELLING_KEY) {
      if (row.ipa === 'ɹ') continue;
      expect(respellingToIpa(row.respelling)).toBe(row.ipa.normalize('NFC'));
    }
    expect(RESPELLING_KEY.length).toBeGreaterThan(50);
  });
});

describe('the round trip', () => {
  it(`keeps every sound and the main stress of ${names.length} names from the CMU dictionary`, async () => {
    const lexicon = new CmuLexicon();
    let checked = 0;
    for (const name of names) {
      const ipa = await lexicon.lookup(name);
      if (ipa === null) continue;
      const back = respellingToIpa(ipaToRespelling(ipa));
      expect(comparable(back), `${name}: ${ipa} → ${ipaToRespelling(ipa)} → ${back}`).toEqual(comparable(ipa));
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(400);
  });

  it('keeps the sounds of edge cases: several words, tones, nasal vowels, a glottal stop', () => {
    for (const [ipa, language] of [
      ['ŋwˈiɛ5n vˈan', 'vi'],
      ['sˈɐ̃tuʃ', 'pt'],
      ['muħˈammad ʕˈali', 'ar'],
      ['ʔˈʌʔoʊ', 'en'],
      ['ɡˈimmindʑˌun', 'ko'],
    ] as const) {
      const back = respellingToIpa(ipaToRespelling(ipa, language), language);
      expect(comparable(back).sounds).toBe(comparable(ipa).sounds.replaceAll('ɾ', 'ɹ'));
    }
  });
});
