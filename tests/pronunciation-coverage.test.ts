/**
 * Organisers see how each name will be said: the people table's "Name said by" column and its
 * filter, the counts under the progress bar, the export's pronunciation columns, invitations to
 * the people with no recording and no approved voice, the guide on the person's page (suggested,
 * never approved, by the organiser), and the reader playing the best source with its label.
 * One person of each coverage state: recorded, approved computer voice, guide only, nothing.
 * The real speech engine: the unapproved guide is spoken on demand.
 */
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { approveGuide, countCoverageStates } from '../src/features/pronunciation/service.js';
import { speechWav } from './helpers/audio.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, post, signIn } from './helpers/dashboard.js';
import { runJobsLater } from './helpers/jobs.js';
import { seedPeople } from './helpers/seed-people.js';

let t: TestApp;
let key: string;
let organiser: Browserish & { csrf: string };
let collectionId: string;
const ORGANISER = 'coverage-organiser@example.com';
/** Person ids by their coverage state. */
const ids = { recording: '', computer_voice: '', guide: '', none: '' };

const base = () => `/dashboard/collections/${collectionId}`;
const personPath = (id: string) => `${base()}/people/${id}`;

beforeAll(async () => {
  t = await createTestApp({ env: { MAIL_RATE_PER_MINUTE: '0' } });
  organiser = await signIn(t, ORGANISER, '203.0.113.61');
  ({ key } = await t.newAccount(ORGANISER));
  collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class of 2027' } })).json().id;
  const names = {
    recording: ['Ada', 'Lovelace'],
    computer_voice: ['Siobhan', 'Walsh'],
    guide: ['Niamh', 'Byrne'],
    none: ['Tomas', 'Ruiz'],
  };
  for (const [state, [first, last]] of Object.entries(names) as [keyof typeof ids, string[]][]) {
    const res = await t.request({
      method: 'POST',
      url: `/v1/collections/${collectionId}/users`,
      key,
      json: { email: `${state}@example.com`, first_name: first, last_name: last },
    });
    expect(res.statusCode, res.body).toBe(201);
    ids[state] = res.json().id;
  }
  await runJobsLater(t.deps, 0);
  const recorded = await t.request({
    method: 'PUT',
    url: `/v1/collections/${collectionId}/users/${ids.recording}/recording`,
    key,
    headers: { 'content-type': 'audio/wav' },
    payload: fs.readFileSync(speechWav()),
  });
  expect(recorded.statusCode, recorded.body).toBe(200);
  // The person approves their computer voice (on their record page: here through the service).
  const user = (
    await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${ids.computer_voice}`, key })
  ).json();
  const { account_id } = await t.deps.db.kysely
    .selectFrom('collections')
    .select('account_id')
    .where('id', '=', collectionId)
    .executeTakeFirstOrThrow();
  await approveGuide(t.deps, { ...user, account_id, recording_status: 'none' });
  // Nothing yet: a person whose guide is still to be made.
  await t.deps.db.kysely.deleteFrom('pronunciations').where('user_id', '=', ids.none).execute();
}, 120_000);
afterAll(() => t.close());

const coverageOfRow = (page: string, id: string) =>
  new RegExp(`<tr data-person-id="${id}">[\\s\\S]*?data-coverage="([a-z_]+)"`).exec(page)?.[1];
const rowIds = (page: string) => [...page.matchAll(/<tr data-person-id="([0-9a-f-]{36})">/g)].map((m) => m[1]);

describe('people table and progress', () => {
  it('shows each person’s coverage in words, and counts each state under the progress bar', async () => {
    const page = await get(t, organiser, base());
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<th scope="col">Name said by</th>');
    for (const [state, id] of Object.entries(ids)) expect(coverageOfRow(page.body, id)).toBe(state);
    expect(page.body).toContain('data-coverage="recording">Their voice</span>');
    expect(page.body).toContain('data-coverage="computer_voice">Computer voice (approved)</span>');
    expect(page.body).toContain('data-coverage="guide">Guide only</span>');
    expect(page.body).toContain('data-coverage="none">Nothing yet</span>');
    const counts = /<ul class="plain row coverage-counts" id="coverage-counts"[^>]*>([\s\S]*?)<\/ul>/.exec(page.body)?.[1] ?? '';
    for (const state of Object.keys(ids))
      expect(counts).toMatch(new RegExp(`data-coverage="${state}">[^<]*: <strong>1</strong>`));
  });

  it('counts every state across windows of 5,000 people (the database counts them)', { timeout: 60_000 }, async () => {
    const big = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Big class' } })).json().id;
    const people = await seedPeople(t.deps, big, 5_003);
    const db = t.deps.db.kysely;
    // The oldest three (the second window, newest first) and the newest two: one of each state around the edge.
    const [oldest, second, third] = people;
    const [newest, nextNewest] = people.slice(-2);
    await db
      .updateTable('users')
      .set({ recording_status: 'approved' })
      .where('id', 'in', [oldest, newest] as string[])
      .execute();
    const at = new Date().toISOString();
    const guide = (userId: string, approvedAt: string | null) => ({
      user_id: userId,
      ipa: 'ˈpɜːsən',
      respelling: 'PUR-sun',
      not_like: null,
      language: 'en',
      language_suggested: 0,
      source: 'generated' as const,
      method: 'rules',
      generated_from: '[]',
      approved_at: approvedAt,
      audio_token: null,
      audio_key: null,
      audio_duration_ms: null,
      created_at: at,
      updated_at: at,
    });
    await db
      .insertInto('pronunciations')
      .values([
        guide(second as string, at),
        guide(third as string, null),
        guide(nextNewest as string, null),
        guide(newest as string, at),
      ])
      .execute();
    expect(await countCoverageStates(t.deps, big)).toEqual({ recording: 2, computer_voice: 1, guide: 2, none: 4_998 });
  });

  it('filters by coverage, alone and with a status; refuses an unknown coverage', async () => {
    for (const [state, id] of Object.entries(ids)) {
      const page = await get(t, organiser, `${base()}?coverage=${state}`);
      expect(rowIds(page.body), state).toEqual([id]);
      expect(page.body).toContain(`<option value="${state}" selected>`);
    }
    expect(rowIds((await get(t, organiser, `${base()}?coverage=guide&status=not_recorded`)).body)).toEqual([ids.guide]);
    const none = await get(t, organiser, `${base()}?coverage=guide&status=recorded`);
    expect(rowIds(none.body)).toEqual([]);
    expect(none.body).toContain('Nobody here matches.');
    expect(rowIds((await get(t, organiser, `${base()}?coverage=recording&search=lovelace`)).body)).toEqual([ids.recording]);
    expect((await get(t, organiser, `${base()}?coverage=robot`)).statusCode).toBe(400);
  });
});

describe('export', () => {
  it('appends the name language and the guide to the CSV, after every existing column', async () => {
    await t.request({
      method: 'PATCH',
      url: `/v1/collections/${collectionId}/users/${ids.guide}`,
      key,
      json: { name_language: 'ga' },
    });
    const res = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/export?format=csv`, key });
    expect(res.statusCode).toBe(200);
    const table: string[][] = parse(res.body.slice(1));
    const [header, ...rows] = table;
    // After the custom fields; the organisers' columns come after these (tests/export-options.test.ts).
    expect(header?.slice(-11, -5)).toEqual([
      'name_language',
      'pronunciation_coverage',
      'respelling',
      'ipa',
      'not_like',
      'pronunciation_approved_at',
    ]);
    expect(header?.[0]).toBe('display_name');
    const byEmail = new Map(rows.map((row) => [row[3], Object.fromEntries(header!.map((h, i) => [h, row[i]]))]));
    for (const state of Object.keys(ids)) expect(byEmail.get(`${state}@example.com`)?.pronunciation_coverage).toBe(state);
    const approved = byEmail.get('computer_voice@example.com');
    expect(approved?.respelling).not.toBe('');
    expect(approved?.ipa).not.toBe('');
    expect(approved?.pronunciation_approved_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(byEmail.get('guide@example.com')).toMatchObject({ name_language: 'ga', pronunciation_approved_at: '' });
    expect(byEmail.get('none@example.com')).toMatchObject({ respelling: '', ipa: '' });
  });
});

