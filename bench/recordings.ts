/**
 * Recordings benchmark (loopback only, bounded to well under a minute):
 *   npx tsx bench/recordings.ts
 * 1. Server time to process a 10 s WebM (Opus, as browsers send) and a 3 s WAV through
 *    PUT …/recording (median of BENCH_ROUNDS, default 20, interleaved), against a bare
 *    one-process ffmpeg transcode of the same file (the least the endpoint must do).
 * 2. Peak memory (RSS of the server process) while 4 uploads run at once.
 * 3. Batch creation of 1,000 users through `POST …/users/batch` (median of 5 interleaved rounds),
 *    against the same 1,000 rows inserted with one raw multi-row INSERT in a transaction.
 * The app runs in this process (`app.inject`): CPU time per request is this process's plus its
 * waited-for children's (ffmpeg), from /proc/self/stat, and the same for the baselines; every line
 * carries the 1-minute load average.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId, randomToken } from '../src/lib/ids.js';
import { createTestApp } from '../tests/helpers/app.js';
import { benchRounds, loadAverage, median, timedWithCpu } from './lib.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-bench-'));
const ff = (...args: string[]) => execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args]);
const ROUNDS = benchRounds(20);
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

function bareTranscode(file: string): void {
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
  const server: { ms: number; cpuMs: number }[] = [];
  const bare: { ms: number; cpuMs: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const { value: res, ...time } = await timedWithCpu(() => upload(user, body, type));
    server.push(time);
    if (res.statusCode !== 200) throw new Error(res.body);
    bare.push(await timedWithCpu(() => Promise.resolve(bareTranscode(file))));
  }
  const s = median(server.map((run) => run.ms));
  const b = median(bare.map((run) => run.ms));
  console.log(
    `${label.padEnd(16)} server median ${ms(s)} (cpu ${ms(median(server.map((run) => run.cpuMs)))}) | ` +
      `bare ffmpeg transcode median ${ms(b)} (cpu ${ms(median(bare.map((run) => run.cpuMs)))}) | ratio ${(s / b).toFixed(2)}x | ` +
      `load ${loadAverage().toFixed(2)}`,
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
    `4 concurrent 10 s uploads: wall ${ms(wall)}; server RSS idle ${mb(idle)}, peak ${mb(peak)} (+${mb(peak - idle)}); ffmpeg runs as child processes, not counted; load ${loadAverage().toFixed(2)}`,
  );
}

// Batch creation of 1,000 users, against the raw INSERT of the same rows.
{
  const single: number[] = [];
  const singleCollection = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'single' } })).json().id;
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    await newUser(singleCollection);
    single.push(performance.now() - start);
  }
  const people = (round: number) =>
    Array.from({ length: 1000 }, (_, i) => ({
      email: `u${round}-${i}@example.com`,
      first_name: 'First',
      last_name: `Last ${i}`,
      external_id: `ext-${i}`,
    }));
  const newCollection = async (name: string): Promise<string> =>
    (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name } })).json().id;
  /** The least the endpoint must do: the rows in one INSERT, and the collection's count, in one transaction. */
  const rawInsert = (collectionId: string, round: number) =>
    t.deps.db.kysely.transaction().execute(async (trx) => {
      const now = new Date().toISOString();
      const rows = people(round).map((person, i) => ({
        ...person,
        id: newId(),
        collection_id: collectionId,
        email_normalized: person.email,
        display_name: `${person.first_name} ${person.last_name}`,
        custom_fields: '{}',
        record_token: randomToken(24),
        recording_status: 'none' as const,
        import_position: i,
        field_sources: '{}',
        created_at: now,
        updated_at: now,
      }));
      // SQLite binds at most 32,766 parameters a statement: 1,000 rows of 15 columns fit.
      await trx.insertInto('users').values(rows).execute();
      await trx.updateTable('collections').set({ member_count: 1000 }).where('id', '=', collectionId).execute();
    });
  const batch: { ms: number; cpuMs: number }[] = [];
  const raw: { ms: number; cpuMs: number }[] = [];
  for (let round = 0; round < 5; round++) {
    const coll = await newCollection(`batch${round}`);
    const { value: res, ...time } = await timedWithCpu(() =>
      t.request({ method: 'POST', url: `/v1/collections/${coll}/users/batch`, key, json: { users: people(round) } }),
    );
    batch.push(time);
    if (res.statusCode !== 201) throw new Error(res.body);
    const rawCollection = await newCollection(`raw${round}`);
    raw.push(await timedWithCpu(() => rawInsert(rawCollection, round)));
  }
  const b = median(batch.map((run) => run.ms));
  const r = median(raw.map((run) => run.ms));
  const s = median(single);
  console.log(
    `batch of 1,000 users: median ${ms(b)} (cpu ${ms(median(batch.map((run) => run.cpuMs)))}) | raw INSERT of the same rows ` +
      `${ms(r)} (cpu ${ms(median(raw.map((run) => run.cpuMs)))}) | ratio ${(b / r).toFixed(2)}x | ` +
      `1,000 single creates would take ${ms(s * 1000)} | load ${loadAverage().toFixed(2)}`,
  );
}

console.log(`database: ${t.deps.db.dialect}, ffmpeg: ${execFileSync('ffmpeg', ['-version']).toString().split('\n')[0]}`);
await t.close();
fs.rmSync(dir, { recursive: true, force: true });
