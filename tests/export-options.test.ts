/**
 * Exports people can use: the columns organisers read at a glance (preferred name, pronouns,
 * language, invitation and review status) appended after every earlier column, and the CSV's
 * separator and byte-order mark, chosen by the API's query and by the dashboard's download form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, inviteAndJoin, signIn } from './helpers/dashboard.js';

let t: TestApp;
let key: string;
let organiser: Browserish & { csrf: string };
let collectionId: string;
const ORGANISER = 'export-options@example.com';
const BOM = '\uFEFF';

beforeAll(async () => {
  t = await createTestApp({ env: { MAIL_RATE_PER_MINUTE: '0' } });
  organiser = await signIn(t, ORGANISER, '203.0.113.71');
  ({ key } = await t.newAccount(ORGANISER));
  const res = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Exports' } });
  collectionId = res.json<{ id: string }>().id;
  const users = [
    { email: 'ines@example.com', first_name: 'Inés', preferred_name: 'Nessa', pronouns: 'she/her', language: 'es' },
    { email: 'jo@example.com', first_name: 'Jo' },
  ];
  const batch = await t.request({ method: 'POST', url: `/v1/collections/${collectionId}/users/batch`, key, json: { users } });
  expect(batch.statusCode, batch.body).toBe(201);
  const [ines] = batch.json<{ data: { id: string }[] }>().data;
  await t.request({ method: 'POST', url: `/v1/collections/${collectionId}/invitations`, key, json: { user_ids: [ines!.id] } });
  // Recorded, awaiting review (how is not the subject here).
  await t.deps.db.kysely.updateTable('users').set({ recording_status: 'recorded' }).where('id', '=', ines!.id).execute();
});
afterAll(() => t.close());

const exportCsv = (query: string) =>
  t.request({ method: 'GET', url: `/v1/collections/${collectionId}/export?format=csv${query}`, key });

/** Cells of each line (every cell is quoted, none here holds the separator or a line break). */
const rowsOf = (body: string, separator: string) =>
  body
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .filter((line) => line !== '')
    .map((line) => line.slice(1, -1).split(`"${separator}"`));

describe('CSV export options and columns', () => {
  it('appends preferred name, pronouns, language, invitation status and review status after every earlier column', async () => {
    const res = await exportCsv('');
    expect(res.body.startsWith(BOM)).toBe(true);
    const [header, ...rows] = rowsOf(res.body, ',');
    expect(header!.slice(0, 4)).toEqual(['display_name', 'first_name', 'last_name', 'email']);
    expect(header!.slice(-11)).toEqual([
      'name_language',
      'pronunciation_coverage',
      'respelling',
      'ipa',
      'not_like',
      'pronunciation_approved_at',
      'preferred_name',
      'pronouns',
      'language',
      'invitation_status',
      'review_status',
    ]);
    const byEmail = new Map(rows.map((row) => [row[3], Object.fromEntries(header!.map((h, i) => [h, row[i]]))]));
    expect(byEmail.get('ines@example.com')).toMatchObject({
      preferred_name: 'Nessa',
      pronouns: 'she/her',
      language: 'es',
      invitation_status: 'queued',
      review_status: 'not_reviewed',
    });
    expect(byEmail.get('jo@example.com')).toMatchObject({
      preferred_name: '',
      language: '',
      invitation_status: 'not_invited',
      review_status: '',
    });
  });

  it('separates with semicolons and leaves the byte-order mark out when asked; refuses anything else', async () => {
    const semicolons = await exportCsv('&separator=semicolon&bom=false');
    expect(semicolons.statusCode).toBe(200);
    expect(semicolons.body.startsWith('"display_name";"first_name";"last_name";"email"')).toBe(true);
    expect(rowsOf(semicolons.body, ';')[1]).toContain('Inés');
    const comma = await exportCsv('&separator=comma&bom=true');
    expect(comma.body.startsWith(`${BOM}"display_name","first_name"`)).toBe(true);

    const tab = await exportCsv('&separator=tab');
    expect(tab.statusCode).toBe(400);
    expect(tab.json().error).toMatchObject({ code: 'parameter_invalid', param: 'separator' });
  });

  it("offers both choices on the dashboard's download form, and honours them for every member", async () => {
    const base = `/dashboard/collections/${collectionId}`;
    const page = await get(t, organiser, base);
    expect(page.body).toContain(`<form method="get" action="${base}/export" class="row" id="downloads">`);
    expect(page.body).toContain('<option value="semicolon">Semicolon (Excel in much of Europe)</option>');
    expect(page.body).toMatch(/<input type="checkbox" id="export-bom" name="bom" value="true" checked>/);

    // Ticked: the box's `true` comes before the hidden `false`.
    const ticked = await get(t, organiser, `${base}/export?separator=semicolon&bom=true&bom=false&format=csv`);
    expect(ticked.body.startsWith(`${BOM}"display_name";"first_name"`)).toBe(true);
    const viewer = await inviteAndJoin(t, organiser, 'export-viewer@example.com', 'viewer');
    const unticked = await get(t, viewer, `${base}/export?separator=comma&bom=false&format=csv`);
    expect(unticked.statusCode).toBe(200);
    expect(unticked.body.startsWith('"display_name","first_name"')).toBe(true);
    expect((await get(t, organiser, `${base}/export?separator=pipe&format=csv`)).statusCode).toBe(400);
  });
});
