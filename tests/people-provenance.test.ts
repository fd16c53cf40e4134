/**
 * What a person corrects themselves is theirs: a re-import of the organiser's spreadsheet keeps
 * it (and says so, per row and field, before anything is written), unless the organiser chooses
 * to overwrite it for that import; an explicit organiser edit (PATCH) does replace it. Every
 * field records its last writer, readable in the API and announced by `user.updated`.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/lib/clock.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { get, post, signIn, uploadFile } from './helpers/dashboard.js';

const OWNER = 'registrar@example.com';
const clock = new ManualClock('2027-02-01T09:00:00.000Z');
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp({ clock });
  ({ key } = await t.newAccount(OWNER));
});
afterAll(() => t.close());

const ROSTER = ['email,first_name,last_name,preferred_name,phonetic_spelling', 'aoife@example.com,Aoife,Byrne,,'].join('\n');

/** A collection with one imported person who then corrected two fields on their record page. */
async function personWhoCorrectedThemselves() {
  const created = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Graduation' } });
  const collectionId = created.json<{ id: string }>().id;
  const imported = await importRoster(collectionId, ROSTER);
  expect(imported.statusCode, imported.body).toBe(200);
  const [person] = (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users`, key })).json<{
    data: { id: string; record_url: string }[];
  }>().data;
  if (!person) throw new Error('the import created nobody');
  clock.advance(60_000);
  const saved = await t.app.inject({
    method: 'POST',
    url: `${new URL(person.record_url).pathname}/details`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:3000' },
    payload: new URLSearchParams({
      display_name: 'Aoife Byrne',
      preferred_name: 'Eefa',
      pronouns: '',
      phonetic_spelling: 'EE-fa BURN',
    }).toString(),
  });
  expect(saved.statusCode, saved.body).toBe(303);
  clock.advance(60_000);
  return { collectionId, userId: person.id };
}

const importRoster = (collectionId: string, file: string, query = '') =>
  t.request({
    method: 'POST',
    url: `/v1/collections/${collectionId}/users/import${query}`,
    key,
    headers: { 'content-type': 'text/csv' },
    payload: file,
  });
const getUser = async (collectionId: string, userId: string) =>
  (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${userId}`, key })).json();
const eventsOf = async (type: string) =>
  (await t.deps.db.kysely.selectFrom('events').select('data').where('type', '=', type).execute()).map(
    (e) => JSON.parse(e.data) as Record<string, unknown>,
  );

