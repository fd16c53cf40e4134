/**
 * Roles are enforced by one hook for every dashboard route. The routes are not listed here: they
 * are read from the application as it registered them (`app.routeCatalogue`, collected with
 * Fastify's onRoute), so a form added later is tested the day it is added.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requiredAccess } from '../src/features/dashboard/access.js';
import { type CatalogueRoute, MUTATING_METHODS } from '../src/http/route-catalogue.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, inviteAndJoin, post, signIn } from './helpers/dashboard.js';
import { readZip } from './helpers/zip.js';

let t: TestApp;
let owner: Browserish & { csrf: string };
let admin: Browserish & { csrf: string };
let viewer: Browserish & { csrf: string };

/**
 * The only mutating dashboard routes a viewer may use: signing in and accepting an invitation
 * (before any session), the SAML response from an identity provider, signing out (here or
 * everywhere else) and switching organisation.
 */
const OPEN_TO_EVERY_ROLE = [
  'POST /dashboard/sign-in',
  'POST /dashboard/sign-in/:token',
  'POST /dashboard/invitations/:token',
  'POST /dashboard/sign-out',
  'POST /dashboard/sessions/revoke-others',
  'POST /dashboard/organisations/switch',
  // The identity provider posts the SAML response here (no session yet): the response itself is the credential.
  'POST /dashboard/sso/saml/acs',
];

/**
 * Mutating routes open to viewers too: the stage scanner (a volunteer at the stage stairs shows
 * the person whose card they scan on the readers; nothing stored changes).
 */
const OPEN_TO_VIEWERS = ['POST /dashboard/collections/:id/stage/show'];

beforeAll(async () => {
  t = await createTestApp();
  owner = await signIn(t, 'owner@example.com', '203.0.113.1');
  admin = await inviteAndJoin(t, owner, 'admin@example.com', 'admin', '203.0.113.2');
  viewer = await inviteAndJoin(t, owner, 'viewer@example.com', 'viewer', '203.0.113.3');
});
afterAll(() => t.close());

const dashboardRoutes = () => t.app.routeCatalogue.filter((r) => r.url.startsWith('/dashboard'));
const mutating = () => dashboardRoutes().filter((r) => MUTATING_METHODS.has(r.method));
const label = (r: CatalogueRoute) => `${r.method} ${r.url}`;
/** A concrete URL for a route pattern: every parameter becomes a well-formed id that names nothing. */
const concrete = (url: string) => url.replace(/:[a-z_]+/g, '00000000-0000-4000-8000-000000000000');

