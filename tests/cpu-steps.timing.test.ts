/**
 * The CPU-heavy steps besides import and export hold the event loop no longer than they do: a
 * JSON batch of 1,000 people (validation), the dashboard's people page of a collection of
 * 10,000, erasing a collection of 10,000 people, a preview card (layout and font shaping on the
 * main thread, the raster in a worker), a logo upload, a recording upload (ffmpeg is a child
 * process; probing, sniffing and storing are not) and an event's fan-out to 1,000 webhooks. Each
 * keeps every stall under 50 ms. A timing test: it runs last and alone (the `timing` project),
 * so other files' load cannot fail it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { convert, speechWav } from './helpers/audio.js';
import { ffmpegPath } from './helpers/binaries.js';
import { get, signIn } from './helpers/dashboard.js';
import { fakeSpeech } from './helpers/fake-speech.js';
import { measureStalls } from './helpers/loop-stalls.js';
import { addRecordedUser } from './helpers/play-link-fixtures.js';
import { seedPeople } from './helpers/seed-people.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';
import { accountIdOf, dispatchDue, recordTestEvent } from './helpers/webhooks.js';

const MAX_STALL_MS = 50;
const OWNER = 'timing-steps@example.com';
const WEBHOOKS = 1_000;

let t: TestApp & { url: string };
let key: string;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({
    contractCheck: false,
    env: {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_MAX_PER_ACCOUNT: String(WEBHOOKS),
      // The set-up creates the webhooks one request at a time.
      RATE_LIMIT_PER_MINUTE: '100000',
    },
    overrides: fakeSpeech(),
  });
  ({ key } = await t.newAccount(OWNER));
}, 60_000);
afterAll(async () => {
  await t.close();
  await receiver.close();
});

async function newCollection(name = 'Timing'): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name } });
  expect(res.statusCode).toBe(201);
  return res.json<{ id: string }>().id;
}

/** Measures the stalls of `work`, its first run aside: a route's first request compiles its serializers, once. */
async function stallsOf<T>(label: string, work: () => Promise<T>, warmUp?: () => Promise<unknown>) {
  if (warmUp) await warmUp();
  const measured = await measureStalls(work);
  console.info(label, {
    elapsedMs: Math.round(measured.elapsedMs),
    maxBusyStallMs: Math.round(measured.maxBusyStallMs),
    maxDelayMs: Math.round(measured.maxDelayMs),
  });
  return measured;
}

const people = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => ({
    email: `${prefix}${i}@example.com`,
    first_name: 'Person',
    last_name: `Number ${i}`,
    phonetic_spelling: 'PER-sun',
  }));

