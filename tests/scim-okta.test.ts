/**
 * Okta's SCIM 2.0 sequence (its protocol reference): look up by `userName eq` with
 * `startIndex=1&count=100`, create, read back, update profiles by PUT, deactivate with a
 * path-less PATCH `{"active": false}`, push a group (POST with no members, PATCH `add` members,
 * rename by path-less `replace` repeating the group's id, `remove` with `members[value eq …]`),
 * delete the group. Asserted as the organiser sees it through /v1 and as the person sees their link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageSender } from '../src/features/invitations/sender.js';
import { createScimToken, revokeScimToken } from '../src/features/scim/token-service.js';
import { updateUser } from '../src/features/users/service.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { GROUP_SCHEMA, newScimOrg, PATCH_OP, peopleOf, type ScimOrg, scim, USER_SCHEMA } from './helpers/scim.js';

let t: TestApp;
let org: ScimOrg;

beforeAll(async () => {
  t = await createTestApp({ env: { MAIL_RATE_PER_MINUTE: '0' } });
  org = await newScimOrg(t);
});
afterAll(() => t.close());

const oktaUser = (overrides: Record<string, unknown> = {}) => ({
  schemas: [USER_SCHEMA],
  userName: 'grace.hopper@example.edu',
  name: { givenName: 'Grace', familyName: 'Hopper' },
  emails: [{ primary: true, value: 'grace.hopper@example.edu', type: 'work' }],
  displayName: 'Grace Hopper',
  locale: 'en-US',
  externalId: '00ujl29u0le5T6Aj10h7',
  groups: [],
  password: 'never-stored-by-okta-tests',
  active: true,
  ...overrides,
});
const collectionNamed = async (name: string) => {
  const res = await t.request({ method: 'GET', url: '/v1/collections?limit=100', key: org.key });
  return (res.json().data as { id: string; name: string }[]).find((c) => c.name === name);
};
const recordPage = (recordUrl: string) => t.app.inject({ method: 'GET', url: new URL(recordUrl).pathname });

describe('Okta provisioning cycle', () => {
  let userId: string;
  let groupId: string;
  let collectionId: string;

  it('looks up by userName with startIndex and count, creates, reads back', async () => {
    const query = `filter=${encodeURIComponent('userName eq "grace.hopper@example.edu"')}&startIndex=1&count=100`;
    expect((await scim(t, org.token, 'GET', `/Users?${query}`)).json()).toMatchObject({
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
    });
    const created = await scim(t, org.token, 'POST', '/Users', oktaUser());
    expect(created.statusCode).toBe(201);
    userId = created.json().id;
    const found = (await scim(t, org.token, 'GET', `/Users?${query}`)).json();
    expect(found).toMatchObject({ totalResults: 1, itemsPerPage: 1 });
    expect(found.Resources[0]).toMatchObject({ id: userId, externalId: '00ujl29u0le5T6Aj10h7', active: true });
    expect((await scim(t, org.token, 'GET', `/Users/${userId}`)).json().userName).toBe('grace.hopper@example.edu');
  });

  it('pushes a group and adds the member: the person appears in the collection with a working link', async () => {
    const group = await scim(t, org.token, 'POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Navy Reserve',
      members: [],
    });
    expect(group.statusCode).toBe(201);
    groupId = group.json().id;
    const add = await scim(t, org.token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: userId, display: 'grace.hopper@example.edu' }] }],
    });
    expect(add.statusCode).toBe(200);
    collectionId = ((await collectionNamed('Navy Reserve')) as { id: string }).id;
    const [person] = await peopleOf(t, org.key, collectionId);
    expect(person).toMatchObject({
      email: 'grace.hopper@example.edu',
      first_name: 'Grace',
      last_name: 'Hopper',
      display_name: 'Grace Hopper',
    });
    expect((await recordPage((person as { record_url: string }).record_url)).statusCode).toBe(200);
  });

  it('a PUT updates the person, but never what the person corrected themselves', async () => {
    const [before] = await peopleOf(t, org.key, collectionId);
    const personId = (before as { id: string }).id;
    // The person corrects their display name on their own record page.
    await updateUser(t.deps, org.accountId, collectionId, personId, { display_name: 'Amazing Grace' }, 'person');
    const res = await scim(
      t,
      org.token,
      'PUT',
      `/Users/${userId}`,
      oktaUser({ name: { givenName: 'Grace B.', familyName: 'Hopper' }, displayName: 'Rear Admiral Hopper' }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().displayName).toBe('Rear Admiral Hopper');
    const [after] = await peopleOf(t, org.key, collectionId);
    expect(after).toMatchObject({ first_name: 'Grace B.', display_name: 'Amazing Grace' });
  });

  it('deactivation (path-less PATCH active:false) takes the link away at once and stops invitations', async () => {
    const [person] = await peopleOf(t, org.key, collectionId);
    const recordUrl = (person as { record_url: string }).record_url;
    const res = await scim(t, org.token, 'PATCH', `/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(res.json().active).toBe(false);
    expect((await recordPage(recordUrl)).statusCode).toBe(404);
    // An organiser's invitation queued now never reaches them.
    const personId = (person as { id: string }).id;
    const invite = await t.request({
      method: 'POST',
      url: `/v1/collections/${collectionId}/invitations`,
      key: org.key,
      json: { user_ids: [personId] },
    });
    expect(invite.statusCode).toBe(202);
    await new MessageSender(t.deps, 'okta-test-sender').kick();
    const mail = await t.deps.db.kysely.selectFrom('mail_messages').select('status').where('user_id', '=', personId).execute();
    expect(mail.map((m) => m.status)).toEqual(['skipped']);
  });

  it('renames the group with Okta’s path-less replace that repeats the id; a different id is refused (mutability)', async () => {
    const rename = await scim(t, org.token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: groupId, displayName: 'Navy Reserve 1943' } }],
    });
    expect(rename.statusCode).toBe(200);
    expect((await collectionNamed('Navy Reserve 1943'))?.id).toBe(collectionId);
    const other = await scim(t, org.token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: 'another-id', displayName: 'X' } }],
    });
    expect(other.statusCode).toBe(400);
    expect(other.json().scimType).toBe('mutability');
  });

  it('removes the member with members[value eq …]: the person leaves the collection', async () => {
    const res = await scim(t, org.token, 'PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${userId}"]` }],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().members).toEqual([]);
    expect(await peopleOf(t, org.key, collectionId)).toEqual([]);
  });

  it('deletes the group: its collection is archived (gone from /v1), the token of another organisation sees nothing', async () => {
    const other = await newScimOrg(t);
    expect(
      (
        await scim(t, other.token, 'PATCH', `/Groups/${groupId}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'remove', path: 'members' }],
        })
      ).statusCode,
    ).toBe(404);
    expect((await scim(t, org.token, 'DELETE', `/Groups/${groupId}`)).statusCode).toBe(204);
    expect((await t.request({ method: 'GET', url: `/v1/collections/${collectionId}`, key: org.key })).statusCode).toBe(404);
  });

  it('a revoked token is refused at once', async () => {
    const fresh = await createScimToken(t.deps, org.accountId, 'to revoke');
    expect((await scim(t, fresh.token, 'GET', '/Users')).statusCode).toBe(200);
    await revokeScimToken(t.deps, org.accountId, fresh.id);
    expect((await scim(t, fresh.token, 'GET', '/Users')).statusCode).toBe(401);
  });
});