async function send(who: Browserish & { csrf: string }, route: CatalogueRoute) {
  const url = concrete(route.url);
  return route.method === 'POST'
    ? post(t, who, url, { csrf: who.csrf, email: 'someone@example.com', role: 'viewer', name: 'x' })
    : t.app.inject({
        method: route.method as 'PUT' | 'PATCH' | 'DELETE',
        url,
        remoteAddress: who.ip,
        headers: {
          cookie: [...who.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: new URLSearchParams({ csrf: who.csrf }).toString(),
      });
}

describe('the role hook covers every mutating dashboard route', () => {
  it('finds the routes the app registered', () => {
    const labels = mutating().map(label);
    expect(labels).toEqual(expect.arrayContaining(['POST /dashboard/api-keys', 'POST /dashboard/members/invite']));
    expect(labels.length).toBeGreaterThanOrEqual(12);
  });

  it('opens exactly the documented routes to every role', () => {
    const open = mutating().filter((r) => ['public', 'signed-in'].includes(requiredAccess(r.method, r.config)));
    expect(open.map(label).sort()).toEqual([...OPEN_TO_EVERY_ROLE].sort());
    const viewers = mutating().filter((r) => requiredAccess(r.method, r.config) === 'viewer');
    expect(viewers.map(label).sort()).toEqual([...OPEN_TO_VIEWERS].sort());
  });

  it('refuses a viewer every other mutating route with 403, before the handler runs', async () => {
    const before = await t.deps.db.kysely.selectFrom('api_keys').select('id').execute();
    const refused: string[] = [];
    for (const route of mutating().filter((r) => ![...OPEN_TO_EVERY_ROLE, ...OPEN_TO_VIEWERS].includes(label(r)))) {
      const res = await send(viewer, route);
      expect(res.statusCode, label(route)).toBe(403);
      expect(res.body, label(route)).toContain('Not allowed');
      refused.push(label(route));
    }
    expect(refused.length).toBeGreaterThanOrEqual(6);
    expect(await t.deps.db.kysely.selectFrom('api_keys').select('id').execute()).toHaveLength(before.length);
  });

  it('refuses an admin the owners’ routes, and lets them use the rest', async () => {
    const ownerOnly = dashboardRoutes().filter((r) => requiredAccess(r.method, r.config) === 'owner');
    expect(ownerOnly.map(label)).toEqual(
      expect.arrayContaining(['GET /dashboard/audit', 'POST /dashboard/members/invite', 'POST /dashboard/members/role']),
    );
    for (const route of ownerOnly) {
      const res = route.method === 'GET' ? await get(t, admin, concrete(route.url)) : await send(admin, route);
      expect(res.statusCode, label(route)).toBe(403);
    }
    expect((await post(t, admin, '/dashboard/api-keys', { csrf: admin.csrf, name: 'admin key' })).statusCode).toBe(201);
  });

  it('lets a viewer read every page meant for members', async () => {
    const pages = dashboardRoutes().filter(
      (r) => r.method === 'GET' && requiredAccess(r.method, r.config) === 'viewer' && !r.url.includes(':'),
    );
    expect(pages.map(label)).toEqual(expect.arrayContaining(['GET /dashboard', 'GET /dashboard/api-keys']));
    for (const page of pages) expect((await get(t, viewer, page.url)).statusCode, label(page)).toBe(200);
  });

  it('lets a viewer sign out, everywhere else too', async () => {
    const spare = await inviteAndJoin(t, owner, 'spare-viewer@example.com', 'viewer', '203.0.113.9');
    expect((await post(t, spare, '/dashboard/sessions/revoke-others', { csrf: spare.csrf })).statusCode).toBe(303);
    expect((await post(t, spare, '/dashboard/sign-out', { csrf: spare.csrf })).statusCode).toBe(303);
    expect((await get(t, spare, '/dashboard')).headers.location).toBe('/dashboard/sign-in');
  });

  it('applies a role change at the member’s next request', async () => {
    const promoted = await inviteAndJoin(t, owner, 'promoted@example.com', 'viewer', '203.0.113.10');
    expect((await post(t, promoted, '/dashboard/api-keys', { csrf: promoted.csrf, name: 'no' })).statusCode).toBe(403);
    await post(t, owner, '/dashboard/members/role', { csrf: owner.csrf, email: 'promoted@example.com', role: 'admin' });
    expect((await post(t, promoted, '/dashboard/api-keys', { csrf: promoted.csrf, name: 'yes' })).statusCode).toBe(201);
    await post(t, owner, '/dashboard/members/role', { csrf: owner.csrf, email: 'promoted@example.com', role: 'viewer' });
    expect((await post(t, promoted, '/dashboard/api-keys', { csrf: promoted.csrf, name: 'no again' })).statusCode).toBe(403);
  });
});

describe('a viewer is shown nothing that grants write access', () => {
  let base: string;
  let recordUrl: string;
  let recordToken: string;
  let personPath: string;

  beforeAll(async () => {
    const { key } = await t.newAccount('owner@example.com');
    const collection = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Roles' } })).json<{
      id: string;
    }>();
    const person = (
      await t.request({
        method: 'POST',
        url: `/v1/collections/${collection.id}/users`,
        key,
        json: { email: 'ada@example.com', first_name: 'Ada' },
      })
    ).json<{ id: string; record_url: string }>();
    base = `/dashboard/collections/${collection.id}`;
    recordUrl = person.record_url;
    recordToken = recordUrl.split('/r/')[1] as string;
    personPath = `${base}/people/${person.id}`;
  });

  /** Every page and download of the collection and the person that a member can read, as bytes. */
  async function everythingReadable(who: Browserish): Promise<{ label: string; text: string }[]> {
    const read: { label: string; text: string }[] = [];
    for (const url of [base, `${base}/reader`, personPath]) {
      const res = await get(t, who, url);
      expect(res.statusCode, url).toBe(200);
      read.push({ label: url, text: res.body });
    }
    const csv = await get(t, who, `${base}/export?format=csv`);
    expect(csv.statusCode).toBe(200);
    read.push({ label: 'CSV', text: csv.body });
    const zip = await get(t, who, `${base}/export?format=zip`);
    expect(zip.statusCode).toBe(200);
    for (const entry of await readZip(zip.rawPayload))
      read.push({ label: `ZIP ${entry.name}`, text: entry.data.toString('utf8') });
    const own = await get(t, who, `${personPath}/export`);
    expect(own.statusCode).toBe(200);
    for (const entry of await readZip(own.rawPayload))
      read.push({ label: `person ZIP ${entry.name}`, text: entry.data.toString('utf8') });
    return read;
  }

  it('no record link on the pages or in the CSV, the ZIP or the person’s data a viewer downloads', async () => {
    const read = await everythingReadable(viewer);
    for (const { label: where, text } of read) expect(text, where).not.toContain(recordToken);
    const csvHeader = read
      .find((r) => r.label === 'CSV')
      ?.text.replace(/^\uFEFF/, '')
      .split('\r\n')[0];
    expect(csvHeader).not.toContain('record_url');
    expect(read.find((r) => r.label === personPath)?.text).toContain('The record link is shown to admins and owners');
  });

  it('owners and admins keep the record link on the person page and in every download', async () => {
    for (const who of [owner, admin]) {
      const read = await everythingReadable(who);
      for (const where of [personPath, 'CSV', 'ZIP people.csv', 'person ZIP person.json']) {
        expect(read.find((r) => r.label === where)?.text, where).toContain(recordUrl);
      }
    }
  });
});
