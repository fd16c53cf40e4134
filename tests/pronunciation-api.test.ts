/**
 * Pronunciation guides through the API: every person gets one made in the background from their
 * name and its language (a suggestion from the script when nobody set one, never from a Latin
 * spelling); an organiser may suggest another (respelling or IPA, each derived from the other),
 * but replaces what the person wrote or approved only when they say so; only the person
 * approves, which publishes the computer voice; each change is a `pronunciation.updated` event.
 * The real speech engine: the guides' sounds are the subject.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveGuide } from '../src/features/pronunciation/service.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { runJobsLater } from './helpers/jobs.js';

let t: TestApp;
let key: string;
let collectionId: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount('guides@example.com'));
  collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class of 2027' } })).json().id;
}, 60_000);
afterAll(() => t.close());

const usersUrl = () => `/v1/collections/${collectionId}/users`;
async function createPerson(body: Record<string, unknown>) {
  const res = await t.request({ method: 'POST', url: usersUrl(), key, json: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; pronunciation: Record<string, unknown> }>();
}
const getPerson = async (id: string) => (await t.request({ method: 'GET', url: `${usersUrl()}/${id}`, key })).json();
const patch = (id: string, json: unknown) => t.request({ method: 'PATCH', url: `${usersUrl()}/${id}`, key, json });
const personOf = async (id: string) => {
  const user = await getPerson(id);
  return {
    ...user,
    account_id: (
      await t.deps.db.kysely
        .selectFrom('collections')
        .select('account_id')
        .where('id', '=', collectionId)
        .executeTakeFirstOrThrow()
    ).account_id,
    recording_status: 'none' as const,
  };
};
const guideEvents = async (userId: string) =>
  (
    await t.deps.db.kysely
      .selectFrom('events')
      .select(['type', 'data'])
      .where('type', '=', 'pronunciation.updated')
      .orderBy('created_at')
      .execute()
  )
    .map((row) => JSON.parse(row.data))
    .filter((data) => data.user_id === userId);

describe('generated guides', () => {
  it('makes a guide in the background: none at first, then IPA and respelling from the dictionary', async () => {
    const created = await createPerson({ email: 'siobhan@example.com', first_name: 'Siobhan', last_name: 'Walsh' });
    expect(created.pronunciation).toMatchObject({ coverage: 'none', ipa: null, respelling: null, source: null });
    await runJobsLater(t.deps, 0);
    const user = await getPerson(created.id);
    expect(user.pronunciation).toMatchObject({
      coverage: 'guide',
      source: 'generated',
      language: 'en',
      language_suggested: false,
      approved_at: null,
      audio_url: null,
    });
    expect(user.pronunciation.ipa).toMatch(/^ʃ/);
    expect(user.pronunciation.respelling).toMatch(/^sh/i);
    const [event] = await guideEvents(created.id);
    expect(event).toMatchObject({
      collection_id: collectionId,
      user_id: created.id,
      pronunciation: { ipa: user.pronunciation.ipa },
    });
  });

  it('uses the language given for the name, and suggests one from a non-Latin script only', async () => {
    const joaquin = await createPerson({
      email: 'jo@example.com',
      first_name: 'Joaquín',
      last_name: 'Reyes',
      name_language: 'ES',
    });
    const minjun = await createPerson({ email: 'mj@example.com', first_name: '민준', last_name: '김' });
    await runJobsLater(t.deps, 0);
    const spanish = await getPerson(joaquin.id);
    expect(spanish.name_language).toBe('es');
    expect(spanish.pronunciation).toMatchObject({ language: 'es', language_suggested: false });
    expect(spanish.pronunciation.ipa).toMatch(/x.*k.*ˈ?i/);
    const korean = await getPerson(minjun.id);
    expect(korean.name_language).toBeNull();
    expect(korean.pronunciation).toMatchObject({ language: 'ko', language_suggested: true, coverage: 'guide' });
  });

  it('refuses a language that is not a BCP 47 tag', async () => {
    const res = await t.request({
      method: 'POST',
      url: usersUrl(),
      key,
      json: { email: 'x@example.com', first_name: 'X', name_language: 'english!' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: expect.any(String), param: expect.stringContaining('name_language') });
  });

  it('makes a generated guide again when the name changes, but never replaces a written one', async () => {
    const created = await createPerson({ email: 'aoife@example.com', first_name: 'Aoife', last_name: 'Byrne' });
    await runJobsLater(t.deps, 0);
    const first = (await getPerson(created.id)).pronunciation;
    expect((await patch(created.id, { first_name: 'Niamh' })).statusCode).toBe(200);
    await runJobsLater(t.deps, 0);
    const renamed = (await getPerson(created.id)).pronunciation;
    expect(renamed.source).toBe('generated');
    expect(renamed.ipa).not.toBe(first.ipa);
    expect((await patch(created.id, { pronunciation: { respelling: 'NEEV BURN' } })).statusCode).toBe(200);
    expect((await patch(created.id, { first_name: 'Aoife' })).statusCode).toBe(200);
    await runJobsLater(t.deps, 0);
    expect((await getPerson(created.id)).pronunciation).toMatchObject({ source: 'organiser', respelling: 'NEEV BURN' });
  });
});

describe('written and approved guides', () => {
  it("derives IPA from an organiser's respelling and the respelling from IPA; refuses letters outside the key", async () => {
    const created = await createPerson({ email: 'saoirse@example.com', first_name: 'Saoirse', last_name: 'Kelly' });
    const byRespelling = await patch(created.id, { pronunciation: { respelling: 'SEER-shə', not_like: 'say-OR-see' } });
    expect(byRespelling.statusCode, byRespelling.body).toBe(200);
    expect(byRespelling.json().pronunciation).toMatchObject({
      source: 'organiser',
      respelling: 'SEER-shə',
      not_like: 'say-OR-see',
      coverage: 'guide',
    });
    expect(byRespelling.json().pronunciation.ipa).toMatch(/ˈ?s.*ʃ/);
    const byIpa = await patch(created.id, { pronunciation: { ipa: 'ˈsɪəʃə' } });
    expect(byIpa.json().pronunciation.respelling).toMatch(/sh/i);
    const bad = await patch(created.id, { pronunciation: { respelling: 'SEER-shə 42 ☃' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('pronunciation_invalid');
  });

  it('only the person approves; an organiser then replaces their guide only with overwrite_person_edits', async () => {
    const created = await createPerson({ email: 'eabha@example.com', first_name: 'Éabha', last_name: 'Ní Bhriain' });
    await runJobsLater(t.deps, 0);
    // The API has no way to approve: the field is refused.
    const attempt = await patch(created.id, { pronunciation: { approved_at: new Date().toISOString() } });
    expect(attempt.statusCode).toBe(400);
    await approveGuide(t.deps, await personOf(created.id));
    const approved = (await getPerson(created.id)).pronunciation;
    expect(approved).toMatchObject({ coverage: 'computer_voice', source: 'person' });
    expect(approved.approved_at).toEqual(expect.any(String));
    const audio = await t.request({ method: 'GET', url: new URL(approved.audio_url).pathname });
    expect(audio.statusCode).toBe(200);
    expect(audio.headers['content-type']).toBe('audio/mpeg');
    expect(audio.rawPayload.length).toBeGreaterThan(1000);

    const refused = await patch(created.id, { pronunciation: { respelling: 'AY-və' } });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('person_edited');
    expect((await getPerson(created.id)).pronunciation).toMatchObject({
      coverage: 'computer_voice',
      respelling: approved.respelling,
    });

    const replaced = await patch(created.id, { pronunciation: { respelling: 'AY-və', overwrite_person_edits: true } });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().pronunciation).toMatchObject({
      source: 'organiser',
      approved_at: null,
      audio_url: null,
      coverage: 'guide',
    });
    // The approved voice's public URL stops answering once the approval is gone.
    expect((await t.request({ method: 'GET', url: new URL(approved.audio_url).pathname })).statusCode).toBe(404);
    const events = await guideEvents(created.id);
    expect(events.map((e) => e.pronunciation.coverage)).toEqual(['guide', 'computer_voice', 'guide']);
  });

  it('makes a generated guide the organiser\'s when only its "not like this" changes: a new name then keeps it', async () => {
    const created = await createPerson({ email: 'caoimhe@example.com', first_name: 'Caoimhe', last_name: 'Doyle' });
    await runJobsLater(t.deps, 0);
    const noted = await patch(created.id, { pronunciation: { not_like: 'KAY-oh-im' } });
    expect(noted.json().pronunciation).toMatchObject({ source: 'organiser', not_like: 'KAY-oh-im' });
    expect((await patch(created.id, { first_name: 'Keeva' })).statusCode).toBe(200);
    await runJobsLater(t.deps, 0);
    expect((await getPerson(created.id)).pronunciation).toMatchObject({ source: 'organiser', not_like: 'KAY-oh-im' });
  });

  it("speaks a guide in the English voice when the name's own voice lacks one of its sounds", async () => {
    // eSpeak's Irish voice has /iː/ but no short /i/, which the key gives "EE" outside English.
    const created = await createPerson({
      email: 'niamh@example.com',
      first_name: 'Niamh',
      last_name: 'Byrne',
      name_language: 'ga',
    });
    const written = await patch(created.id, { pronunciation: { respelling: 'NEEV' } });
    expect(written.json().pronunciation).toMatchObject({ language: 'ga', respelling: 'NEEV' });
    const approved = await approveGuide(t.deps, await personOf(created.id));
    expect(approved.audio_duration_ms).toBeGreaterThan(100);
  });

  it('a recording is the best source, whatever the guide', async () => {
    const created = await createPerson({ email: 'rec@example.com', first_name: 'Ronan', last_name: 'Ó Súilleabháin' });
    await t.deps.db.kysely.updateTable('users').set({ recording_status: 'recorded' }).where('id', '=', created.id).execute();
    expect((await getPerson(created.id)).pronunciation.coverage).toBe('recording');
  });
});
