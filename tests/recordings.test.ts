import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PADDING_MS } from '../src/audio/analyse.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { convert, decodeAudio, generated, matroskaOf, paddedSpeech, patchedWav, speechWav } from './helpers/audio.js';
import { authContract } from './helpers/auth-contract.js';
import { AFTER_AUDIO_DELETE_DELAY_MS, runJobsLater } from './helpers/jobs.js';

let t: TestApp;
let key: string;
let collectionId: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
  collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class' } })).json().id;
});
afterAll(() => t.close());

let counter = 0;
async function newUser(k = key, collection = collectionId) {
  counter++;
  const res = await t.request({
    method: 'POST',
    url: `/v1/collections/${collection}/users`,
    key: k,
    json: { email: `person${counter}@example.com`, first_name: 'Siobhán', last_name: `Ní Bhriain ${counter}` },
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

const recordingUrl = (userId: string, collection = collectionId) => `/v1/collections/${collection}/users/${userId}/recording`;

function upload(userId: string, body: Buffer, contentType = 'audio/webm', k = key) {
  return t.request({ method: 'PUT', url: recordingUrl(userId), key: k, headers: { 'content-type': contentType }, payload: body });
}

async function blobKeys(): Promise<string[]> {
  return t.deps.blobs.list('recordings/');
}

async function collection() {
  return (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}`, key })).json();
}

async function events(type?: string) {
  let query = t.deps.db.kysely.selectFrom('events').selectAll().orderBy('created_at');
  if (type) query = query.where('type', '=', type);
  return (await query.execute()).map((e) => ({ ...e, data: JSON.parse(e.data) }));
}

describe('PUT …/recording: accepted formats', () => {
  const speech = () => speechWav();

  it.each(['wav', 'webm', 'ogg', 'mp3', 'm4a'] as const)('turns a %s upload into a clean mono 44.1 kHz MP3', async (format) => {
    const user = await newUser();
    const file = format === 'wav' ? speech() : convert(speech(), format);
    const res = await upload(user.id, fs.readFileSync(file), 'application/octet-stream');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      ['display_name', 'duration_seconds', 'embed_html', 'play_link', 'play_url', 'recorded_at', 'status'].sort(),
    );
    expect(body.status).toBe('active');
    expect(body.display_name).toBe(user.display_name);
    expect(body.play_link).toMatch(/^http:\/\/localhost:3000\/p\/[A-Za-z0-9_-]{16}$/);
    expect(body.play_url).toBe(`${body.play_link}.mp3`);
    expect(body.embed_html).toBe(
      `<iframe src="${body.play_link}/embed" width="200" height="40" frameborder="0" title="How to say ${body.display_name}"></iframe>`,
    );
    expect(Number.isInteger(body.duration_seconds)).toBe(true);
    expect(body.duration_seconds).toBe(1);

    const row = await t.deps.db.kysely
      .selectFrom('recordings')
      .selectAll()
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.mime_type).toBe('audio/mpeg');
    expect(row.blob_key).toMatch(new RegExp(`^recordings/${user.id}/[0-9a-f]{64}\\.mp3$`));
    const mp3 = (await t.deps.blobs.get(row.blob_key)) as Buffer;
    expect(row.byte_size).toBe(mp3.length);
    const decoded = decodeAudio(mp3);
    expect(decoded.sampleRate).toBe(44_100);
    expect(decoded.channels).toBe(1);
    expect(Math.abs(decoded.durationMs - row.duration_ms)).toBeLessThan(60);
    // Loudness-normalised: the speech sits near the target whatever the input level.
    expect(decoded.meanDb).toBeGreaterThan(-26);
    expect(decoded.maxDb).toBeLessThanOrEqual(-0.5);
  });

  it('trims leading and trailing silence to the spoken part', async () => {
    const user = await newUser();
    const res = await upload(user.id, fs.readFileSync(paddedSpeech(2, 3)), 'audio/wav');
    expect(res.statusCode).toBe(200);
    const row = await t.deps.db.kysely
      .selectFrom('recordings')
      .selectAll()
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    const plain = decodeAudio(speechWav());
    // The padded WAV has 5 s of silence more than the plain one (which has next to none); what is
    // kept is the speech plus the pipeline's short padding on each side.
    expect(row.duration_ms).toBeLessThan(plain.durationMs + 2 * PADDING_MS + 150);
    expect(row.duration_ms).toBeGreaterThan(plain.durationMs - 500);
  });

  it('normalises quiet and loud takes to about the same level', async () => {
    const levels: number[] = [];
    for (const filter of ['volume=-20dB', 'volume=6dB']) {
      const user = await newUser();
      const res = await upload(user.id, fs.readFileSync(convert(speechWav(), 'wav', { filter, name: `level${filter}` })));
      expect(res.statusCode, res.body).toBe(200);
      const row = await t.deps.db.kysely
        .selectFrom('recordings')
        .selectAll()
        .where('user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      levels.push(decodeAudio((await t.deps.blobs.get(row.blob_key)) as Buffer).meanDb);
    }
    expect(Math.abs((levels[0] as number) - (levels[1] as number))).toBeLessThan(3);
  });
});

describe('PUT …/recording: refusals leave nothing behind', () => {
  const wav = () => fs.readFileSync(speechWav());
  const half = (file: string) => {
    const data = fs.readFileSync(file);
    return data.subarray(0, Math.floor(data.length / 2));
  };
  const cases: [string, () => Buffer, number, string][] = [
    ['an empty body', () => Buffer.alloc(0), 400, 'audio_empty'],
    ['text pretending to be audio', () => Buffer.from('hello, this is not audio at all'), 415, 'audio_unsupported_format'],
    ['a FLAC file (not accepted)', () => fs.readFileSync(convert(speechWav(), 'flac')), 415, 'audio_unsupported_format'],
    [
      'a PNG',
      () => Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'),
      415,
      'audio_unsupported_format',
    ],
    [
      'random bytes behind an Ogg signature',
      () => Buffer.concat([Buffer.from('OggS'), Buffer.alloc(4000, 7)]),
      422,
      'audio_corrupt',
    ],
    ['a WebM header only', () => fs.readFileSync(convert(speechWav(), 'webm')).subarray(0, 100), 422, 'audio_corrupt'],
    ['a truncated WAV', () => half(speechWav()), 422, 'audio_corrupt'],
    ['a truncated WebM', () => half(convert(speechWav(), 'webm')), 422, 'audio_corrupt'],
    ['a truncated Ogg', () => half(convert(speechWav(), 'ogg')), 422, 'audio_corrupt'],
    ['a truncated MP3', () => half(convert(speechWav(), 'mp3')), 422, 'audio_corrupt'],
    ['a truncated M4A', () => half(convert(speechWav(), 'm4a')), 422, 'audio_corrupt'],
    ['silence only', () => fs.readFileSync(generated('silence', 'anullsrc=r=44100:cl=mono', 3)), 422, 'audio_silent'],
    ['faint hiss only', () => fs.readFileSync(generated('hiss', 'anoisesrc=a=0.001:r=44100', 3)), 422, 'audio_silent'],
    ['a 0.2 s beep', () => fs.readFileSync(generated('beep', 'sine=f=440:r=44100', 0.2)), 422, 'audio_too_short'],
    [
      '16 s of speech-level sound',
      () => fs.readFileSync(generated('long', 'sine=f=300:r=44100', 16, 'ogg')),
      422,
      'audio_too_long',
    ],
    [
      'speech clipped throughout',
      () => fs.readFileSync(convert(speechWav(), 'wav', { filter: 'volume=30dB', name: 'clipped' })),
      422,
      'audio_clipped',
    ],
    // Absurd declared formats are refused from the header, before anything is decoded: a 1 Hz
    // header made ffmpeg's resampler spend tens of seconds and about a gigabyte on 2 KB.
    [
      'a WAV whose header claims 1 Hz',
      () => patchedWav(generated('tiny', 'sine=f=300:r=16000', 0.06), { sampleRate: 1 }),
      422,
      'audio_unsupported_sample_rate',
    ],
    [
      'a Matroska file of PCM at 1 Hz (read by the probe pass)',
      () => matroskaOf(patchedWav(generated('tiny', 'sine=f=300:r=16000', 0.06), { sampleRate: 1 }), 'pcm-1hz'),
      422,
      'audio_unsupported_sample_rate',
    ],
    ['a WAV at 200 kHz', () => patchedWav(speechWav(), { sampleRate: 200_000 }), 422, 'audio_unsupported_sample_rate'],
    ['a WAV declaring 9 channels', () => patchedWav(speechWav(), { channels: 9 }), 422, 'audio_too_many_channels'],
    [
      'a WAV of 200 s (its header says so)',
      () => fs.readFileSync(generated('long-8k', 'anullsrc=r=8000:cl=mono', 200)),
      422,
      'audio_too_long',
    ],
  ];

  it.each(cases)('refuses %s', async (_name, body, status, code) => {
    const user = await newUser();
    const before = { blobs: await blobKeys(), recorded: (await collection()).recorded_count, events: (await events()).length };
    const bytes = body();
    const started = performance.now();
    const res = await upload(user.id, bytes, 'audio/webm');
    expect(res.statusCode, res.body).toBe(status);
    // Every refusal is cheap; the slowest legitimate case decodes a few seconds of audio.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(res.json().error.code).toBe(code);
    expect(res.json().error.message.length).toBeGreaterThan(10);
    expect(await blobKeys()).toEqual(before.blobs);
    expect((await collection()).recorded_count).toBe(before.recorded);
    expect((await events()).length).toBe(before.events);
    const fetched = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${user.id}`, key });
    expect(fetched.json().has_recording).toBe(false);
  });

  it('accepts exactly 5 MB and refuses one byte more with 413 audio_too_large', async () => {
    const user = await newUser();
    // A valid WAV padded with a trailing junk chunk up to the limit.
    const base = wav();
    const junk = (size: number) => {
      const header = Buffer.alloc(8);
      header.write('junk', 0, 'latin1');
      header.writeUInt32LE(size - 8, 4);
      return Buffer.concat([header, Buffer.alloc(size - 8)]);
    };
    const at = (total: number) => {
      const body = Buffer.concat([base, junk(total - base.length)]);
      body.writeUInt32LE(body.length - 8, 4);
      return body;
    };
    const limit = 5 * 1024 * 1024;
    const ok = await upload(user.id, at(limit), 'audio/wav');
    expect(ok.statusCode, ok.body).toBe(200);
    const tooBig = await upload(user.id, at(limit + 1), 'audio/wav');
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json().error.code).toBe('audio_too_large');
    expect(tooBig.json().error.request_id).toBe(tooBig.headers['x-request-id']);
  });

  it('refuses bodies that are not audio content types with 415', async () => {
    const user = await newUser();
    const res = await upload(user.id, wav(), 'text/plain');
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('unsupported_media_type');
    const json = await t.request({ method: 'PUT', url: recordingUrl(user.id), key, json: { audio: 'x' } });
    expect(json.statusCode).toBe(415);
  });

  // Generated clients copy the document's media-type key into the header: hey-api and orval send a
  // literal `audio/*`, others `application/octet-stream`. The format is read from the bytes anyway.
  it.each(['audio/*', 'audio/wav; codecs=1', 'application/octet-stream', 'AUDIO/*'])(
    'accepts WAV bytes sent as %s',
    async (contentType) => {
      const user = await newUser();
      const res = await upload(user.id, fs.readFileSync(speechWav()), contentType);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().play_link).toBeTruthy();
    },
  );

  it('refuses a JSON body with 415 in the envelope, naming only media types it accepts', async () => {
    const user = await newUser();
    const json = await t.request({ method: 'PUT', url: recordingUrl(user.id), key, json: { audio: 'x' } });
    expect(json.statusCode).toBe(415);
    const { error } = json.json();
    expect(error).toMatchObject({ type: expect.any(String), code: 'unsupported_media_type', request_id: expect.any(String) });
    expect(error.message).toContain('application/octet-stream');
    expect(error.message).not.toContain('application/json');
    // Every media type the message suggests is one the upload takes.
    for (const suggested of error.message.match(/\b(?:audio|application)\/[\w*.+-]+/g) as string[]) {
      const res = await upload(user.id, fs.readFileSync(speechWav()), suggested);
      expect(res.statusCode, `${suggested}: ${res.body}`).toBe(200);
    }
  });

  it('sniffs the bytes and ignores a wrong Content-Type', async () => {
    const user = await newUser();
    const res = await upload(user.id, fs.readFileSync(convert(speechWav(), 'ogg')), 'audio/mpeg');
    expect(res.statusCode).toBe(200);
  });
});

