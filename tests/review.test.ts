/**
 * Review of recordings: recording_status through recording, approval, a request for a new take
 * (whose note the person reads on their recorder page, over a real connection) and the next
 * recording; recorded_count under review_required on and off; the status filter.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { authContract } from './helpers/auth-contract.js';

let t: TestApp & { url: string };
let key: string;
let speech: Buffer;

beforeAll(async () => {
  t = await startTestServer();
  ({ key } = await t.newAccount());
  speech = fs.readFileSync(speechWav());
});
afterAll(() => t.close());

async function newCollection(json: Record<string, unknown> = {}, k = key): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/v1/collections', key: k, json: { name: 'Class', ...json } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

let n = 0;
async function newUser(collectionId: string) {
  n++;
  const res = await t.request({
    method: 'POST',
    url: `/v1/collections/${collectionId}/users`,
    key,
    json: { email: `r${n}@example.com`, first_name: 'Ngozi', last_name: `Okafor ${n}` },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; record_url: string }>();
}

async function record(collectionId: string, userId: string) {
  const res = await t.request({
    method: 'PUT',
    url: `/v1/collections/${collectionId}/users/${userId}/recording`,
    key,
    headers: { 'content-type': 'audio/wav' },
    payload: speech,
  });
  expect(res.statusCode, res.body).toBe(200);
}

const review = (collectionId: string, userId: string, json: unknown, k = key) =>
  t.request({ method: 'POST', url: `/v1/collections/${collectionId}/users/${userId}/review`, key: k, json });

async function user(collectionId: string, userId: string) {
  return (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${userId}`, key })).json();
}

async function recordedCount(collectionId: string): Promise<number> {
  return (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}`, key })).json().recorded_count;
}

const setReview = async (collectionId: string, on: boolean) => {
  const res = await t.request({ method: 'PATCH', url: `/v1/collections/${collectionId}`, key, json: { review_required: on } });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().review_required).toBe(on);
  return res.json();
};

async function recorderPage(recordUrl: string): Promise<string> {
  const res = await fetch(recordUrl);
  expect(res.status).toBe(200);
  return res.text();
}

describe('review_required on collections', () => {
  it('is false by default, set on create and changed by PATCH', async () => {
    const plain = await newCollection();
    expect((await t.request({ method: 'GET', url: `/v1/collections/${plain}`, key })).json().review_required).toBe(false);
    const reviewed = await newCollection({ review_required: true });
    expect((await t.request({ method: 'GET', url: `/v1/collections/${reviewed}`, key })).json().review_required).toBe(true);
    await setReview(reviewed, false);
    const bad = await t.request({ method: 'PATCH', url: `/v1/collections/${plain}`, key, json: { review_required: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.param).toBe('review_required');
  });
});

describe('recording_status through a review', () => {
  it('goes none → recorded → needs_rerecord (note on the recorder page) → recorded (note gone) → approved', async () => {
    const collectionId = await newCollection();
    const person = await newUser(collectionId);
    expect(await user(collectionId, person.id)).toMatchObject({ recording_status: 'none', review_note: null });

    await record(collectionId, person.id);
    expect(await user(collectionId, person.id)).toMatchObject({ recording_status: 'recorded', has_recording: true });

    const note = 'Please record somewhere quieter: <b>the fan</b> is loud.';
    const asked = await review(collectionId, person.id, { decision: 'request_rerecord', note });
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.json()).toMatchObject({
      id: person.id,
      recording_status: 'needs_rerecord',
      review_note: note,
      has_recording: true,
    });
    expect(await user(collectionId, person.id)).toMatchObject({ recording_status: 'needs_rerecord', review_note: note });

    const page = await recorderPage(person.record_url);
    expect(page).toContain('Please record your name again');
    // Shown as text, never as markup.
    expect(page).toContain('Please record somewhere quieter: &lt;b&gt;the fan&lt;/b&gt; is loud.');
    expect(page).not.toContain('<b>the fan</b>');

    // The person records again through their own page's upload.
    const upload = await fetch(`${person.record_url}/recording`, {
      method: 'POST',
      headers: { 'content-type': 'audio/wav' },
      body: new Uint8Array(speech),
    });
    expect(upload.status).toBe(200);
    expect(await user(collectionId, person.id)).toMatchObject({ recording_status: 'recorded', review_note: null });
    const after = await recorderPage(person.record_url);
    expect(after).not.toContain('Please record your name again');
    expect(after).not.toContain('the fan');

    const approved = await review(collectionId, person.id, { decision: 'approve' });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json()).toMatchObject({ recording_status: 'approved', review_note: null });
    // An approval can be withdrawn later, and a request approved after all.
    expect((await review(collectionId, person.id, { decision: 'request_rerecord', note: 'Too fast.' })).json()).toMatchObject({
      recording_status: 'needs_rerecord',
      review_note: 'Too fast.',
    });
    expect((await review(collectionId, person.id, { decision: 'approve', note: null })).json()).toMatchObject({
      recording_status: 'approved',
      review_note: null,
    });
  });

  it('returns to none when the recording is deleted', async () => {
    const collectionId = await newCollection();
    const person = await newUser(collectionId);
    await record(collectionId, person.id);
    await review(collectionId, person.id, { decision: 'request_rerecord', note: 'Again please.' });
    const del = await t.request({ method: 'DELETE', url: `/v1/collections/${collectionId}/users/${person.id}/recording`, key });
    expect(del.statusCode).toBe(200);
    expect(await user(collectionId, person.id)).toMatchObject({
      recording_status: 'none',
      review_note: null,
      has_recording: false,
    });
  });

  it('answers 409 no_recording_to_review when there is nothing to review', async () => {
    const collectionId = await newCollection();
    const person = await newUser(collectionId);
    for (const body of [{ decision: 'approve' }, { decision: 'request_rerecord', note: 'Hello?' }]) {
      const res = await review(collectionId, person.id, body);
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'no_recording_to_review', param: 'user_id' });
    }
    expect(await user(collectionId, person.id)).toMatchObject({ recording_status: 'none' });
  });

  it('checks the decision and the note at their limits', async () => {
    const collectionId = await newCollection();
    const person = await newUser(collectionId);
    await record(collectionId, person.id);
    const expectError = async (body: unknown, code: string, param: string) => {
      const res = await review(collectionId, person.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatchObject({ code, param });
    };
    await expectError({ decision: 'request_rerecord' }, 'parameter_missing', 'note');
    await expectError({ decision: 'request_rerecord', note: null }, 'parameter_missing', 'note');
    await expectError({ decision: 'request_rerecord', note: '' }, 'parameter_invalid', 'note');
    await expectError({ decision: 'request_rerecord', note: '   ' }, 'parameter_missing', 'note');
    await expectError({ decision: 'request_rerecord', note: 'x'.repeat(501) }, 'parameter_invalid', 'note');
    await expectError({ decision: 'request_rerecord', note: 'bad\u0000note' }, 'parameter_invalid', 'note');
    await expectError({ decision: 'request_rerecord', note: 'evil \u202Etxt.exe' }, 'parameter_invalid', 'note');
    await expectError({ decision: 'approve', note: 'Nice.' }, 'parameter_invalid', 'note');
    await expectError({ decision: 'reject' }, 'parameter_invalid', 'decision');
    await expectError({}, 'parameter_missing', 'decision');
    await expectError({ decision: 'approve', extra: 1 }, 'parameter_unknown', 'extra');
    expect(await user(collectionId, person.id)).toMatchObject({ recording_status: 'recorded' });

    const longest = 'y'.repeat(500);
    const ok = await review(collectionId, person.id, { decision: 'request_rerecord', note: longest });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().review_note).toBe(longest);
    const multiline = await review(collectionId, person.id, { decision: 'request_rerecord', note: 'Line one.\nLine two.' });
    expect(multiline.json().review_note).toBe('Line one.\nLine two.');
  });

  it("answers 404 for unknown people and other accounts' collections", async () => {
    const collectionId = await newCollection();
    const person = await newUser(collectionId);
    await record(collectionId, person.id);
    const stranger = await t.newAccount();
    const theirs = await review(collectionId, person.id, { decision: 'approve' }, stranger.key);
    expect(theirs.statusCode).toBe(404);
    expect((await review(collectionId, '00000000-0000-4000-8000-000000000000', { decision: 'approve' })).statusCode).toBe(404);
    expect((await review(collectionId, 'not-a-uuid', { decision: 'approve' })).statusCode).toBe(404);
    expect(await user(collectionId, person.id)).toMatchObject({ recording_status: 'recorded' });
  });
});

describe('recorded_count with review on and off', () => {
  it('counts every recording without review, only approved ones with it, and recounts when switched', async () => {
    const collectionId = await newCollection();
    const [a, b, c, d] = [
      await newUser(collectionId),
      await newUser(collectionId),
      await newUser(collectionId),
      await newUser(collectionId),
    ];
    for (const p of [a, b, c]) await record(collectionId, p.id);
    expect(await recordedCount(collectionId)).toBe(3);
    await review(collectionId, a.id, { decision: 'approve' });
    await review(collectionId, b.id, { decision: 'request_rerecord', note: 'Louder, please.' });
    // Without review, a recording waiting for a new take still counts: it exists and plays.
    expect(await recordedCount(collectionId)).toBe(3);

    expect((await setReview(collectionId, true)).recorded_count).toBe(1);
    await review(collectionId, c.id, { decision: 'approve' });
    expect(await recordedCount(collectionId)).toBe(2);
    await review(collectionId, a.id, { decision: 'request_rerecord', note: 'Say the surname too.' });
    expect(await recordedCount(collectionId)).toBe(1);
    // A new take is `recorded` again: it counts only once approved.
    await record(collectionId, c.id);
    expect(await recordedCount(collectionId)).toBe(0);
    await record(collectionId, d.id);
    await review(collectionId, d.id, { decision: 'approve' });
    await review(collectionId, c.id, { decision: 'approve' });
    expect(await recordedCount(collectionId)).toBe(2);
    // Deleting an approved recording, and a person with an approved recording.
    await t.request({ method: 'DELETE', url: `/v1/collections/${collectionId}/users/${c.id}/recording`, key });
    expect(await recordedCount(collectionId)).toBe(1);
    await t.request({ method: 'DELETE', url: `/v1/collections/${collectionId}/users/${d.id}`, key });
    expect(await recordedCount(collectionId)).toBe(0);

    // Off again: every remaining recording (a and b wait for new takes) counts.
    expect((await setReview(collectionId, false)).recorded_count).toBe(2);
    await t.request({ method: 'DELETE', url: `/v1/collections/${collectionId}/users/${a.id}`, key });
    expect(await recordedCount(collectionId)).toBe(1);
    expect((await setReview(collectionId, true)).recorded_count).toBe(0);
    // PATCH without review_required leaves the count alone.
    const renamed = await t.request({ method: 'PATCH', url: `/v1/collections/${collectionId}`, key, json: { name: 'Renamed' } });
    expect(renamed.json()).toMatchObject({ recorded_count: 0, review_required: true });
  });

  it('stays exact while decisions and switches of the setting race', async () => {
    const collectionId = await newCollection();
    const people = [];
    for (let i = 0; i < 12; i++) people.push(await newUser(collectionId));
    for (const p of people) await record(collectionId, p.id);
    const work: Promise<unknown>[] = [];
    people.forEach((p, i) => {
      work.push(
        review(collectionId, p.id, i % 3 === 0 ? { decision: 'request_rerecord', note: 'Again.' } : { decision: 'approve' }),
      );
      if (i % 4 === 0) work.push(setReview(collectionId, i % 8 === 0));
    });
    await Promise.all(work);
    for (const on of [true, false]) {
      const collection = await setReview(collectionId, on);
      const statuses = await Promise.all(people.map(async (p) => (await user(collectionId, p.id)).recording_status));
      const expected = statuses.filter((s) => (on ? s === 'approved' : s !== 'none')).length;
      expect(collection.recorded_count).toBe(expected);
      // A change after the switch moves the counter by the new rule, from the right base.
      await review(collectionId, people[0]!.id, { decision: on ? 'approve' : 'request_rerecord', note: on ? null : 'x' });
      const now = await Promise.all(people.map(async (p) => (await user(collectionId, p.id)).recording_status));
      expect(await recordedCount(collectionId)).toBe(now.filter((s) => (on ? s === 'approved' : s !== 'none')).length);
    }
  });
});

describe('GET …/users?recording_status=', () => {
  it('lists only the people with that status, pages included', async () => {
    const collectionId = await newCollection();
    const people = [];
    for (let i = 0; i < 7; i++) people.push(await newUser(collectionId));
    for (const p of people.slice(0, 5)) await record(collectionId, p.id);
    for (const p of people.slice(0, 3)) await review(collectionId, p.id, { decision: 'approve' });
    await review(collectionId, people[3]!.id, { decision: 'request_rerecord', note: 'Slower.' });
    const list = async (query: string) => {
      const res = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users?${query}`, key });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const ids = (page: { data: { id: string }[] }) => page.data.map((u) => u.id).sort();
    expect(ids(await list('recording_status=approved'))).toEqual(
      people
        .slice(0, 3)
        .map((p) => p.id)
        .sort(),
    );
    expect(ids(await list('recording_status=needs_rerecord'))).toEqual([people[3]!.id]);
    expect(ids(await list('recording_status=recorded'))).toEqual([people[4]!.id]);
    expect(ids(await list('recording_status=none'))).toEqual(
      people
        .slice(5)
        .map((p) => p.id)
        .sort(),
    );
    const first = await list('recording_status=approved&limit=2');
    expect(first.has_more).toBe(true);
    const second = await list(`recording_status=approved&limit=2&cursor=${first.next_cursor}`);
    expect([...ids(first), ...ids(second)].sort()).toEqual(
      people
        .slice(0, 3)
        .map((p) => p.id)
        .sort(),
    );
    expect(second.has_more).toBe(false);

    const bad = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users?recording_status=rejected`, key });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'recording_status' });
  });
});

describe('auth', () => {
  let collectionId: string;
  let userId: string;
  beforeAll(async () => {
    collectionId = await newCollection();
    userId = (await newUser(collectionId)).id;
  });
  authContract(() => ({
    t,
    routes: [
      {
        method: 'POST',
        url: `/v1/collections/${collectionId}/users/${userId}/review`,
        json: { decision: 'approve' },
        owned: true,
      },
    ],
  }));
});