describe('invitations by coverage', () => {
  const queuedTo = async () =>
    (
      await t.deps.db.kysely
        .selectFrom('mail_messages')
        .select('user_id')
        .where('collection_id', '=', collectionId)
        .orderBy('created_at')
        .execute()
    ).map((row) => row.user_id);

  it('the dashboard form e-mails only people with nothing yet, then only those with a guide, then both', async () => {
    const send = (who: string) =>
      post(t, organiser, `${base()}/invitations`, { csrf: organiser.csrf, who, resend: 'true' }).then((res) => {
        expect(res.statusCode).toBe(303);
      });
    await send('none');
    expect(await queuedTo()).toEqual([ids.none]);
    await send('guide');
    expect(await queuedTo()).toEqual([ids.none, ids.guide]);
    await send('no_voice');
    expect((await queuedTo()).slice(2).sort()).toEqual([ids.guide, ids.none].sort());
    expect((await post(t, organiser, `${base()}/invitations`, { csrf: organiser.csrf, who: 'everyone' })).statusCode).toBe(400);
  });

  it('the API takes "coverage" instead of "user_ids" or "filter", and refuses two selections', async () => {
    const url = `/v1/collections/${collectionId}/invitations`;
    const res = await t.request({ method: 'POST', url, key, json: { coverage: ['guide', 'none'], resend: true } });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ queued: 2 });
    expect((await queuedTo()).slice(-2).sort()).toEqual([ids.guide, ids.none].sort());
    const both = await t.request({ method: 'POST', url, key, json: { coverage: ['none'], filter: 'not_recorded' } });
    expect(both.statusCode).toBe(400);
    expect(both.json().error.param).toBe('coverage');
    expect((await t.request({ method: 'POST', url, key, json: { coverage: ['recording'] } })).statusCode).toBe(400);
  });
});

