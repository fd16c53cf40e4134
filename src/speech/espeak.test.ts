/**
 * The real eSpeak NG engine (one warm worker for the file): names in several languages go text →
 * IPA (eSpeak's spelling rules) → speech from that IPA, and eSpeak reports speaking the IPA sent.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EspeakSynthesizer } from './espeak.js';
import { UnknownPhonemesError } from './synthesizer.js';

const engine = new EspeakSynthesizer();
afterAll(() => engine.close());

/**
 * What eSpeak reports is compared without stress marks (it may move a stress to the vowel it
 * belongs to) and without the length mark of a long consonant (Italian "pː" is spoken long but
 * reported as "p").
 */
const comparable = (ipa: string) => ipa.replace(/[ˈˌ]/gu, '').replace(/(?<=[^aeiouɑɐɒæɛəɜɪɔʊʌyøœɯɤ])ː/gu, '');

const NAMES: Array<[string, string, string]> = [
  ['en', 'Siobhan Nguyen', 'en-us'],
  ['fr', 'François Dupont', 'fr'],
  ['de', 'Jürgen Müller', 'de'],
  ['es', 'José García', 'es'],
  ['it', 'Giuseppe Verdi', 'it'],
  ['pl', 'Łukasz Żółć', 'pl'],
  ['nl', 'Geert Wilders', 'nl'],
  ['ru', 'Алиса Петрова', 'ru'],
  ['hi', 'सहायक', 'hi'],
  ['ko', '김민준', 'ko'],
  ['ar', 'محمد', 'ar'],
  ['ja', 'ソフィア', 'ja'],
];

describe('eSpeak NG: text to IPA and IPA to speech', () => {
  it.each(NAMES)('%s: "%s" phonemized, spoken from its IPA, reads back the same IPA', async (language, name, voice) => {
    const { ipa } = await engine.phonemize({ text: name, language });
    expect(ipa).not.toBe('');
    const spoken = await engine.synthesize({ phonemes: ipa, language, voiceStyle: 'bright' });
    expect(spoken.voice).toBe(`${voice}+f4`);
    expect(spoken.durationMs).toBeGreaterThan(200);
    // An MPEG audio frame's sync word.
    expect([spoken.mp3[0], (spoken.mp3[1] ?? 0) & 0xe0]).toEqual([0xff, 0xe0]);
    expect(comparable(spoken.spokenIpa ?? '')).toBe(comparable(ipa));
  });

  it('speaks IPA as written, not the letters as English text', async () => {
    const { ipa } = await engine.phonemize({ text: 'Siobhan', language: 'en' });
    expect(ipa).toBe('ʃɪvˈɔːn');
    const fromPhonemes = await engine.synthesize({ phonemes: `/${ipa}/`, language: 'en' });
    const fromText = await engine.synthesize({ text: ipa, language: 'en' });
    expect(fromPhonemes.spokenIpa).toBe('ʃɪvˈɔːn');
    expect(fromText.spokenIpa).not.toBe(fromPhonemes.spokenIpa);
  });

  it('refuses IPA the voice has no phoneme for, naming the symbols, and keeps working', async () => {
    const refused = engine.synthesize({ phonemes: 'ʘɔːǃ', language: 'en' });
    await expect(refused).rejects.toBeInstanceOf(UnknownPhonemesError);
    await expect(refused).rejects.toMatchObject({ symbols: ['ʘ', 'ǃ'], voice: 'en-us' });
    // eSpeak's Mandarin IPA writes tones as digits, which are not IPA: refused the same way.
    const { ipa } = await engine.phonemize({ text: '小爱', language: 'zh' });
    await expect(engine.synthesize({ phonemes: ipa, language: 'zh' })).rejects.toBeInstanceOf(UnknownPhonemesError);
    expect((await engine.synthesize({ phonemes: 'ˈɑːnə', language: 'en' })).durationMs).toBeGreaterThan(100);
  });

  it('reads text that looks like eSpeak phoneme input as text', async () => {
    const spoken = await engine.synthesize({ text: '[[h@loU]]', language: 'en' });
    expect(spoken.spokenIpa).not.toBe('həloʊ');
  });
});
