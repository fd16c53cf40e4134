/**
 * Preview card rendering (`/p/<token>/card.png`): the first render of a fresh process (wasm and
 * fonts loaded on the way), later renders of new content (Latin, CJK, Arabic names), and cached
 * answers; with the event loop's longest stall while renders run (they run in a worker thread,
 * so it should stay near the idle figure), and the layout time spent on the event loop.
 * There is no fair bare baseline: the render is a library call (resvg in a worker thread), and
 * a hand-written one would be the same call. Each row gives the median (p50), p95 and p99, the
 * CPU time per render of this process (all threads: the worker's too) and the 1-minute load
 * average when the row's samples ended; scripts are interleaved within every round.
 * Run: npm run bench -- card (BENCH_ROUNDS=40 by default)
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { FontBook, type Picture, previewCard, WorkerImageRenderer } from '../src/cards/index.js';
import { benchRounds, loadAverage, percentile } from './lib.js';

const ROUNDS = benchRounds(40);
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

/** CPU ms (user + system, every thread of this process) since `from`. */
const cpuMsSince = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};
const row = (label: string, values: number[], cpuMsPerRender = Number.NaN) =>
  console.log(
    `| ${label} | ${values.length} | ${percentile(values, 50).toFixed(1)} | ${percentile(values, 95).toFixed(1)} | ` +
      `${percentile(values, 99).toFixed(1)} | ${Number.isNaN(cpuMsPerRender) ? '-' : cpuMsPerRender.toFixed(1)} | ${loadAverage().toFixed(2)} |`,
  );

async function timed(picture: Picture): Promise<number> {
  const started = performance.now();
  await renderer.png(picture);
  return performance.now() - started;
}
async function timedOnce(picture: Picture): Promise<[number[], number]> {
  const cpuBefore = process.cpuUsage();
  const ms = await timed(picture);
  return [[ms], cpuMsSince(cpuBefore)];
}

console.log('| Render | n | p50 ms | p95 ms | p99 ms | cpu ms/render | load 1m |\n| --- | --- | --- | --- | --- | --- | --- |');
row(
  'cold: first card of the process (wasm + Latin fonts)',
  ...(await timedOnce(card('Siobhán Ní Bhriain', 'shi-VAWN nee VREE-in'))),
);
row('cold: first CJK card (10 MB font loaded)', ...(await timedOnce(card('王小明', 'Wáng Xiǎomíng'))));

const loop = monitorEventLoopDelay({ resolution: 5 });
const samples: Record<string, number[]> = { latin: [], cjk: [], arabic: [] };
const layout: number[] = [];
const warmCpuBefore = process.cpuUsage();
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
// Layout and render together, averaged over every script: the CPU of one warm card.
const warmCpuPerCard = cpuMsSince(warmCpuBefore) / (ROUNDS * 3);
for (const [script, values] of Object.entries(samples)) row(`warm: new ${script} card (end to end)`, values, warmCpuPerCard);
row('warm: render inside the worker (all scripts)', inWorker.slice(2));
row('layout on the event loop (font metrics, SVG)', layout);
const cached = card('Siobhán Ní Bhriain', 'shi-VAWN nee VREE-in');
const hits: number[] = [];
const cachedCpuBefore = process.cpuUsage();
for (let i = 0; i < 1000; i++) hits.push(await timed(cached));
row('cached (in-process LRU)', hits, cpuMsSince(cachedCpuBefore) / hits.length);
console.log(
  `\nEvent loop while rendering: max stall ${(loop.max / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms (renders run in the worker thread; load ${loadAverage().toFixed(2)}).`,
);
await renderer.close();