describe('the ceremony reader', () => {
  const entryOf = (page: string, id: string) =>
    new RegExp(`<li class="person"[^>]*data-person-id="${id}"[^>]*>[\\s\\S]*?</li>`).exec(page)?.[0] ?? '';

  it('plays the best source with its label, and shows respelling, IPA and "not like"', async () => {
    await t.request({
      method: 'PATCH',
      url: `/v1/collections/${collectionId}/users/${ids.guide}`,
      key,
      json: { pronunciation: { respelling: 'NEEV', not_like: 'nye-am' } },
    });
    const page = (await get(t, organiser, `${base()}/reader`)).body;
    const recording = entryOf(page, ids.recording);
    expect(recording).toContain(`data-audio="${personPath(ids.recording)}/audio" data-source="recording"`);
    expect(recording).toContain('>their voice</span>');

    const approved = entryOf(page, ids.computer_voice);
    const approvedUrl = /data-audio="(\/pronunciations\/[A-Za-z0-9_-]+\.mp3)" data-source="approved_voice"/.exec(approved)?.[1];
    if (!approvedUrl) throw new Error('no approved voice in the reader');
    expect(approved).toContain('>computer voice, approved by them</span>');
    const approvedAudio = await t.request({ method: 'GET', url: approvedUrl });
    expect(approvedAudio.statusCode).toBe(200);
    expect(approvedAudio.headers['content-type']).toBe('audio/mpeg');

    const guess = entryOf(page, ids.guide);
    // A guess is spoken when played, never loaded ahead with the recordings.
    expect(guess).toContain(`data-speak="${personPath(ids.guide)}/guide.mp3" data-source="unchecked_guess"`);
    expect(guess).not.toContain('data-audio');
    expect(guess).toContain('>computer guess, not checked</span>');
    expect(guess).toContain('<span class="respelling">NEEV</span>');
    expect(guess).toMatch(/<span class="ipa" lang="und-fonipa">\/[^<]+\/<\/span>/);
    expect(guess).toContain('Not like “nye-am”');
    const spoken = await get(t, organiser, `${personPath(ids.guide)}/guide.mp3`);
    expect(spoken.statusCode, spoken.body).toBe(200);
    expect(spoken.headers['content-type']).toBe('audio/mpeg');
    expect(spoken.headers['cache-control']).toBe('private, no-store');
    expect(spoken.rawPayload.length).toBeGreaterThan(500);
    // Made once per guide: the reader fetching it again (offline copy, another device) costs no synthesis.
    const synthesize = vi.spyOn(t.deps.speech, 'synthesize');
    const again = await get(t, organiser, `${personPath(ids.guide)}/guide.mp3`);
    expect(again.rawPayload.equals(spoken.rawPayload)).toBe(true);
    expect(synthesize).not.toHaveBeenCalled();
    synthesize.mockRestore();

    const nothing = entryOf(page, ids.none);
    expect(nothing).not.toMatch(/data-(audio|speak)=/);
    expect(nothing).toContain('Nothing to play yet');
  });

  it("another account's person is a 404: their guide is neither spoken nor changed", async () => {
    const stranger = await signIn(t, 'coverage-stranger@example.com', '203.0.113.62');
    expect((await get(t, stranger, `${personPath(ids.guide)}/guide.mp3`)).statusCode).toBe(404);
    expect((await get(t, stranger, personPath(ids.guide))).statusCode).toBe(404);
    const changed = await post(t, stranger, `${personPath(ids.guide)}/pronunciation`, {
      csrf: stranger.csrf,
      respelling: 'NAH',
    });
    expect(changed.statusCode).toBe(404);
    expect((await get(t, organiser, `${personPath(ids.none)}/guide.mp3`)).statusCode).toBe(404);
  });
});

