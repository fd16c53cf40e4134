/**
 * Guides made with the real eSpeak NG engine (one warm worker for the file): dictionary first for
 * English, the language's spelling rules otherwise, languages suggested from the script only, and
 * every English guide's respelling reads back to the sounds of its IPA.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { EspeakSynthesizer } from '../speech/espeak.js';
import { generateGuide, nameWords, suggestLanguage } from './guide.js';
import { respellingToIpa } from './respelling-key.js';
import { comparable } from './syllables.js';

const engine = new EspeakSynthesizer();
afterAll(() => engine.close());

describe('generateGuide', () => {
  it('says Siobhan as shiv-AWN from the hand-checked names, and so do the English rules', async () => {
    const guide = await generateGuide(engine, { given: 'Siobhan', family: 'Murphy' }, {});
    expect(guide.parts).toEqual([
      { text: 'Siobhan', language: 'en', ipa: 'ʃɪvˈɔːn', method: 'dictionary' },
      { text: 'Murphy', language: 'en', ipa: 'ˈmɜːfi', method: 'dictionary' },
    ]);
    expect(guide).toMatchObject({ ipa: 'ʃɪvˈɔːn ˈmɜːfi', respelling: 'shiv-AWN MUR-fee', language: 'en' });
    const rules = await generateGuide(engine, { given: 'Siobhan', family: '' }, {}, { lexicons: [] });
    expect(rules.parts[0]).toMatchObject({ method: 'rules', ipa: expect.stringMatching(/^ʃɪvˈɔːn$/u) });
    expect(rules.respelling).toBe('shiv-AWN');
  });

  it('reads Joaquín by Spanish rules when the given name is Spanish, and the family name in English', async () => {
    const guide = await generateGuide(engine, { given: 'Joaquín', family: 'Phoenix' }, { given: 'es' });
    expect(guide.parts[0]).toMatchObject({ language: 'es', method: 'rules', ipa: expect.stringMatching(/^x.*kˈin$/u) });
    expect(guide.parts[1]).toMatchObject({ language: 'en', method: 'dictionary' });
    expect(guide.respelling).toMatch(/^khoh-ah-KEEN /u);
    expect(guide.language).toBe('es');
  });

  it('suggests Korean for a name in Hangul and reads it with Korean rules', async () => {
    const guide = await generateGuide(engine, { given: '민준', family: '김' }, {});
    expect(guide.parts.map((part) => [part.text, part.language, part.method])).toEqual([
      ['민준', 'ko', 'rules'],
      ['김', 'ko', 'rules'],
    ]);
    expect(guide.language).toBe('ko');
    expect(guide.respelling).not.toBe('');
  });

  it('says the family name first when the person writes it first, each part in its own language', async () => {
    const guide = await generateGuide(engine, { given: '민준', family: '김' }, {}, { familyFirst: true });
    expect(guide.parts.map((part) => part.text)).toEqual(['김', '민준']);
    const latin = await generateGuide(engine, { given: 'Ferenc', family: 'Nagy' }, { family: 'hu' }, { familyFirst: true });
    expect(latin.parts.map((part) => [part.text, part.language])).toEqual([
      ['Nagy', 'hu'],
      ['Ferenc', 'en'],
    ]);
    expect(latin.ipa.startsWith(latin.parts[0]!.ipa)).toBe(true);
  });

  it('drops titles and punctuation, splits hyphenated names, and keeps O’Brien whole', async () => {
    expect(nameWords('  Dr.  Catherine  Zeta-Jones, PhD ')).toEqual(['Catherine', 'Zeta', 'Jones']);
    const guide = await generateGuide(engine, { given: 'Mr. Conan', family: "O'Brien" }, { name: 'en-GB' });
    expect(guide.parts.map((part) => part.text)).toEqual(['Conan', "O'Brien"]);
    expect(guide.language).toBe('en-GB');
  });

  it('speaks a French name eSpeak reads as English in English, so its IPA is spoken back', async () => {
    const guide = await generateGuide(engine, { given: 'Arthur', family: '' }, { name: 'fr' });
    expect(guide.parts[0]).toMatchObject({ language: 'en', method: 'rules' });
    expect(guide.language).toBe('en');
    await expect(engine.synthesize({ phonemes: guide.ipa, language: guide.language })).resolves.toBeDefined();
  });

  it('refuses a name with nothing to say', async () => {
    await expect(generateGuide(engine, { given: 'Dr.', family: '—' }, {})).rejects.toThrow(RangeError);
  });

  it('respells every English guide so that it reads back to the same sounds and stress', async () => {
    const names = (
      JSON.parse(readFileSync(new URL('../../eval/pronunciation/en.json', import.meta.url), 'utf8')) as { names: string[] }
    ).names;
    for (const name of names.slice(0, 150)) {
      const guide = await generateGuide(engine, { given: name, family: '' }, {}, { lexicons: [] });
      const back = respellingToIpa(guide.respelling);
      const expected = comparable(guide.ipa);
      expect(comparable(back).sounds, `${name}: ${guide.ipa} → ${guide.respelling} → ${back}`).toBe(
        expected.sounds.replaceAll('ɾ', 't'),
      );
    }
  });
});

describe('a guide’s respelling, read back in the guide’s language', () => {
  it.each([
    ['es', 'Joaquín', 'Domínguez'],
    ['fr', 'François', 'Lefèvre'],
    ['de', 'Jürgen', 'Schröder'],
    ['it', 'Giuseppe', 'Ricci'],
    ['pt', 'João', 'Gonçalves'],
    ['vi', 'Nguyễn', 'Thị Minh'],
    ['zh', '伟', '王'],
    ['ko', '민준', '김'],
    ['ar', 'محمد', 'علي'],
    ['hi', 'राहुल', 'शर्मा'],
    ['hi', 'विजय', 'वर्मा'],
    ['ko', '하은', '박'],
    ['en', 'Siobhan', 'Zeta-Jones'],
  ])('%s: %s %s is spoken by the language’s voice', async (language, given, family) => {
    const guide = await generateGuide(engine, { given, family }, { name: language });
    const phonemes = respellingToIpa(guide.respelling, guide.language);
    const spoken = await engine.synthesize({ phonemes, language: guide.language });
    expect(spoken.durationMs).toBeGreaterThan(200);
  });
});

describe('suggestLanguage', () => {
  it.each([
    ['김민준', 'ko'],
    ['王伟', 'zh'],
    ['محمد', 'ar'],
    ['Алиса', 'ru'],
    ['राहुल', 'hi'],
    ['さくら', 'ja'],
  ])('%s suggests %s', (name, language) => {
    expect(suggestLanguage(name)).toBe(language);
  });

  it('suggests nothing for a name in Latin letters, however foreign its spelling', () => {
    expect(suggestLanguage('Joaquín')).toBeNull();
    expect(suggestLanguage('Nguyễn')).toBeNull();
    expect(suggestLanguage('Siobhán')).toBeNull();
  });
});
