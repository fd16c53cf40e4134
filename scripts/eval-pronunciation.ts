/**
 * `npm run eval:pronunciation`: how close `generateGuide`'s IPA, made with the real eSpeak NG
 * engine, comes to reference transcriptions of common names (eval/pronunciation/<language>.json,
 * each file naming its source). Prints per language the phoneme error rate (edit distance over
 * phoneme tokens / reference length, after `comparablePhonemes`' normalisation) and the share of
 * names said exactly. English is measured twice against the CMU dictionary: with the dictionaries
 * (lookup) and held out (no dictionary, so eSpeak's English rules are what is measured).
 *
 *   npm run eval:pronunciation [-- --worst 5] [-- --raw]
 *
 * `--raw` scores without the per-language notation equivalences (`EVAL_NOTATION` in lib/phoneme-error-rate.ts).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { arpabetToIpa } from '../src/pronunciation/cmu-lexicon.js';
import { generateGuide, type GuideOptions } from '../src/pronunciation/guide.js';
import { EspeakSynthesizer } from '../src/speech/espeak.js';
import { EVAL_NOTATION, scoreAgainst } from './lib/phoneme-error-rate.js';

interface EvalFile {
  language: string;
  source: string;
  entries?: Array<{ name: string; ipa: string[]; checked?: 'hand' }>;
  names?: string[];
}

const DATA_DIR = fileURLToPath(new URL('../eval/pronunciation/', import.meta.url));
const args = process.argv.slice(2);
const worst = args.includes('--worst') ? Number(args[args.indexOf('--worst') + 1] ?? 5) : 0;
const raw = args.includes('--raw');

async function cmuReference(name: string): Promise<string | null> {
  const { dictionary } = await import('cmu-pronouncing-dictionary');
  const arpabet = dictionary[name.toLowerCase()];
  return arpabet === undefined ? null : arpabetToIpa(arpabet);
}

const engine = new EspeakSynthesizer();
const rows: Array<{ label: string; names: number; per: number; exact: number }> = [];

async function evaluate(
  label: string,
  language: string,
  entries: Array<{ name: string; ipa: string[] }>,
  options: GuideOptions = {},
): Promise<void> {
  const notation = raw ? {} : (EVAL_NOTATION[language] ?? {});
  let errors = 0;
  let length = 0;
  let exact = 0;
  const scored: Array<{ name: string; said: string; expected: string[]; rate: number }> = [];
  for (const entry of entries) {
    const guide = await generateGuide(engine, { given: entry.name, family: '' }, { name: language }, options);
    const score = scoreAgainst(guide.ipa, entry.ipa, notation);
    errors += score.errors;
    length += score.length;
    if (score.errors === 0) exact++;
    scored.push({ name: entry.name, said: guide.ipa, expected: entry.ipa, rate: score.errors / score.length });
  }
  rows.push({ label, names: entries.length, per: errors / length, exact: exact / entries.length });
  for (const miss of scored.sort((a, b) => b.rate - a.rate).slice(0, worst)) {
    console.log(
      `  ${label} ${miss.name}: said ${miss.said}, reference ${miss.expected.join(' | ')} (${(miss.rate * 100).toFixed(0)} %)`,
    );
  }
}

for (const file of fs
  .readdirSync(DATA_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const data = JSON.parse(fs.readFileSync(`${DATA_DIR}${file}`, 'utf8')) as EvalFile;
  if (data.language === 'en') {
    const entries: Array<{ name: string; ipa: string[] }> = [];
    for (const name of data.names ?? []) {
      const ipa = await cmuReference(name);
      if (ipa !== null) entries.push({ name, ipa: [ipa] });
    }
    await evaluate('en (dictionary)', 'en', entries);
    await evaluate('en (held out: rules)', 'en', entries, { lexicons: [] });
  } else {
    await evaluate(data.language, data.language, data.entries ?? []);
  }
}
await engine.close();

console.log(
  `\nPhoneme error rate of generateGuide's IPA (eSpeak NG${raw ? ', no notation equivalences' : ''}); lower is better\n`,
);
console.log('| language | names | phoneme error rate | names exact |');
console.log('| --- | ---: | ---: | ---: |');
for (const row of rows) {
  console.log(`| ${row.label} | ${row.names} | ${(row.per * 100).toFixed(1)} % | ${(row.exact * 100).toFixed(0)} % |`);
}