describe("the person's page", () => {
  it('shows the guide, who wrote it and whether they approved it; organisers suggest but never approve', async () => {
    const page = (await get(t, organiser, personPath(ids.computer_voice))).body;
    expect(page).toContain('id="guide-source">Written by them</dd>');
    expect(page).toMatch(/id="guide-approval"><span class="badge ok">Approved by them<\/span>/);
    expect(page).toMatch(/<audio id="guide-audio" controls preload="none" src="\/pronunciations\/[A-Za-z0-9_-]+\.mp3"/);
    expect(page).toContain('computer voice, approved by them');
    expect(page).toContain('id="guide-overwrite"');
    expect(page).not.toMatch(/<button[^>]*>[^<]*Approve (guide|pronunciation)/i);

    const guess = (await get(t, organiser, personPath(ids.guide))).body;
    expect(guess).toContain('Not approved by them');
    expect(guess).toContain(`src="${personPath(ids.guide)}/guide.mp3"`);
    expect(guess).toContain('computer guess, not checked');
  });

  it("a suggestion over the person's guide is refused until “Replace their guide” is ticked, which withdraws the approval", async () => {
    const url = `${personPath(ids.computer_voice)}/pronunciation`;
    const refused = await post(t, organiser, url, { csrf: organiser.csrf, respelling: 'shiv-AWN', not_like: 'SY-oh-ban' });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('Tick “Replace their guide” to replace it');
    expect(refused.body).toContain('value="SY-oh-ban"');
    const replaced = await post(t, organiser, url, {
      csrf: organiser.csrf,
      respelling: 'shiv-AWN',
      not_like: 'SY-oh-ban',
      overwrite_person_edits: 'true',
    });
    expect(replaced.statusCode).toBe(303);
    expect(replaced.headers.location).toBe(`${personPath(ids.computer_voice)}?notice=guide-suggested`);
    const user = (
      await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${ids.computer_voice}`, key })
    ).json();
    expect(user.pronunciation).toMatchObject({
      coverage: 'guide',
      respelling: 'shiv-AWN',
      not_like: 'SY-oh-ban',
      source: 'organiser',
      approved_at: null,
    });
    const page = (await get(t, organiser, personPath(ids.computer_voice))).body;
    expect(page).toContain('id="guide-source">Suggested by your organisation</dd>');
    expect(page).not.toContain('id="guide-overwrite"');
  });

  it('edits the name languages; a bad code shows the refusal on the form', async () => {
    const url = `${personPath(ids.none)}/name-languages`;
    const saved = await post(t, organiser, url, {
      csrf: organiser.csrf,
      name_language: 'es',
      given_name_language: '',
      family_name_language: 'eu',
    });
    expect(saved.statusCode).toBe(303);
    const user = (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${ids.none}`, key })).json();
    expect(user).toMatchObject({ name_language: 'es', given_name_language: null, family_name_language: 'eu' });
    expect((await get(t, organiser, personPath(ids.none))).body).toContain(
      'id="family-name-language" name="family_name_language" value="eu"',
    );
    const bad = await post(t, organiser, url, { csrf: organiser.csrf, name_language: 'not a language' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/id="name-language" name="name_language" value="not a language"[^>]*aria-invalid="true"/);
  });
});
