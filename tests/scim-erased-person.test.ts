/**
 * A provisioned person the organiser erases (a data-rights request handled in voicename, not at
 * the identity provider): later pushes of the same User must neither fail nor bring the person
 * back behind the organiser's back. The group keeps listing the user (the provider's assignment
 * is unchanged, so it has nothing to push again); removing and adding them again is a new person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { GROUP_SCHEMA, newScimOrg, PATCH_OP, peopleOf, type ScimOrg, scim, USER_SCHEMA } from './helpers/scim.js';

let t: TestApp;
let org: ScimOrg;

beforeAll(async () => {
  t = await createTestApp();
  org = await newScimOrg(t);
});
afterAll(() => t.close());

describe('a provisioned person erased in voicename', () => {
  it('later pushes of the user answer normally and do not recreate the person', async () => {
    const user = await scim(t, org.token, 'POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: 'erased@contoso.edu',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ primary: true, value: 'erased@contoso.edu' }],
      active: true,
    });
    expect(user.statusCode, user.body).toBe(201);
    const userId = user.json().id as string;
    const group = await scim(t, org.token, 'POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Erasure 2027',
      members: [{ value: userId }],
    });
    expect(group.statusCode, group.body).toBe(201);
    const groupId = group.json().id as string;
    const collectionId = (await t.request({ method: 'GET', url: '/v1/collections?limit=100', key: org.key }))
      .json()
      .data.find((c: { name: string }) => c.name === 'Erasure 2027').id as string;
    const [person] = await peopleOf(t, org.key, collectionId);
    expect(person).toBeDefined();

    const erased = await t.request({
      method: 'DELETE',
      url: `/v1/collections/${collectionId}/users/${person?.id}`,
      key: org.key,
    });
    expect(erased.statusCode, erased.body).toBeLessThan(300);

    const renamed = await scim(t, org.token, 'PATCH', `/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'name.givenName', value: 'Augusta' }],
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const deactivated = await scim(t, org.token, 'PATCH', `/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(deactivated.statusCode, deactivated.body).toBe(200);
    expect(await peopleOf(t, org.key, collectionId)).toEqual([]);

    const members = await scim(t, org.token, 'GET', `/Groups/${groupId}`);
    expect(members.statusCode).toBe(200);
    expect(members.json().members.map((m: { value: string }) => m.value)).toEqual([userId]);
    const removed = await scim(t, org.token, 'DELETE', `/Users/${userId}`);
    expect(removed.statusCode, removed.body).toBe(204);
  });
});
