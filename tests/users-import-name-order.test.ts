/**
 * Family-name-first names at import (`name_order`): the default display name is composed family
 * name first when the file (or a row) says so, joined without a space in Han, Kana or Hangul; a
 * display name in the file wins; the report counts names that look family-name-first but would
 * be shown given name first; a re-import keeps a person's order and what they wrote themselves;
 * the pronunciation guide says the names in the display name's order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { runJobsLater } from './helpers/jobs.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
});
afterAll(() => t.close());

async function newCollection(): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Names' } });
  return res.json().id;
}
const importFile = (collectionId: string, body: string, query = '') =>
  t.request({
    method: 'POST',
    url: `/v1/collections/${collectionId}/users/import${query}`,
    key,
    headers: { 'content-type': 'text/csv' },
    payload: body,
  });
async function displayNames(collectionId: string): Promise<Record<string, string>> {
  const res = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users?limit=100`, key });
  const people = res.json().data as { email: string; display_name: string }[];
  return Object.fromEntries(people.map((p) => [p.email, p.display_name]));
}

const MIXED = [
  'email,first_name,last_name,display_name,family_name_language',
  'wei@example.com,伟,张,,',
  'minjun@example.com,민준,김,,',
  'zhang@example.com,Wei,Zhang,,zh',
  'mixed@example.com,Wei,张,,',
  'named@example.com,太郎,山田,Taro Yamada,',
  'ada@example.com,Ada,Lovelace,,',
].join('\n');

describe('name_order on import', () => {
  it('counts family-name-first names composed given first in the dry run, and none in a Latin file', async () => {
    const id = await newCollection();
    const dry = await importFile(id, MIXED, '?dry_run=true');
    expect(dry.statusCode, dry.body).toBe(200);
    // 伟 张, 민준 김, Wei Zhang (zh) and Wei 张; not Taro (the file names him) nor Ada.
    expect(dry.json()).toMatchObject({ name_order: 'given_first', family_name_first_rows: 4 });
    expect(dry.json().preview[0]).toMatchObject({ display_name: '伟 张' });

    const latin = await importFile(id, 'email,first_name,last_name\nada@example.com,Ada,Lovelace\n', '?dry_run=true');
    expect(latin.json()).toMatchObject({ family_name_first_rows: 0 });
  });

  it('family_first composes last name first, without a space in Han and Hangul; a display_name in the file wins', async () => {
    const id = await newCollection();
    const res = await importFile(id, MIXED, '?name_order=family_first');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ created: 6, name_order: 'family_first', family_name_first_rows: 0 });
    expect(await displayNames(id)).toEqual({
      'wei@example.com': '张伟',
      'minjun@example.com': '김민준',
      'zhang@example.com': 'Zhang Wei',
      'mixed@example.com': '张 Wei',
      'named@example.com': 'Taro Yamada',
      'ada@example.com': 'Lovelace Ada',
    });
  });

  it('a name_order column sets the order per row, and a bad value is a row error', async () => {
    const id = await newCollection();
    const file = [
      'email,first_name,last_name,Name order',
      'wei@example.com,伟,张,family_first',
      'ada@example.com,Ada,Lovelace,',
    ].join('\n');
    const res = await importFile(id, file);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().family_name_first_rows).toBe(0);
    expect(await displayNames(id)).toEqual({ 'wei@example.com': '张伟', 'ada@example.com': 'Ada Lovelace' });

    const bad = await importFile(id, 'email,first_name,last_name,name_order\nx@example.com,X,Y,surname_first\n');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'import_invalid' });
    expect(bad.json().error.errors).toEqual([expect.objectContaining({ row: 2, column: 'name_order' })]);
  });

  it('a re-import without the option keeps a family-first person family first; a changed name follows the order', async () => {
    const id = await newCollection();
    await importFile(id, 'email,first_name,last_name\nwei@example.com,伟,张\n', '?name_order=family_first');
    const again = await importFile(id, 'email,first_name,last_name\nwei@example.com,伟,张\n');
    expect(again.json()).toMatchObject({ unchanged: 1, family_name_first_rows: 0 });
    const renamed = await importFile(id, 'email,first_name,last_name\nwei@example.com,伟,王\n');
    expect(renamed.json()).toMatchObject({ updated: 1 });
    expect(await displayNames(id)).toEqual({ 'wei@example.com': '王伟' });
    // A row may still turn the order back.
    await importFile(id, 'email,first_name,last_name,name_order\nwei@example.com,伟,王,given_first\n');
    expect(await displayNames(id)).toEqual({ 'wei@example.com': '伟 王' });
  });

  it('a re-import with family_first keeps the display name the person wrote themselves', async () => {
    const id = await newCollection();
    await importFile(id, 'email,first_name,last_name\nwei@example.com,Wei,Zhang\n');
    const [person] = (await t.request({ method: 'GET', url: `/v1/collections/${id}/users`, key })).json().data;
    const saved = await t.app.inject({
      method: 'POST',
      url: `${new URL(person.record_url).pathname}/details`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:3000' },
      payload: new URLSearchParams({ display_name: 'Wei Zhang (Vivian)', preferred_name: '', pronouns: '' }).toString(),
    });
    expect(saved.statusCode, saved.body).toBe(303);
    const res = await importFile(id, 'email,first_name,last_name\nwei@example.com,Wei,Zhang\n', '?name_order=family_first');
    expect(res.json()).toMatchObject({ unchanged: 1 });
    expect(await displayNames(id)).toEqual({ 'wei@example.com': 'Wei Zhang (Vivian)' });
  });

  it('a PATCH of a family-first person’s name keeps the display name family first', async () => {
    const id = await newCollection();
    await importFile(id, 'email,first_name,last_name\nwei@example.com,伟,张\n', '?name_order=family_first');
    const [person] = (await t.request({ method: 'GET', url: `/v1/collections/${id}/users`, key })).json().data;
    const res = await t.request({
      method: 'PATCH',
      url: `/v1/collections/${id}/users/${person.id}`,
      key,
      json: { last_name: '王' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().display_name).toBe('王伟');
  });

  it('creating a user through the API takes name_order too', async () => {
    const id = await newCollection();
    const res = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users`,
      key,
      json: { email: 'wei@example.com', first_name: '伟', last_name: '张', name_order: 'family_first' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().display_name).toBe('张伟');
  });

  it('the pronunciation guide says the names in the display name’s order', async () => {
    const id = await newCollection();
    await importFile(id, 'email,first_name,last_name\nnagy@example.com,Ferenc,Nagy\n', '?name_order=family_first');
    await importFile(id, 'email,first_name,last_name\nada@example.com,Ada,Lovelace\n');
    await runJobsLater(t.deps, 0);
    const res = await t.request({ method: 'GET', url: `/v1/collections/${id}/users`, key });
    const guides = Object.fromEntries(
      (res.json().data as { email: string; pronunciation: { ipa: string } }[]).map((p) => [p.email, p.pronunciation.ipa]),
    );
    const [nagyFirst] = guides['nagy@example.com']!.split(' ');
    const [adaFirst] = guides['ada@example.com']!.split(' ');
    expect(nagyFirst).toMatch(/n/u);
    expect(nagyFirst).not.toMatch(/f/u);
    expect(adaFirst).not.toMatch(/l/u);
  });
});
