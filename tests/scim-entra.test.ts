/**
 * Microsoft Entra ID's provisioning sequence, as its SCIM tutorial and validator send it: look a
 * user up by userName, create it with the enterprise extension, update it by PATCH with Entra's
 * quirks ("Replace"/"Add" capitalised, `emails[type eq "work"].value`, `name.givenName` keys in a
 * path-less value, booleans as "False"), create a group with `excludedAttributes=members`, add and
 * remove members with PATCH, deactivate, delete. Asserted as an organiser sees it through /v1 and as
 * the person sees their record link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { readZip } from './helpers/zip.js';
import { ENTERPRISE, GROUP_SCHEMA, newScimOrg, PATCH_OP, peopleOf, type ScimOrg, scim, USER_SCHEMA } from './helpers/scim.js';

let t: TestApp;
let org: ScimOrg;

beforeAll(async () => {
  t = await createTestApp();
  org = await newScimOrg(t);
});
afterAll(() => t.close());

const collectionNamed = async (name: string) => {
  const res = await t.request({ method: 'GET', url: '/v1/collections?limit=100', key: org.key });
  return (res.json().data as { id: string; name: string }[]).find((c) => c.name === name);
};
const eventsNaming = async (personId: string) =>
  (await t.deps.db.kysely.selectFrom('events').select(['type', 'data']).where('account_id', '=', org.accountId).execute()).filter(
    (e) => e.data.includes(personId),
  );
const recordPage = (recordUrl: string) => t.app.inject({ method: 'GET', url: new URL(recordUrl).pathname });

describe('Entra ID provisioning cycle', () => {
  let userId: string;
  let groupId: string;
  let collectionId: string;

  it('looks the user up by userName (none yet), then creates it with the enterprise extension', async () => {
    const lookup = await scim(
      t,
      org.token,
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "Test_User_ab6490ee@contoso.edu"')}`,
    );
    expect(lookup.json()).toMatchObject({ totalResults: 0, Resources: [] });
    const res = await scim(t, org.token, 'POST', '/Users', {
      schemas: [USER_SCHEMA, ENTERPRISE],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_ab6490ee@contoso.edu',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b@contoso.edu' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Ada Lovelace', familyName: 'Lovelace', givenName: 'Ada' },
      roles: [],
      [ENTERPRISE]: { employeeNumber: '1701', department: 'Mathematics' },
    });
    expect(res.statusCode).toBe(201);
    userId = res.json().id;
    const again = await scim(
      t,
      org.token,
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "test_user_AB6490EE@contoso.edu"')}`,
    );
    expect(again.json().Resources[0].id).toBe(userId);
  });

  it('creates the group (looked up first with excludedAttributes=members) and adds the member by PATCH: the person appears in the collection', async () => {
    const lookup = await scim(
      t,
      org.token,
      'GET',
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Maths 2026"')}`,
    );
    expect(lookup.json().totalResults).toBe(0);
    const created = await scim(t, org.token, 'POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'Maths 2026',
      meta: { resourceType: 'Group' },
    });
    expect(created.statusCode).toBe(201);
    groupId = created.json().id;
    const add = await scim(t, org.token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: userId }] }],
    });
    expect(add.statusCode).toBe(200);
    const collection = await collectionNamed('Maths 2026');
    expect(collection).toBeDefined();
    collectionId = (collection as { id: string }).id;
    const people = await peopleOf(t, org.key, collectionId);
    expect(people).toEqual([
      expect.objectContaining({
        email: 'Test_User_fd0ea19b@contoso.edu',
        first_name: 'Ada',
        last_name: 'Lovelace',
        external_id: userId,
      }),
    ]);
    expect((await recordPage((people[0] as { record_url: string }).record_url)).statusCode).toBe(200);
  });

  it('PATCH with Entra’s quirks updates the User and the person', async () => {
    const res = await scim(t, org.token, 'PATCH', `/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'title', value: 'Lecturer' },
        { op: 'Add', path: 'emails[type eq "work"].value', value: 'ada.lovelace@contoso.edu' },
        { op: 'Replace', value: { 'name.givenName': 'Augusta', 'name.familyName': 'King' } },
        { op: 'Replace', path: `${ENTERPRISE}:department`, value: 'Computing' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const user = res.json();
    expect(user).toMatchObject({
      title: 'Lecturer',
      name: { givenName: 'Augusta', familyName: 'King', formatted: 'Ada Lovelace' },
    });
    expect(user.emails).toEqual([{ primary: true, type: 'work', value: 'ada.lovelace@contoso.edu' }]);
    expect(user[ENTERPRISE]).toEqual({ employeeNumber: '1701', department: 'Computing' });
    const [person] = await peopleOf(t, org.key, collectionId);
    expect(person).toMatchObject({ email: 'ada.lovelace@contoso.edu', first_name: 'Augusta', last_name: 'King' });
    // Webhook receivers hear of it: user.updated, said to come from the integration.
    const events = await eventsNaming((person as { id: string }).id);
    const updated = events.find((e) => e.type === 'user.updated');
    expect(JSON.parse(updated?.data ?? '{}')).toMatchObject({
      updated_by: 'integration',
      changed_fields: expect.arrayContaining(['email']),
    });
  });

  it('deactivation by PATCH with "False" takes the record link away at once; reactivation gives it back', async () => {
    const [person] = await peopleOf(t, org.key, collectionId);
    const recordUrl = (person as { record_url: string }).record_url;
    const off = await scim(t, org.token, 'PATCH', `/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(off.json().active).toBe(false);
    expect((await recordPage(recordUrl)).statusCode).toBe(404);
    // The organiser still sees the person (their recording and history are kept while suspended).
    expect(await peopleOf(t, org.key, collectionId)).toHaveLength(1);
    const filtered = await scim(
      t,
      org.token,
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "Test_User_ab6490ee@contoso.edu"')}`,
    );
    expect(filtered.json().Resources[0].active).toBe(false);
    await scim(t, org.token, 'PATCH', `/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    expect((await recordPage(recordUrl)).statusCode).toBe(200);
  });

  it('names the identity provider’s user in the person’s personal-data export', async () => {
    const [person] = await peopleOf(t, org.key, collectionId);
    const res = await t.request({
      method: 'GET',
      url: `/v1/collections/${collectionId}/users/${(person as { id: string }).id}/export`,
      key: org.key,
    });
    expect(res.statusCode, res.body).toBe(200);
    const entries = await readZip(res.rawPayload);
    const document = JSON.parse(entries.find((e) => e.name === 'person.json')?.data.toString() ?? '{}');
    expect(document.provisioned_by).toEqual({
      scim: {
        id: userId,
        user_name: 'Test_User_ab6490ee@contoso.edu',
        external_id: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
        email: 'ada.lovelace@contoso.edu',
        active: true,
        updated_at: expect.any(String),
      },
      lms: null,
    });
  });

  it('removing the member (Entra sends the value list) deletes the person from the collection', async () => {
    const [person] = await peopleOf(t, org.key, collectionId);
    const res = await scim(t, org.token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Remove', path: 'members', value: [{ value: userId }] }],
    });
    expect(res.statusCode).toBe(200);
    expect(await peopleOf(t, org.key, collectionId)).toEqual([]);
    expect((await recordPage((person as { record_url: string }).record_url)).statusCode).not.toBe(200);
  });

  it('renames the group with "Replace" displayName: the collection follows', async () => {
    await scim(t, org.token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'displayName', value: 'Maths 2026 (autumn)' }],
    });
    expect((await collectionNamed('Maths 2026 (autumn)'))?.id).toBe(collectionId);
  });

  it('deleting the User deletes its people in every collection; another organisation’s token gets 404', async () => {
    await scim(t, org.token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: userId }] }],
    });
    expect(await peopleOf(t, org.key, collectionId)).toHaveLength(1);
    const other = await newScimOrg(t);
    expect((await scim(t, other.token, 'DELETE', `/Users/${userId}`)).statusCode).toBe(404);
    expect((await scim(t, other.token, 'GET', `/Groups/${groupId}`)).statusCode).toBe(404);
    const [person] = await peopleOf(t, org.key, collectionId);
    expect((await scim(t, org.token, 'DELETE', `/Users/${userId}`)).statusCode).toBe(204);
    expect(await peopleOf(t, org.key, collectionId)).toEqual([]);
    // Erased as any deleted person is: only the deletion itself still names them.
    expect((await eventsNaming((person as { id: string }).id)).map((e) => e.type)).toEqual(['user.deleted']);
    const group = (await scim(t, org.token, 'GET', `/Groups/${groupId}`)).json();
    expect(group.members).toEqual([]);
  });

  it('every write is in the organisation’s audit log with the SCIM token as its actor', async () => {
    const entries = await t.deps.db.kysely
      .selectFrom('audit_log')
      .select(['actor', 'actor_kind', 'action'])
      .where('account_id', '=', org.accountId)
      .execute();
    const actions = new Set(entries.map((e) => e.action));
    for (const action of [
      'scim_user.created',
      'scim_user.patched',
      'scim_user.deleted',
      'scim_group.created',
      'scim_group.patched',
    ]) {
      expect(actions).toContain(action);
    }
    expect(entries.every((e) => e.actor.startsWith('vnscim_'))).toBe(true);
  });
});
