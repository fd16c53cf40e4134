/**
 * Pronunciation guides (`npm run bench -- pronunciation`), with the real eSpeak NG engine warm:
 *
 * 1. `generateGuide` over every name of eval/pronunciation (about 900 different names in eleven
 *    languages), against the engine's bare `phonemize` of the same name: p50 and p95 per name.
 * 2. Speaking a guide's respelling (`respellingToIpa` → `synthesize({ phonemes })`) against the
 *    engine's bare `synthesize({ text })` of the same name, over a sample of the names.
 *
 * The sides run interleaved name by name in each round (so a busy moment slows both), and the
 * table gives the median over rounds (BENCH_ROUNDS, default 5) with the load average beside it.
 * Targets: a guide within 20 ms p95, speaking a respelling within 200 ms p95.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cmuLexicon } from '../src/pronunciation/cmu-lexicon.js';
import { generateGuide } from '../src/pronunciation/guide.js';
import { respellingToIpa } from '../src/pronunciation/respelling-key.js';
import { EspeakSynthesizer } from '../src/speech/espeak.js';
import { benchRounds, loadAverage, median, percentile } from './lib.js';

const DATA_DIR = fileURLToPath(new URL('../eval/pronunciation/', import.meta.url));
const SYNTHESIS_SAMPLE = Number(process.env.BENCH_SYNTHESIS_NAMES ?? 60);

const names: Array<{ name: string; language: string }> = [];
for (const file of fs.readdirSync(DATA_DIR).filter((f) => f.endsWith('.json'))) {
  const data = JSON.parse(fs.readFileSync(`${DATA_DIR}${file}`, 'utf8')) as {
    language: string;
    names?: string[];
    entries?: Array<{ name: string }>;
  };
  for (const name of data.names ?? data.entries?.map((entry) => entry.name) ?? []) names.push({ name, language: data.language });
}
// Every few names a different language, so no side meets one voice's cache warmer than the other.
const shuffled = names.map((entry, index) => ({ entry, key: (index * 7919) % names.length })).sort((a, b) => a.key - b.key);
const all = shuffled.map(({ entry }) => entry);
const sample = all.filter((_, index) => index % Math.ceil(all.length / SYNTHESIS_SAMPLE) === 0);

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const engine = new EspeakSynthesizer();
await engine.warmUp();
await cmuLexicon.load();
// One pass over every name first: voices are loaded on their first use, and JIT tiers settle.
for (const { name, language } of all) await generateGuide(engine, { given: name, family: '' }, { name: language });

interface Round {
  guide: number[];
  phonemize: number[];
  respelt: number[];
  text: number[];
}
const rounds: Round[] = [];
for (let round = 0; round < benchRounds(); round++) {
  const times: Round = { guide: [], phonemize: [], respelt: [], text: [] };
  for (const { name, language } of all) {
    times.guide.push(await timed(() => generateGuide(engine, { given: name, family: '' }, { name: language })));
    times.phonemize.push(await timed(() => engine.phonemize({ text: name, language })));
  }
  for (const { name, language } of sample) {
    const guide = await generateGuide(engine, { given: name, family: '' }, { name: language });
    times.respelt.push(
      await timed(() =>
        engine.synthesize({ phonemes: respellingToIpa(guide.respelling, guide.language), language: guide.language }),
      ),
    );
    times.text.push(await timed(() => engine.synthesize({ text: name, language })));
  }
  rounds.push(times);
}
await engine.close();

const ms = (value: number) => `${value.toFixed(1)} ms`;
function row(label: string, pick: (round: Round) => number[], baseline?: (round: Round) => number[]): string {
  const p50 = median(rounds.map((round) => percentile(pick(round), 50)));
  const p95 = median(rounds.map((round) => percentile(pick(round), 95)));
  const ratio = baseline
    ? ` | ${(p95 / median(rounds.map((round) => percentile(baseline(round), 95)))).toFixed(2)}x`
    : ' | baseline';
  return `| ${label} | ${ms(p50)} | ${ms(p95)}${ratio} |`;
}

console.log(
  `Pronunciation guides: ${all.length} names, ${sample.length} spoken; medians of ${rounds.length} interleaved rounds; load ${loadAverage().toFixed(2)}`,
);
console.log('| per name | p50 | p95 | p95 vs baseline |');
console.log('| --- | ---: | ---: | ---: |');
console.log(row('eSpeak phonemize (bare)', (round) => round.phonemize));
console.log(
  row(
    'generateGuide',
    (round) => round.guide,
    (round) => round.phonemize,
  ),
);
console.log(row('eSpeak synthesize text (bare)', (round) => round.text));
console.log(
  row(
    'respellingToIpa + synthesize phonemes',
    (round) => round.respelt,
    (round) => round.text,
  ),
);
