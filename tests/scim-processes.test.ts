/**
 * SCIM across two API processes' worth of state (two app instances on one database): what one
 * writes the other serves at once, a token revoked through one is refused by the other on the next
 * request, and a deactivation through one takes the record link away in the other. Nothing of
 * SCIM is kept in process memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScimToken, revokeScimToken } from '../src/features/scim/token-service.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { GROUP_SCHEMA, newScimOrg, PATCH_OP, peopleOf, type ScimOrg, scim, userBody } from './helpers/scim.js';

let a: TestApp;
let b: TestApp;
let org: ScimOrg;

beforeAll(async () => {
  a = await createTestApp();
  b = await createTestApp({ database: a.database });
  org = await newScimOrg(a);
});
afterAll(async () => {
  await b.app.close();
  await b.deps.notifications.close();
  await b.deps.rateLimits.close();
  await a.close();
});

describe('SCIM on two processes', () => {
  it('a User and Group created through A are read, changed and deactivated through B', async () => {
    const user = (await scim(a, org.token, 'POST', '/Users', userBody('two@example.edu'))).json();
    expect((await scim(b, org.token, 'GET', `/Users/${user.id}`)).json().meta.version).toBe('W/"1"');
    expectConflict(await scim(b, org.token, 'POST', '/Users', userBody('TWO@example.edu')));
    const group = (
      await scim(b, org.token, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Two', members: [{ value: user.id }] })
    ).json();
    const collections = (await a.request({ method: 'GET', url: '/v1/collections', key: org.key })).json().data as {
      id: string;
      name: string;
    }[];
    const collectionId = (collections.find((c) => c.name === 'Two') as { id: string }).id;
    const [person] = await peopleOf(a, org.key, collectionId);
    const recordPath = new URL((person as { record_url: string }).record_url).pathname;
    expect((await a.app.inject({ method: 'GET', url: recordPath })).statusCode).toBe(200);
    await scim(b, org.token, 'PATCH', `/Users/${user.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect((await a.app.inject({ method: 'GET', url: recordPath })).statusCode).toBe(404);
    expect((await scim(a, org.token, 'GET', `/Groups/${group.id}`)).json().members).toHaveLength(1);
  });

  it('a token revoked through A is refused by B on the next request', async () => {
    const fresh = await createScimToken(a.deps, org.accountId, 'both');
    expect((await scim(b, fresh.token, 'GET', '/Users')).statusCode).toBe(200);
    await revokeScimToken(a.deps, org.accountId, fresh.id);
    expect((await scim(b, fresh.token, 'GET', '/Users')).statusCode).toBe(401);
  });
});

function expectConflict(res: { statusCode: number; json(): { scimType?: string } }) {
  expect(res.statusCode).toBe(409);
  expect(res.json().scimType).toBe('uniqueness');
}
