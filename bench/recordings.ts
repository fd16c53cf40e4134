/**
 * Recordings benchmark (loopback only, bounded to well under a minute):
 *   npx tsx bench/recordings.ts
 * 1. Server time to process a 10 s WebM (Opus, as browsers send) and a 3 s WAV through
 *    PUT …/recording (median of 20), against a bare one-process ffmpeg transcode of the same file.
 * 2. Peak memory (RSS of the server process) while 4 uploads run at once.
 * 3. Batch creation of 1,000 users (median of 5), against 1,000 × one single create's time.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestApp } from '../tests/helpers/app.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-bench-'));
const ff = (...args: string[]) => execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args]);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const ms = (n: number) => `${n.toFixed(1)} ms`;

// Fixtures: espeak speech padded to exactly 10 s (WebM/Opus 48 kHz) and 3 s (WAV 44.1 kHz 16-bit).
const speech = path.join(dir, 'speech.wav');
execFileSync('espeak-ng', [
  '-v',
  'en-us',
  '-s',
  '150',
  '-w',
  speech,
  'My name is Siobhan Ni Bhriain, and this is how you say it, slowly and clearly.',
]);
const webm = path.join(dir, 'ten.webm');
ff(
  '-i',
  speech,
  '-af',
  'apad=whole_dur=10',
  '-t',
  '10',
  '-ar',
  '48000',
  '-ac',
  '1',
  '-c:a',
  'libopus',
  '-b:a',
  '48k',
  '-f',
  'webm',
  webm,
);
const wav = path.join(dir, 'three.wav');
ff('-i', speech, '-t', '3', '-ar', '44100', '-ac', '1', '-c:a', 'pcm_s16le', wav);

const t = await createTestApp();
const { key } = await t.newAccount();
const collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'bench' } })).json().id;
let n = 0;
async function newUser(collection = collectionId): Promise<string> {
  n++;
  const res = await t.request({
    method: 'POST',
    url: `/v1/collections/${collection}/users`,
    key,
    json: { email: `bench${n}@example.com`, first_name: 'B', last_name: `${n}` },
  });
  return res.json().id;
}
const upload = (userId: string, body: Buffer, type: string) =>
  t.request({
    method: 'PUT',
    url: `/v1/collections/${collectionId}/users/${userId}/recording`,
    key,
    headers: { 'content-type': type },
    payload: body,
  });

function bareTranscode(file: string): number {
  const start = performance.now();
  const run = spawnSync('ffmpeg', [
    '-hide_banner',
    '-v',
    'error',
    '-i',
    file,
    '-ac',
    '1',
    '-ar',
    '44100',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '64k',
    '-f',
    'mp3',
    'pipe:1',
  ]);
  if (run.status !== 0) throw new Error(run.stderr.toString());
  return performance.now() - start;
}

console.log('voicename recordings benchmark');
for (const [label, file, type] of [
  ['10 s WebM/Opus', webm, 'audio/webm'],
  ['3 s WAV', wav, 'audio/wav'],
] as const) {
  const body = fs.readFileSync(file);
  const user = await newUser();
  const warm = await upload(user, body, type);
  if (warm.statusCode !== 200) throw new Error(`upload failed: ${warm.body}`);
  const server: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    const res = await upload(user, body, type);
    server.push(performance.now() - start);
    if (res.statusCode !== 200) throw new Error(res.body);
    bare.push(bareTranscode(file));
  }
  const s = median(server);
  const b = median(bare);
  console.log(
    `${label.padEnd(16)} server median ${ms(s)} | bare ffmpeg transcode median ${ms(b)} | ratio ${(s / b).toFixed(2)}x`,
  );
}

// Peak memory during 4 concurrent uploads (10 s WebM), sampling RSS every 5 ms.
{
  const body = fs.readFileSync(webm);
  const users = await Promise.all([0, 1, 2, 3].map(() => newUser()));
  global.gc?.();
  const idle = process.memoryUsage().rss;
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const start = performance.now();
  const results = await Promise.all(users.map((u) => upload(u, body, 'audio/webm')));
  const wall = performance.now() - start;
  clearInterval(sampler);
  if (results.some((r) => r.statusCode !== 200)) throw new Error('a concurrent upload failed');
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `4 concurrent 10 s uploads: wall ${ms(wall)}; server RSS idle ${mb(idle)}, peak ${mb(peak)} (+${mb(peak - idle)}); ffmpeg runs as child processes, not counted`,
  );
}

// Batch creation of 1,000 users.
{
  const single: number[] = [];
  const single_collection = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'single' } })).json()
    .id;
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    await newUser(single_collection);
    single.push(performance.now() - start);
  }
  const batch: number[] = [];
  for (let round = 0; round < 5; round++) {
    const coll = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: `batch${round}` } })).json().id;
    const users = Array.from({ length: 1000 }, (_, i) => ({
      email: `u${round}-${i}@example.com`,
      first_name: 'First',
      last_name: `Last ${i}`,
      external_id: `ext-${i}`,
    }));
    const start = performance.now();
    const res = await t.request({ method: 'POST', url: `/v1/collections/${coll}/users/batch`, key, json: { users } });
    batch.push(performance.now() - start);
    if (res.statusCode !== 201) throw new Error(res.body);
  }
  const b = median(batch);
  const s = median(single);
  console.log(
    `batch of 1,000 users: median ${ms(b)} (${(b / 1000).toFixed(2)} ms/user) | one single create ${ms(s)} | batch is ${((s * 1000) / b).toFixed(1)}x faster than 1,000 single creates`,
  );
}

console.log(`database: ${t.deps.db.dialect}, ffmpeg: ${execFileSync('ffmpeg', ['-version']).toString().split('\n')[0]}`);
await t.close();
fs.rmSync(dir, { recursive: true, force: true });
