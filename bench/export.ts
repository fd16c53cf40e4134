/**
 * Export benchmark: `GET /v1/collections/{id}/export?format=zip` of a collection of 1,000 and of
 * 3,000 recorded people (BENCH_EXPORT_SIZES, comma-separated), served by the real server in its
 * own process (SQLite, disk blobs, as `npm start` runs it). For each size: wall time of the whole
 * download, and the server's resident memory (RSS) idle before and at its peak during the
 * export, sampled from /proc every 10 ms. RSS that stays flat as the collection triples is the
 * point. Baseline in the same run: a bare node:http process streaming the same audio files
 * one after another in one response (no ZIP, no database). After a warm-up of each, BENCH_ROUNDS
 * interleaved rounds (default 5): every figure is the median over them, with the serving
 * process's CPU time per download (/proc/<pid>/stat) and the 1-minute load average.
 * Run: npm run bench -- export
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Insertable } from 'kysely';
import type { PlayLinksTable, RecordingsTable, UsersTable } from '../src/db/schema.js';
import { createCollection } from '../src/features/collections/service.js';
import { newId, randomToken } from '../src/lib/ids.js';
import { benchAccount, benchApp, benchRounds, blobStreamServer, cpuMsOf, loadAverage, median } from './lib.js';

const ROUNDS = benchRounds();
const SIZES = (process.env.BENCH_EXPORT_SIZES ?? '1000,3000').split(',').map(Number);
/** About a 2 s name at 64 kbit/s, the size the recorder's MP3s have. */
const MP3_BYTES = 16_000;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** Downloads `url` to nowhere while sampling the server's RSS; wall time, bytes and peak RSS. */
async function download(url: string, pid: number, headers: Record<string, string> = {}) {
  const idle = rssOf(pid);
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 10);
  const cpuBefore = cpuMsOf(pid);
  const started = performance.now();
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  const ms = performance.now() - started;
  clearInterval(sampler);
  return { ms, bytes, idle, peak: Math.max(peak, rssOf(pid)), cpuMs: cpuMsOf(pid) - cpuBefore, load: loadAverage() };
}
type Download = Awaited<ReturnType<typeof download>>;

/** The median of every figure of a side's rounds. */
const medianDownload = (runs: Download[]): Download => {
  const of = (pick: (run: Download) => number) => median(runs.map(pick));
  return {
    ms: of((r) => r.ms),
    bytes: of((r) => r.bytes),
    idle: of((r) => r.idle),
    peak: of((r) => r.peak),
    cpuMs: of((r) => r.cpuMs),
    load: of((r) => r.load),
  };
};

interface Seeded {
  key: string;
  collectionId: string;
  blobFiles: string[];
}

/** A collection of `size` people, each with a recording (random bytes of an MP3's size) and a play link. */
async function seed(deps: Parameters<Parameters<typeof benchApp>[0]>[0], size: number, out: Seeded): Promise<void> {
  const { key, accountId } = await benchAccount(deps, `export-${randomToken(6).toLowerCase()}@example.com`);
  const collection = await createCollection(deps, accountId, { name: `Export ${size}` });
  const now = new Date().toISOString();
  const db = deps.db.kysely;
  for (let from = 0; from < size; from += 500) {
    const users: Insertable<UsersTable>[] = [];
    const recordings: Insertable<RecordingsTable>[] = [];
    const links: Insertable<PlayLinksTable>[] = [];
    for (let i = from; i < Math.min(from + 500, size); i++) {
      const id = newId();
      const blobKey = `recordings/${id}/${randomBytes(32).toString('hex')}.mp3`;
      await deps.blobs.put(blobKey, randomBytes(MP3_BYTES), 'audio/mpeg');
      out.blobFiles.push(path.join(deps.config.dataDir, 'blobs', blobKey));
      users.push({
        id,
        collection_id: collection.id,
        email: `p${i}@example.com`,
        email_normalized: `p${i}@example.com`,
        first_name: 'Person',
        last_name: String(i),
        display_name: `Person ${i}`,
        external_id: null,
        phonetic_spelling: null,
        custom_fields: '{}',
        record_token: randomToken(24),
        recording_status: 'recorded',
        review_note: null,
        import_position: i,
        field_sources: '{}',
        created_at: now,
        updated_at: now,
      });
      recordings.push({
        user_id: id,
        blob_key: blobKey,
        mime_type: 'audio/mpeg',
        byte_size: MP3_BYTES,
        duration_ms: 2000,
        recorded_at: now,
      });
      links.push({ token: randomToken(12), user_id: id, status: 'active', created_at: now, retired_at: null });
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('users').values(users).execute();
      await trx.insertInto('recordings').values(recordings).execute();
      await trx.insertInto('play_links').values(links).execute();
    });
  }
  out.key = key;
  out.collectionId = collection.id;
}

console.log(
  `voicename export benchmark  (node ${process.version}, ${os.cpus().length} cpus, ${MP3_BYTES / 1000} kB per MP3, medians of ${ROUNDS} rounds)`,
);
console.log(
  `${'what'.padEnd(40)}${'time'.padStart(10)}${'bytes'.padStart(10)}${'MB/s'.padStart(8)}${'RSS idle'.padStart(11)}${'RSS peak'.padStart(11)}` +
    `${'ratio'.padStart(8)}${'cpu ms'.padStart(9)}${'load 1m'.padStart(9)}`,
);
const line = (name: string, r: Download, ratio: number) =>
  console.log(
    `${name.padEnd(40)}${`${(r.ms / 1000).toFixed(2)} s`.padStart(10)}${mb(r.bytes).padStart(10)}${(r.bytes / 1024 / 1024 / (r.ms / 1000)).toFixed(1).padStart(8)}${mb(r.idle).padStart(11)}${mb(r.peak).padStart(11)}` +
      `${ratio.toFixed(2).padStart(8)}${r.cpuMs.toFixed(0).padStart(9)}${r.load.toFixed(2).padStart(9)}`,
  );

for (const size of SIZES) {
  const seeded: Seeded = { key: '', collectionId: '', blobFiles: [] };
  const app = await benchApp((deps) => seed(deps, size, seeded));
  const listFile = path.join(os.tmpdir(), `voicename-bench-blobs-${randomToken(6)}.txt`);
  fs.writeFileSync(listFile, seeded.blobFiles.join('\n'));
  const baseline = await blobStreamServer(listFile);
  try {
    // One warm-up of each, so both measure steady state rather than first-request compilation.
    await download(baseline.url, baseline.pid as number);
    const exportUrl = `${app.url}/v1/collections/${seeded.collectionId}/export?format=zip`;
    const auth = { authorization: `Bearer ${seeded.key}` };
    await download(exportUrl, app.serverPid, auth);
    const bareRuns: Download[] = [];
    const zipRuns: Download[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bareRuns.push(await download(baseline.url, baseline.pid as number));
      zipRuns.push(await download(exportUrl, app.serverPid, auth));
    }
    const bare = medianDownload(bareRuns);
    const zip = medianDownload(zipRuns);
    line(`stream ${size.toLocaleString('en')} MP3s, no ZIP (baseline)`, bare, 1);
    line(`ZIP export of ${size.toLocaleString('en')} recordings`, zip, zip.ms / bare.ms);
  } finally {
    await baseline.close();
    await app.close();
    fs.rmSync(listFile, { force: true });
  }
}
console.log(
  'ratio = time / baseline time at the same size; RSS and cpu ms (per download) of the serving process, RSS sampled every 10 ms',
);