describe('re-recording, deletion, counts and events', () => {
  it('keeps the play link, replaces the audio, and keeps recorded_count exact', async () => {
    const before = (await collection()).recorded_count;
    const user = await newUser();
    const first = await upload(user.id, fs.readFileSync(speechWav()), 'audio/wav');
    expect(first.statusCode).toBe(200);
    expect((await collection()).recorded_count).toBe(before + 1);
    const firstKey = (
      await t.deps.db.kysely.selectFrom('recordings').select('blob_key').where('user_id', '=', user.id).executeTakeFirstOrThrow()
    ).blob_key;

    const second = await upload(user.id, fs.readFileSync(convert(speechWav('Jürgen Habermas', 'juergen'), 'webm')));
    expect(second.statusCode).toBe(200);
    expect(second.json().play_link).toBe(first.json().play_link);
    expect(second.json().recorded_at >= first.json().recorded_at).toBe(true);
    expect((await collection()).recorded_count).toBe(before + 1);
    const secondKey = (
      await t.deps.db.kysely.selectFrom('recordings').select('blob_key').where('user_id', '=', user.id).executeTakeFirstOrThrow()
    ).blob_key;
    expect(secondKey).not.toBe(firstKey);
    expect(await t.deps.blobs.get(firstKey)).not.toBeNull(); // until the delayed deletion, below

    const links = await t.deps.db.kysely.selectFrom('play_links').selectAll().where('user_id', '=', user.id).execute();
    expect(links).toHaveLength(1);
    expect(links[0]?.status).toBe('active');

    const completed = (await events('recording.completed')).filter((e) => e.data.user_id === user.id);
    expect(completed).toHaveLength(2);
    expect(completed[0]?.data).toEqual({
      collection_id: collectionId,
      user_id: user.id,
      email: user.email,
      first_name: user.first_name,
      last_name: user.last_name,
      play_link: first.json().play_link,
      recorded_at: first.json().recorded_at,
    });
    const jobs = await t.deps.db.kysely.selectFrom('jobs').selectAll().where('name', '=', 'events.dispatch').execute();
    expect(jobs.map((j) => JSON.parse(j.payload).event_id)).toEqual(expect.arrayContaining(completed.map((e) => e.id)));

    const fetched = (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${user.id}`, key })).json();
    expect(fetched.has_recording).toBe(true);

    await runJobsLater(t.deps, AFTER_AUDIO_DELETE_DELAY_MS);
    expect(await t.deps.blobs.get(firstKey)).toBeNull();
    expect(await t.deps.blobs.get(secondKey)).not.toBeNull();
  });

  it('DELETE …/recording removes the row and the file, emits recording.deleted, and lowers recorded_count', async () => {
    const user = await newUser();
    const put = await upload(user.id, fs.readFileSync(speechWav()), 'audio/wav');
    const count = (await collection()).recorded_count;
    const res = await t.request({ method: 'DELETE', url: recordingUrl(user.id), key });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: true, user_id: user.id });
    expect((await collection()).recorded_count).toBe(count - 1);
    // The file goes once every process's cache has let go of it (recordings.delete-audio).
    expect(await t.deps.blobs.list(`recordings/${user.id}/`)).toHaveLength(1);
    await runJobsLater(t.deps, AFTER_AUDIO_DELETE_DELAY_MS);
    expect(await t.deps.blobs.list(`recordings/${user.id}/`)).toEqual([]);
    const deleted = (await events('recording.deleted')).filter((e) => e.data.user_id === user.id);
    expect(deleted).toHaveLength(1);
    expect(deleted[0]?.data).toEqual({
      collection_id: collectionId,
      user_id: user.id,
      email: user.email,
      first_name: user.first_name,
      last_name: user.last_name,
      play_link: put.json().play_link,
      recorded_at: put.json().recorded_at,
    });
    const again = await t.request({ method: 'DELETE', url: recordingUrl(user.id), key });
    expect(again.statusCode).toBe(404);
    // A new take after deletion keeps the same play link.
    const retake = await upload(user.id, fs.readFileSync(speechWav()), 'audio/wav');
    expect(retake.json().play_link).toBe(put.json().play_link);
  });

  it('counts stay exact under concurrent first recordings of the same user', async () => {
    const user = await newUser();
    const before = (await collection()).recorded_count;
    const results = await Promise.all([0, 1, 2].map(() => upload(user.id, fs.readFileSync(speechWav()), 'audio/wav')));
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect((await collection()).recorded_count).toBe(before + 1);
    expect(new Set(results.map((r) => r.json().play_link)).size).toBe(1);
    expect(await t.deps.blobs.list(`recordings/${user.id}/`)).toHaveLength(1);
  });

  it('404s for unknown users, archived collections and other accounts', async () => {
    const user = await newUser();
    const wav = fs.readFileSync(speechWav());
    expect((await upload('00000000-0000-4000-8000-000000000000', wav)).statusCode).toBe(404);
    expect((await upload('nope', wav)).statusCode).toBe(404);
    const other = await t.newAccount();
    expect((await upload(user.id, wav, 'audio/wav', other.key)).statusCode).toBe(404);
    const archived = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'old' } })).json().id;
    const archivedUser = await newUser(key, archived);
    await t.request({ method: 'DELETE', url: `/v1/collections/${archived}`, key });
    const res = await t.request({
      method: 'PUT',
      url: recordingUrl(archivedUser.id, archived),
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: wav,
    });
    expect(res.statusCode).toBe(404);
    expect(await t.deps.blobs.list(`recordings/${archivedUser.id}/`)).toEqual([]);
  });
});

describe('replaced audio', () => {
  it('stays until every process can have dropped it, then goes, unless the same take came back meanwhile', async () => {
    const user = await newUser();
    const first = fs.readFileSync(speechWav());
    const second = fs.readFileSync(speechWav('Aoife Ni Bhriain', 'second-take'));
    expect((await upload(user.id, first, 'audio/wav')).statusCode).toBe(200);
    const [firstKey] = await t.deps.blobs.list(`recordings/${user.id}/`);
    expect((await upload(user.id, second, 'audio/wav')).statusCode).toBe(200);
    // Committed, yet the old file is still there for caches and listeners mid-redirect.
    expect(await t.deps.blobs.list(`recordings/${user.id}/`)).toHaveLength(2);
    const job = await t.deps.db.kysely
      .selectFrom('jobs')
      .select(['run_at', 'payload'])
      .where('name', '=', 'recordings.delete-audio')
      .where('payload', 'like', `%${firstKey}%`)
      .executeTakeFirstOrThrow();
    const delay = Date.parse(job.run_at) - Date.now();
    expect(delay).toBeGreaterThan(t.config.playLinks.cacheTtlMs);
    expect(delay).toBeLessThanOrEqual(t.config.playLinks.cacheTtlMs + 60_000);
    await runJobsLater(t.deps, 1_000);
    expect(await t.deps.blobs.list(`recordings/${user.id}/`)).toHaveLength(2);
    await runJobsLater(t.deps, AFTER_AUDIO_DELETE_DELAY_MS);
    expect(await t.deps.blobs.list(`recordings/${user.id}/`)).toHaveLength(1);
    expect(await t.deps.blobs.get(firstKey as string)).toBeNull();

    // The first take again (the same file key), then the second again: its pending deletion must spare it.
    expect((await upload(user.id, first, 'audio/wav')).statusCode).toBe(200);
    expect((await upload(user.id, second, 'audio/wav')).statusCode).toBe(200);
    await runJobsLater(t.deps, AFTER_AUDIO_DELETE_DELAY_MS);
    const [kept] = await t.deps.blobs.list(`recordings/${user.id}/`);
    const row = await t.deps.db.kysely
      .selectFrom('recordings')
      .select('blob_key')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(kept).toBe(row.blob_key);
  });
});

describe('orphan sweep', () => {
  it('removes audio files with no recording row once they are an hour old, and keeps the rest', async () => {
    const { sweepOrphanBlobs } = await import('../src/features/recordings/service.js');
    const user = await newUser();
    await upload(user.id, fs.readFileSync(speechWav()), 'audio/wav');
    const orphan = `recordings/${user.id}/${'0'.repeat(64)}.mp3`;
    await t.deps.blobs.put(orphan, Buffer.from('x'), 'audio/mpeg');
    expect(await sweepOrphanBlobs(t.deps)).toBe(0); // too young
    const later = { ...t.deps, clock: { now: () => new Date(Date.now() + 2 * 60 * 60 * 1000) } };
    expect(await sweepOrphanBlobs(later)).toBe(1);
    expect(await t.deps.blobs.get(orphan)).toBeNull();
    expect(await t.deps.blobs.list(`recordings/${user.id}/`)).toHaveLength(1);
  });
});

describe('authentication', () => {
  let userId = '';
  beforeAll(async () => {
    userId = (await newUser()).id;
  });
  authContract(() => ({
    t,
    routes: [
      { method: 'PUT', url: recordingUrl(userId), owned: true },
      { method: 'DELETE', url: recordingUrl(userId), owned: true },
    ],
  }));
});