describe('CPU-heavy steps keep every stall under 50 ms', () => {
  it('a JSON batch of 1,000 people, valid and all wrong', { timeout: 60_000 }, async () => {
    const collectionId = await newCollection();
    const batch = (users: unknown[]) =>
      t.request({ method: 'POST', url: `/v1/collections/${collectionId}/users/batch`, key, json: { users } });
    await batch(people(2, 'warm'));
    for (const [users, status] of [
      [people(1_000, 'x').map((u) => ({ ...u, email: `not-an-email-${u.last_name}` })), 400],
      [people(1_000, 'batch'), 201],
    ] as const) {
      const { result, maxBusyStallMs } = await stallsOf(`JSON batch ${status}`, () => batch(users));
      expect(result.statusCode, result.body.slice(0, 300)).toBe(status);
      expect(maxBusyStallMs).toBeLessThan(MAX_STALL_MS);
    }
  });

  it('the dashboard people page of a collection of 10,000 people', { timeout: 60_000 }, async () => {
    const owner = await signIn(t, OWNER);
    const collectionId = await newCollection('Ten thousand');
    await seedPeople(t.deps, collectionId, 10_000);
    const page = () => get(t, owner, `/dashboard/collections/${collectionId}`);
    const { result, maxBusyStallMs } = await stallsOf('people page', page, page);
    expect(result.statusCode).toBe(200);
    expect(result.body).toContain('Person 9999');
    expect(maxBusyStallMs).toBeLessThan(MAX_STALL_MS);
  });

  it('erasing a collection of 10,000 people', { timeout: 60_000 }, async () => {
    const warm = await newCollection('Warm');
    await seedPeople(t.deps, warm, 10);
    const collectionId = await newCollection('Erase me');
    await seedPeople(t.deps, collectionId, 10_000);
    const erase = (id: string) => t.request({ method: 'DELETE', url: `/v1/collections/${id}?erase=true`, key });
    const { result, maxBusyStallMs } = await stallsOf(
      'erasure',
      () => erase(collectionId),
      () => erase(warm),
    );
    expect(result.statusCode, result.body).toBe(200);
    expect(result.json()).toMatchObject({ erased: true });
    const left = await t.deps.db.kysely
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('collection_id', '=', collectionId)
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
    expect(maxBusyStallMs).toBeLessThan(MAX_STALL_MS);
  });

  it('a preview card, rendered for the first time', { timeout: 60_000 }, async () => {
    const collectionId = await newCollection('Cards');
    const warm = await addRecordedUser(t, collectionId, { firstName: 'Warm', lastName: 'Up' });
    const { token } = await addRecordedUser(t, collectionId, {
      firstName: 'Maximiliana Wilhelmina',
      lastName: 'Ó Súilleabháin-Nguyễn Þórsdóttir',
    });
    const card = (tokenOf: string) => t.request({ method: 'GET', url: `/p/${tokenOf}/card.png` });
    const { result, maxBusyStallMs } = await stallsOf(
      'card',
      () => card(token),
      () => card(warm.token),
    );
    expect(result.statusCode).toBe(200);
    expect(result.headers['content-type']).toBe('image/png');
    expect(maxBusyStallMs).toBeLessThan(MAX_STALL_MS);
  });

  it('a logo upload of a large image', { timeout: 60_000 }, async () => {
    const collectionId = await newCollection('Logo');
    const file = `${fs.mkdtempSync('/tmp/voicename-logo-timing-')}/logo.png`;
    execFileSync(ffmpegPath(), [
      '-hide_banner',
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=1600x1200',
      '-frames:v',
      '1',
      file,
    ]);
    const png = fs.readFileSync(file);
    const put = () =>
      t.request({
        method: 'PUT',
        url: `/v1/collections/${collectionId}/logo`,
        key,
        headers: { 'content-type': 'image/png' },
        payload: png,
      });
    const { result, maxBusyStallMs } = await stallsOf('logo', put, put);
    expect(result.statusCode, result.body).toBe(200);
    expect(maxBusyStallMs).toBeLessThan(MAX_STALL_MS);
  });

  it('a recording upload', { timeout: 60_000 }, async () => {
    const collectionId = await newCollection('Recordings');
    const batch = await t.request({
      method: 'POST',
      url: `/v1/collections/${collectionId}/users/batch`,
      key,
      json: { users: people(2, 'recorded') },
    });
    const [warm, measured] = batch.json<{ data: { id: string }[] }>().data as [{ id: string }, { id: string }];
    const webm = fs.readFileSync(convert(speechWav(), 'webm'));
    const upload = (userId: string) =>
      t.request({
        method: 'PUT',
        url: `/v1/collections/${collectionId}/users/${userId}/recording`,
        key,
        headers: { 'content-type': 'audio/webm' },
        payload: webm,
      });
    const { result, maxBusyStallMs } = await stallsOf(
      'recording',
      () => upload(measured.id),
      () => upload(warm.id),
    );
    expect(result.statusCode, result.body).toBe(200);
    expect(maxBusyStallMs).toBeLessThan(MAX_STALL_MS);
  });

  it(`an event's fan-out to ${WEBHOOKS} webhooks`, { timeout: 120_000 }, async () => {
    for (let i = 0; i < WEBHOOKS; i++) {
      const res = await t.request({
        method: 'POST',
        url: '/v1/webhooks',
        key,
        json: { url: `${receiver.url}/hook${i}`, events: ['*'] },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const accountId = await accountIdOf(t, OWNER);
    await dispatchDue(t);
    await recordTestEvent(t, accountId);
    const { result, maxBusyStallMs } = await stallsOf('fan-out', () => dispatchDue(t));
    expect(result).toBe(1);
    const deliveries = await t.deps.db.kysely
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(deliveries.n)).toBeGreaterThanOrEqual(WEBHOOKS);
    expect(maxBusyStallMs).toBeLessThan(MAX_STALL_MS);
  });
});