describe('a person’s own corrections', () => {
  it('are recorded as theirs, visible in the API and announced by user.updated', async () => {
    const { collectionId, userId } = await personWhoCorrectedThemselves();
    const user = await getUser(collectionId, userId);
    expect(user).toMatchObject({ preferred_name: 'Eefa', phonetic_spelling: 'EE-fa BURN', updated_by: 'person' });
    expect(user.field_sources.preferred_name).toEqual({ source: 'person', at: expect.any(String) });
    expect(user.field_sources.phonetic_spelling.source).toBe('person');
    // Fields the person did not change keep the organiser as their writer.
    expect(user.field_sources.first_name.source).toBe('organiser');
    expect(user.field_sources.display_name.source).toBe('organiser');
    const events = (await eventsOf('user.updated')).filter((e) => e.user_id === userId);
    expect(events).toEqual([
      {
        collection_id: collectionId,
        user_id: userId,
        external_id: null,
        changed_fields: ['preferred_name', 'phonetic_spelling'],
        updated_by: 'person',
        updated_at: user.updated_at,
      },
    ]);
  });

  it('survive a re-import of the same spreadsheet, and the dry run shows what is kept', async () => {
    const { collectionId, userId } = await personWhoCorrectedThemselves();
    const preview = await importRoster(collectionId, ROSTER, '?dry_run=true');
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json()).toMatchObject({ updated: 0, unchanged: 1 });
    expect(preview.json().person_edits).toEqual([
      expect.objectContaining({
        row: 2,
        user_id: userId,
        field: 'preferred_name',
        person_value: 'Eefa',
        file_value: null,
        action: 'kept',
      }),
      expect.objectContaining({ field: 'phonetic_spelling', person_value: 'EE-fa BURN', file_value: null, action: 'kept' }),
    ]);
    expect(preview.json().preview[0]).toMatchObject({
      action: 'unchanged',
      changes: [],
      kept: ['preferred_name', 'phonetic_spelling'],
    });

    const imported = await importRoster(collectionId, ROSTER);
    expect(imported.json()).toMatchObject({ updated: 0, unchanged: 1 });
    expect(await getUser(collectionId, userId)).toMatchObject({ preferred_name: 'Eefa', phonetic_spelling: 'EE-fa BURN' });
  });

  it('are kept while the organiser’s other changes in the same row are applied, each shown before → after', async () => {
    const { collectionId, userId } = await personWhoCorrectedThemselves();
    const changed = [
      'email,first_name,last_name,preferred_name,phonetic_spelling',
      'aoife@example.com,Aoife,Byrne-Walsh,Eva,',
    ].join('\n');
    const preview = (await importRoster(collectionId, changed, '?dry_run=true')).json();
    expect(preview).toMatchObject({ updated: 1, unchanged: 0 });
    expect(preview.preview[0].changes).toEqual([
      { field: 'last_name', before: 'Byrne', after: 'Byrne-Walsh' },
      { field: 'display_name', before: 'Aoife Byrne', after: 'Aoife Byrne-Walsh' },
    ]);
    expect(preview.preview[0].kept).toEqual(['preferred_name', 'phonetic_spelling']);
    expect(preview.person_edits[0]).toMatchObject({ field: 'preferred_name', person_value: 'Eefa', file_value: 'Eva' });

    await importRoster(collectionId, changed);
    const user = await getUser(collectionId, userId);
    expect(user).toMatchObject({ last_name: 'Byrne-Walsh', preferred_name: 'Eefa', phonetic_spelling: 'EE-fa BURN' });
    expect(user.field_sources.last_name.source).toBe('organiser');
    expect(user.field_sources.preferred_name.source).toBe('person');
  });

  it('are replaced only when the organiser asks for it for that import', async () => {
    const { collectionId, userId } = await personWhoCorrectedThemselves();
    const report = (await importRoster(collectionId, ROSTER, '?overwrite_person_edits=true')).json();
    expect(report).toMatchObject({ updated: 1 });
    expect(report.person_edits.map((e: { action: string }) => e.action)).toEqual(['overwritten', 'overwritten']);
    const user = await getUser(collectionId, userId);
    expect(user).toMatchObject({ preferred_name: null, phonetic_spelling: null, updated_by: 'organiser' });
    expect(user.field_sources.preferred_name.source).toBe('organiser');
    // Now the organiser's again, a later import changes it like any other value.
    await importRoster(collectionId, ROSTER.replace('Byrne,,', 'Byrne,Eva,'));
    expect((await getUser(collectionId, userId)).preferred_name).toBe('Eva');
  });

  it('are replaced by an explicit PATCH, which makes the field the organiser’s', async () => {
    const { collectionId, userId } = await personWhoCorrectedThemselves();
    const patched = await t.request({
      method: 'PATCH',
      url: `/v1/collections/${collectionId}/users/${userId}`,
      key,
      json: { preferred_name: 'Eva' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ preferred_name: 'Eva', phonetic_spelling: 'EE-fa BURN', updated_by: 'organiser' });
    expect(patched.json().field_sources.preferred_name.source).toBe('organiser');
    expect(patched.json().field_sources.phonetic_spelling.source).toBe('person');
    const events = (await eventsOf('user.updated')).filter((e) => e.user_id === userId);
    expect(events.map((e) => [e.updated_by, e.changed_fields])).toEqual([
      ['person', ['preferred_name', 'phonetic_spelling']],
      ['organiser', ['preferred_name']],
    ]);
    // A PATCH that changes nothing records nothing.
    await t.request({
      method: 'PATCH',
      url: `/v1/collections/${collectionId}/users/${userId}`,
      key,
      json: { preferred_name: 'Eva' },
    });
    expect((await eventsOf('user.updated')).filter((e) => e.user_id === userId)).toHaveLength(2);
  });

  it('are shown in the dashboard’s import check, kept on confirm, and replaced when the box is ticked', async () => {
    const { collectionId, userId } = await personWhoCorrectedThemselves();
    const owner = await signIn(t, OWNER, '203.0.113.40');
    const personPage = await get(t, owner, `/dashboard/collections/${collectionId}/people/${userId}`);
    expect(personPage.body).toMatch(
      /<dd>Eefa <span class="badge" title="Set by Aoife Byrne on [0-9-]{10}; imports keep it">set by them<\/span><\/dd>/,
    );
    const importUrl = `/dashboard/collections/${collectionId}/import`;
    const check = await uploadFile(t, owner, importUrl, { name: 'roster.csv', data: Buffer.from(ROSTER) }, owner.csrf);
    expect(check.statusCode, check.body).toBe(200);
    expect(check.body).toContain('id="import-person-edits"');
    expect(check.body).toContain('2 values people set themselves are kept');
    expect(check.body).toContain('<td data-label="They wrote">“Eefa”</td>');
    expect(check.body).toContain('Preferred name: kept, set by the person');
    expect(check.body).toContain('name="overwrite_person_edits"');
    const token = /name="upload" value="([A-Za-z0-9_-]{43})"/.exec(check.body)?.[1] as string;
    const done = await post(t, owner, `${importUrl}/confirm`, { csrf: owner.csrf, upload: token, mode: 'all_or_nothing' });
    expect(done.statusCode, done.body).toBe(200);
    expect(await getUser(collectionId, userId)).toMatchObject({ preferred_name: 'Eefa' });

    const again = await uploadFile(t, owner, importUrl, { name: 'roster.csv', data: Buffer.from(ROSTER) }, owner.csrf);
    const second = /name="upload" value="([A-Za-z0-9_-]{43})"/.exec(again.body)?.[1] as string;
    await post(t, owner, `${importUrl}/confirm`, {
      csrf: owner.csrf,
      upload: second,
      mode: 'all_or_nothing',
      overwrite_person_edits: '1',
    });
    expect(await getUser(collectionId, userId)).toMatchObject({ preferred_name: null, phonetic_spelling: null });
  });

  it('include the phonetic spelling sent with a recording from the record page', async () => {
    const created = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Spelling' } });
    const collectionId = created.json().id as string;
    await importRoster(collectionId, ROSTER);
    const [person] = (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users`, key })).json().data;
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `${new URL(person.record_url).pathname}/recording?phonetic_spelling=${encodeURIComponent('EE-fa')}`,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    expect(uploaded.statusCode, uploaded.body).toBeLessThan(300);
    const user = await getUser(collectionId, person.id);
    expect(user.field_sources.phonetic_spelling.source).toBe('person');
    await importRoster(collectionId, ROSTER);
    expect((await getUser(collectionId, person.id)).phonetic_spelling).toBe('EE-fa');
  });
});
