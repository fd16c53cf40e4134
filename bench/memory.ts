/**
 * Memory of the server as `npm start` runs it (dist/main.js, one Node process): resident memory
 * idle after start, then its peak under `.mp3` redirect load over 10,000 play links (each token
 * cached once, as a long tail of embeds does), next to a bare node:http server's under the same
 * load. Goals: <= 150 MB idle, <= 300 MB under load. Run: npm run bench -- memory
 */
import fs from 'node:fs';
import autocannon from 'autocannon';
import { bareServer, benchAccount, benchApp } from './lib.js';
import { seedPlayLinks } from './seed.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const rssMb = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

let tokens: string[] = [];
const app = await benchApp(async (deps) => {
  await benchAccount(deps, 'memory@example.com');
  tokens = (await seedPlayLinks(deps, 10_000)).tokens;
});
const bare = await bareServer({ status: 302, headers: { location: 'http://127.0.0.1/audio/a.mp3' }, body: '' });

async function peakUnderLoad(url: string, pid: number, paths: () => string) {
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
  const result = await autocannon({
    url,
    connections: 50,
    duration: SECONDS,
    requests: [{ setupRequest: (request) => ({ ...request, path: paths() }) }],
  });
  clearInterval(sampler);
  return { peak, rps: result.requests.average };
}

await new Promise((resolve) => setTimeout(resolve, 3000));
const idle = rssMb(app.pid as number);
const pick = () => `/p/${tokens[Math.floor(Math.random() * tokens.length)]}.mp3`;
const loaded = await peakUnderLoad(app.url, app.pid as number, pick);
const bareLoaded = await peakUnderLoad(bare.url, bare.pid as number, () => '/');
await app.close();
await bare.close();

console.log(
  `server memory (node ${process.version}, SQLite, 10,000 play links, ${SECONDS} s of .mp3 redirects at 50 connections)`,
);
console.log('| | RSS MB | requests/s |\n|---|---|---|');
console.log(`| voicename idle (dist/main.js) | ${idle.toFixed(0)} | |`);
console.log(`| voicename peak under load | ${loaded.peak.toFixed(0)} | ${loaded.rps.toFixed(0)} |`);
console.log(`| bare node:http 302, peak under load | ${bareLoaded.peak.toFixed(0)} | ${bareLoaded.rps.toFixed(0)} |`);
