/**
 * Preview card rendering (`/p/<token>/card.png`): the first render of a fresh process (wasm and
 * fonts loaded on the way), later renders of new content (Latin, CJK, Arabic names), and cached
 * answers; with the event loop's longest stall while renders run (they run in a worker thread,
 * so it should stay near the idle figure), and the layout time spent on the event loop.
 * Run: npm run bench -- card (BENCH_ROUNDS=40 by default)
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { FontBook, type Picture, previewCard, WorkerImageRenderer } from '../src/cards/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const inWorker: number[] = [];
const renderer = new WorkerImageRenderer({ onRender: (ms) => inWorker.push(ms) });
const fonts = new FontBook();

const card = (name: string, phonetic: string | null): Picture =>
  previewCard(fonts, {
    direction: 'ltr',
    eyebrow: 'How to say',
    name,
    phonetic,
    detail: 'Pronouns: she/her',
    footer: 'From Riverside University',
  });

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const row = (label: string, values: number[]) =>
  console.log(
    `| ${label} | ${values.length} | ${percentile(values, 50).toFixed(1)} | ${percentile(values, 95).toFixed(1)} | ${Math.max(...values).toFixed(1)} |`,
  );

async function timed(picture: Picture): Promise<number> {
  const started = performance.now();
  await renderer.png(picture);
  return performance.now() - started;
}

console.log('| Render | n | p50 ms | p95 ms | max ms |\n| --- | --- | --- | --- | --- |');
row('cold: first card of the process (wasm + Latin fonts)', [await timed(card('Siobhán Ní Bhriain', 'shi-VAWN nee VREE-in'))]);
row('cold: first CJK card (10 MB font loaded)', [await timed(card('王小明', 'Wáng Xiǎomíng'))]);

const loop = monitorEventLoopDelay({ resolution: 5 });
const samples: Record<string, number[]> = { latin: [], cjk: [], arabic: [] };
const layout: number[] = [];
loop.enable();
for (let i = 0; i < ROUNDS; i++) {
  for (const [script, name] of [
    ['latin', `Oluwaseun Adebayo ${i}`],
    ['cjk', `李雪梅${i}`],
    ['arabic', `محمد العلي ${i}`],
  ] as const) {
    const picture = card(name, 'oh-loo-WAH-shay-oon');
    const before = performance.now();
    await picture.build();
    layout.push(performance.now() - before);
    samples[script]?.push(await timed(picture));
  }
}
loop.disable();
for (const [script, values] of Object.entries(samples)) row(`warm: new ${script} card (end to end)`, values);
row('warm: render inside the worker (all scripts)', inWorker.slice(2));
row('layout on the event loop (font metrics, SVG)', layout);
const cached = card('Siobhán Ní Bhriain', 'shi-VAWN nee VREE-in');
const hits: number[] = [];
for (let i = 0; i < 1000; i++) hits.push(await timed(cached));
row('cached (in-process LRU)', hits);
console.log(
  `\nEvent loop while rendering: max stall ${(loop.max / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms (renders run in the worker thread).`,
);
await renderer.close();
