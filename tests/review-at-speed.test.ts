/**
 * Review at speed, through the real app and database: the people table's inline review forms
 * (without script: a redirect back to the same table; with script: JSON), the "listened" marker
 * and its reset by a new recording, approving every played recording at once, review mode, and
 * each decision in the audit log with the person's name, the decision and the note. Viewers
 * read, never decide; another organisation's people are not found.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { type Browserish, get, inviteAndJoin, post, signIn } from './helpers/dashboard.js';

type Session = Browserish & { csrf: string };
type Person = { id: string; display_name: string };

let t: TestApp;
let owner: Session;
let viewer: Session;
let stranger: Session;
let key: string;
const OWNER = 'registrar-review@example.com';
const JSON_ACCEPT = { accept: 'application/json' };

beforeAll(async () => {
  t = await createTestApp();
  owner = await signIn(t, OWNER, '203.0.113.41');
  viewer = await inviteAndJoin(t, owner, 'looker-review@example.com', 'viewer', '203.0.113.42');
  stranger = await signIn(t, 'stranger-review@example.com', '203.0.113.43');
  ({ key } = await t.newAccount(OWNER));
});
afterAll(() => t.close());

const api = (method: 'GET' | 'POST', url: string, json?: unknown) =>
  t.request({ method, url, key, ...(json === undefined ? {} : { json }) });

let n = 0;
async function collectionWith(names: string[]): Promise<{ id: string; people: Person[] }> {
  const created = await api('POST', '/v1/collections', { name: `Graduation ${++n}`, review_required: true });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().id as string;
  const users = names.map((name, i) => ({
    email: `p${n}-${i}@example.com`,
    first_name: name.split(' ')[0],
    last_name: name.split(' ')[1],
  }));
  const batch = await api('POST', `/v1/collections/${id}/users/batch`, { users });
  expect(batch.statusCode, batch.body).toBe(201);
  return { id, people: batch.json().data };
}

async function record(collectionId: string, userId: string) {
  const res = await t.request({
    method: 'PUT',
    url: `/v1/collections/${collectionId}/users/${userId}/recording`,
    key,
    headers: { 'content-type': 'audio/wav' },
    payload: fs.readFileSync(speechWav()),
  });
  expect(res.statusCode, res.body).toBe(200);
}

const user = async (collectionId: string, userId: string) =>
  (await api('GET', `/v1/collections/${collectionId}/users/${userId}`)).json();
const recordedCount = async (collectionId: string) => (await api('GET', `/v1/collections/${collectionId}`)).json().recorded_count;

async function auditOf(objectId: string) {
  const rows = await t.deps.db.kysely
    .selectFrom('audit_log')
    .select(['action', 'detail', 'actor'])
    .where('object_id', '=', objectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, detail: row.detail === null ? null : JSON.parse(row.detail) }));
}

describe('review from the people table', () => {
  it('shows admins a player, approve and ask-again forms per recording; viewers none', async () => {
    const { id, people } = await collectionWith(['Ada Obi', 'Bo Chen']);
    await record(id, people[0]!.id);
    const page = await get(t, owner, `/dashboard/collections/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("media-src 'self'");
    expect(page.body).toContain(
      `<audio controls preload="none" src="/dashboard/collections/${id}/people/${people[0]!.id}/audio"`,
    );
    expect(page.body).toContain(`data-listened="/dashboard/collections/${id}/people/${people[0]!.id}/listened"`);
    expect(page.body.match(/name="decision" value="approve"/g)).toHaveLength(1);
    expect(page.body).toContain('<span class="muted">Nothing to review</span>');
    expect(page.body).toContain(`href="/dashboard/collections/${id}/review" id="review-mode-link"`);
    const asViewer = await get(t, viewer, `/dashboard/collections/${id}`);
    expect(asViewer.statusCode).toBe(200);
    expect(asViewer.body).not.toContain('name="decision"');
    expect(asViewer.body).not.toContain('data-listened');
  });

  it('approves without script and returns to the same table page, filters kept', async () => {
    const { id, people } = await collectionWith(['Ada Obi']);
    const ada = people[0]!;
    await record(id, ada.id);
    const res = await post(t, owner, `/dashboard/collections/${id}/people/${ada.id}/review`, {
      csrf: owner.csrf,
      decision: 'approve',
      return_to: 'table',
      query: '?status=awaiting_review&order=name&evil=https://example.net',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(
      `/dashboard/collections/${id}?status=awaiting_review&order=name&notice=recording-approved#row-${ada.id}`,
    );
    expect((await user(id, ada.id)).recording_status).toBe('approved');
    expect(await recordedCount(id)).toBe(1);
    expect(await auditOf(ada.id)).toContainEqual({ action: 'recording.reviewed', actor: OWNER, detail: { decision: 'approve' } });
  });

  it('asks again with a note in place (JSON), and refuses an empty note with a 400 naming the field', async () => {
    const { id, people } = await collectionWith(['Bo Chen']);
    const bo = people[0]!;
    await record(id, bo.id);
    const url = `/dashboard/collections/${id}/people/${bo.id}/review`;
    const empty = await post(
      t,
      owner,
      url,
      { csrf: owner.csrf, decision: 'request_rerecord', note: '  ', return_to: 'table' },
      JSON_ACCEPT,
    );
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ error: { param: 'note' } });
    const note = 'Say the family name as at home, please';
    const asked = await post(
      t,
      owner,
      url,
      { csrf: owner.csrf, decision: 'request_rerecord', note, return_to: 'table' },
      JSON_ACCEPT,
    );
    expect(asked.statusCode).toBe(200);
    expect(asked.json()).toEqual({
      id: bo.id,
      recording_status: 'needs_rerecord',
      review_note: note,
      label: { text: 'Needs re-record', tone: 'off' },
    });
    expect((await user(id, bo.id)).review_note).toBe(note);
    expect(await auditOf(bo.id)).toContainEqual({
      action: 'recording.reviewed',
      actor: OWNER,
      detail: { decision: 'request_rerecord', note },
    });
    // Approved after all: the note is gone.
    const approved = await post(t, owner, url, { csrf: owner.csrf, decision: 'approve' }, JSON_ACCEPT);
    expect(approved.json()).toMatchObject({ recording_status: 'approved', review_note: null, label: { text: 'Approved' } });
  });

  it('lets viewers decide nothing, and finds no person of another organisation', async () => {
    const { id, people } = await collectionWith(['Ada Obi']);
    await record(id, people[0]!.id);
    const url = `/dashboard/collections/${id}/people/${people[0]!.id}`;
    expect((await post(t, viewer, `${url}/review`, { csrf: viewer.csrf, decision: 'approve' })).statusCode).toBe(403);
    expect((await post(t, viewer, `${url}/listened`, { csrf: viewer.csrf })).statusCode).toBe(403);
    expect((await post(t, stranger, `${url}/review`, { csrf: stranger.csrf, decision: 'approve' })).statusCode).toBe(404);
    expect((await post(t, stranger, `${url}/listened`, { csrf: stranger.csrf })).statusCode).toBe(404);
    expect(
      (await post(t, stranger, `/dashboard/collections/${id}/review/approve-played`, { csrf: stranger.csrf })).statusCode,
    ).toBe(404);
    expect((await get(t, stranger, `/dashboard/collections/${id}/review`)).statusCode).toBe(404);
    expect((await user(id, people[0]!.id)).recording_status).toBe('recorded');
  });
});

describe('the listened marker and approving the played recordings', () => {
  it('marks a played recording (the API shows listened_at); a new recording clears it; none without a recording', async () => {
    const { id, people } = await collectionWith(['Ada Obi', 'Bo Chen']);
    const [ada, bo] = people as [Person, Person];
    await record(id, ada.id);
    expect((await user(id, ada.id)).listened_at).toBeNull();
    const marked = await post(
      t,
      owner,
      `/dashboard/collections/${id}/people/${ada.id}/listened`,
      { csrf: owner.csrf },
      JSON_ACCEPT,
    );
    expect(marked.statusCode).toBe(200);
    const at = marked.json().listened_at as string;
    expect((await user(id, ada.id)).listened_at).toBe(at);
    await record(id, ada.id);
    expect((await user(id, ada.id)).listened_at).toBeNull();
    const nothing = await post(
      t,
      owner,
      `/dashboard/collections/${id}/people/${bo.id}/listened`,
      { csrf: owner.csrf },
      JSON_ACCEPT,
    );
    expect(nothing.statusCode).toBe(409);
    // A marker is not a change to audit: only the two uploads are there.
    expect((await auditOf(ada.id)).map((e) => e.action)).toEqual(['recording.uploaded', 'recording.uploaded']);
  });

  it('approves only the played recordings awaiting a decision, each in the audit log by name', async () => {
    const { id, people } = await collectionWith(['Ada Obi', 'Bo Chen', 'Chidi Eze', 'Dana Roy']);
    const [ada, bo, chidi, dana] = people as [Person, Person, Person, Person];
    for (const p of people) await record(id, p.id);
    for (const p of [ada, bo, dana]) {
      expect(
        (await post(t, owner, `/dashboard/collections/${id}/people/${p.id}/listened`, { csrf: owner.csrf })).statusCode,
      ).toBe(200);
    }
    // Dana was asked again already: not awaiting a decision, so not approved by "approve the played".
    await post(t, owner, `/dashboard/collections/${id}/people/${dana.id}/review`, {
      csrf: owner.csrf,
      decision: 'request_rerecord',
      note: 'Too quiet',
    });
    const table = await get(t, owner, `/dashboard/collections/${id}`);
    expect(table.body).toContain('Approve the 2 played recordings');
    expect(await recordedCount(id)).toBe(0);
    const res = await post(t, owner, `/dashboard/collections/${id}/review/approve-played`, {
      csrf: owner.csrf,
      query: '?order=name',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/collections/${id}?order=name&notice=played-approved`);
    expect((await user(id, ada.id)).recording_status).toBe('approved');
    expect((await user(id, bo.id)).recording_status).toBe('approved');
    expect((await user(id, chidi.id)).recording_status).toBe('recorded');
    expect((await user(id, dana.id)).recording_status).toBe('needs_rerecord');
    expect(await recordedCount(id)).toBe(2);
    for (const p of [ada, bo]) {
      expect(await auditOf(p.id)).toContainEqual({
        action: 'recording.reviewed',
        actor: OWNER,
        detail: { decision: 'approve', how: 'approved with the other played recordings' },
      });
    }
    expect((await get(t, owner, `/dashboard/collections/${id}`)).body).not.toContain('id="approve-played"');
    const audit = await get(t, owner, '/dashboard/audit');
    expect(audit.body).toContain('<bdi class="object-name">Ada Obi</bdi>');
    expect(audit.body).toContain('<bdi class="object-name">Dana Roy</bdi>');
    expect(audit.body).toContain('<span class="decision">Asked for a new recording</span>: <q class="note">Too quiet</q>');
    expect(audit.body).toContain('<span class="decision">Approved</span>');
  });

  it('writes the API review decision and its note to the audit log too', async () => {
    const { id, people } = await collectionWith(['Ada Obi']);
    await record(id, people[0]!.id);
    const res = await api('POST', `/v1/collections/${id}/users/${people[0]!.id}/review`, {
      decision: 'request_rerecord',
      note: 'Slower',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().listened_at).toBeNull();
    const entries = await auditOf(people[0]!.id);
    expect(entries.find((e) => e.action === 'recording.reviewed')).toMatchObject({
      action: 'recording.reviewed',
      detail: { decision: 'request_rerecord', note: 'Slower' },
    });
  });
});

describe('review mode', () => {
  it('lists the recordings awaiting a decision with the keys, and returns to itself without script', async () => {
    const { id, people } = await collectionWith(['Ada Obi', 'Bo Chen', 'Chidi Eze']);
    const [ada, bo] = people as [Person, Person];
    await record(id, ada.id);
    await record(id, bo.id);
    const page = await get(t, owner, `/dashboard/collections/${id}/review`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="review-keys"');
    expect(page.body).toContain('<kbd>Space</kbd>');
    expect([...page.body.matchAll(/<li class="review-item" id="review-([0-9a-f-]{36})"/g)].map((m) => m[1])).toEqual([
      ada.id,
      bo.id,
    ]);
    const res = await post(t, owner, `/dashboard/collections/${id}/people/${ada.id}/review`, {
      csrf: owner.csrf,
      decision: 'approve',
      return_to: 'review',
    });
    expect(res.headers.location).toBe(`/dashboard/collections/${id}/review?notice=recording-approved`);
    const after = await get(t, owner, res.headers.location as string);
    expect([...after.body.matchAll(/<li class="review-item" id="review-([0-9a-f-]{36})"/g)].map((m) => m[1])).toEqual([bo.id]);
    const asViewer = await get(t, viewer, `/dashboard/collections/${id}/review`);
    expect(asViewer.statusCode).toBe(200);
    expect(asViewer.body).not.toContain('name="decision"');
  });
});
