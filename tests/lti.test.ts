/**
 * The LTI 1.3 tool against a mock platform on loopback (tests/helpers/lti-platform.ts) that
 * speaks the real protocol: registration in the dashboard, the OIDC login initiation, the
 * id_token launch and every refusal a person could meet, where launches land, and the NRPS
 * roster sync with paging and a departed member.
 *
 * The tool runs on http://127.0.0.1, so its state cookie is `SameSite=Lax` without `Secure`
 * (platform and tool share the loopback site); over https it is `SameSite=None; Secure`,
 * checked below with an https BASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/features/api-keys/service.js';
import { createRegistration } from '../src/features/lti/registration-service.js';
import { syncAllRosters, syncCourseRoster } from '../src/features/lti/roster-sync.js';
import { upsertRosterPeople } from '../src/features/users/roster-service.js';
import { createTestApp, startTestServer, type TestApp } from './helpers/app.js';
import { type Browserish, get, newBrowser, post, signIn } from './helpers/dashboard.js';
import { runJobsLater } from './helpers/jobs.js';
import { readZip } from './helpers/zip.js';
import { addRecording } from './helpers/play-link-fixtures.js';
import { type MockPlatform, type NextLaunch, type NrpsMember, ROLES, startMockPlatform } from './helpers/lti-platform.js';

const OWNER = 'registrar@uni.example';
let t: TestApp & { url: string };
let platform: MockPlatform;
let owner: Browserish & { csrf: string };

const instructor: NextLaunch['user'] = {
  sub: 'inst-1',
  givenName: 'Grace',
  familyName: 'Hopper',
  email: 'grace@uni.example',
  roles: [ROLES.instructor],
};
const learner: NextLaunch['user'] = {
  sub: 'stud-1',
  givenName: 'Aoife',
  familyName: 'Byrne',
  email: 'aoife@uni.example',
  roles: [ROLES.learner],
};

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  platform = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks` });
  owner = await signIn(t, OWNER);
  const page = await get(t, owner, '/dashboard/lti');
  expect(page.statusCode).toBe(200);
  const registered = await post(t, owner, '/dashboard/lti', {
    csrf: owner.csrf,
    issuer: platform.issuer,
    client_id: platform.clientId,
    deployment_ids: `${platform.deploymentId}\nother-deployment`,
    auth_url: platform.authUrl,
    token_url: platform.tokenUrl,
    jwks_url: platform.jwksUrl,
  });
  expect(registered.statusCode, registered.body).toBe(303);
});
afterAll(async () => {
  await platform?.close();
  await t?.close();
});

/** A browser through the whole launch: login initiation, the platform's auth endpoint, the form post. */
async function launch(
  next: NextLaunch,
  options: {
    browser?: Browserish;
    tamperForm?: (form: Record<string, string>) => void;
    /** Headers of the launch post, e.g. the Origin of the platform page that posted it. */
    launchHeaders?: Record<string, string>;
  } = {},
) {
  const browser = options.browser ?? newBrowser();
  platform.nextLaunch(next);
  const query = new URLSearchParams({
    iss: platform.issuer,
    login_hint: next.user.sub,
    target_link_uri: `${t.url}/lti/launch`,
    lti_message_hint: 'resource-link-1',
    client_id: platform.clientId,
    lti_deployment_id: platform.deploymentId,
  });
  const login = await get(t, browser, `/lti/login?${query}`);
  expect(login.statusCode, login.body).toBe(302);
  const authorized = await fetch(login.headers.location as string);
  expect(authorized.status, await authorized.clone().text()).toBe(200);
  const form = platform.lastForm;
  if (!form) throw new Error('the platform answered no form');
  expect(form.action).toBe(`${t.url}/lti/launch`);
  const fields = { id_token: form.id_token, state: form.state };
  options.tamperForm?.(fields);
  const response = await post(t, browser, '/lti/launch', fields, options.launchHeaders);
  return { browser, response, fields };
}

const titleOf = (page: string) => /<h1>([^<]*)<\/h1>/.exec(page)?.[1];

describe('registration and the tool’s keys', () => {
  it('shows the tool’s URLs and the registered platform, and audits the registration', async () => {
    const page = await get(t, owner, '/dashboard/lti');
    expect(page.body).toContain(`${t.url}/lti/login`);
    expect(page.body).toContain(`${t.url}/lti/launch`);
    expect(page.body).toContain(`${t.url}/lti/jwks`);
    expect(page.body).toContain(platform.clientId);
    const audit = await get(t, owner, '/dashboard/audit');
    expect(audit.body).toContain('lti_registration.created');
  });

  it('refuses a registration with a missing field on the form, with what was typed', async () => {
    const refused = await post(t, owner, '/dashboard/lti', {
      csrf: owner.csrf,
      issuer: 'https://lms.example',
      client_id: '',
      deployment_ids: '1',
      auth_url: 'https://lms.example/auth',
      token_url: 'https://lms.example/token',
      jwks_url: 'https://lms.example/jwks',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Enter the client id.');
    expect(refused.body).toContain('value="https://lms.example"');
  });

  it('publishes an RS256 key set with the key that signs', async () => {
    const res = await fetch(`${t.url}/lti/jwks`);
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: { kty: string; alg: string; kid: string; d?: string }[] };
    expect(keys.length).toBeGreaterThan(0);
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(keys.some((key) => 'd' in key)).toBe(false);
  });
});

describe('launches', () => {
  it('signs an instructor in as an admin, on the course’s new collection, and queues the roster sync', async () => {
    const { browser, response } = await launch({ user: instructor, context: { id: 'course-1', title: 'Linguistics 101' } });
    expect(response.statusCode, response.body).toBe(303);
    const location = response.headers.location as string;
    expect(location).toMatch(/^\/dashboard\/collections\/[0-9a-f-]{36}$/);
    const collection = await get(t, browser, location);
    expect(collection.statusCode).toBe(200);
    expect(collection.body).toContain('Linguistics 101');
    expect(collection.body).toContain('grace@uni.example');
    const members = await get(t, owner, '/dashboard/members');
    expect(members.body).toMatch(/grace@uni\.example[\s\S]*?admin/);

    // A second launch of the course lands on the same collection.
    const again = await launch({ user: instructor, context: { id: 'course-1', title: 'Linguistics 101' } });
    expect(again.response.headers.location).toBe(location);
  });

  it('brings a learner to their own record page, with no e-mail sent', async () => {
    const { response } = await launch({ user: learner, context: { id: 'course-1', title: 'Linguistics 101' } });
    expect(response.statusCode, response.body).toBe(303);
    const location = response.headers.location as string;
    expect(location).toMatch(/^\/r\/[A-Za-z0-9_-]+$/);
    const record = await t.app.inject({ method: 'GET', url: location });
    expect(record.statusCode).toBe(200);
    expect(record.body).toContain('Aoife');
    expect(t.deps.mailer.lastMessageTo('aoife@uni.example')).toBeFalsy();
  });

  const refusals: [string, NextLaunch, number, string][] = [
    ['a token signed by another key', { user: learner, foreignKey: true }, 401, 'not signed by a key of the registered platform'],
    ['a token for another audience', { user: learner, audience: 'someone-else' }, 401, 'wrong audience'],
    ['an expired token', { user: learner, timeShiftS: -3600 }, 401, 'expired'],
    ['an unknown deployment', { user: learner, deploymentId: 'deployment-9' }, 422, 'deployment'],
    ['a launch without roles', { user: learner, withoutRoles: true }, 422, 'names no role'],
    ['another message type', { user: learner, messageType: 'LtiSubmissionReviewRequest' }, 422, 'LtiSubmissionReviewRequest'],
  ];
  for (const [what, next, status, words] of refusals) {
    it(`refuses ${what} with a page that says so (${status})`, async () => {
      const { response } = await launch(next);
      expect(response.statusCode).toBe(status);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.body).toContain(words);
    });
  }

  it('refuses a replayed launch (the same id_token and nonce posted again)', async () => {
    const first = await launch({ user: learner });
    expect(first.response.statusCode).toBe(303);
    const replay = await post(t, newBrowserWithState(first.fields.state), '/lti/launch', first.fields);
    expect(replay.statusCode).toBe(409);
    expect(titleOf(replay.body)).toBe('Launch already used');
  });

  it('refuses a token carrying the nonce of an earlier launch', async () => {
    const first = await launch({ user: learner });
    const nonce = JSON.parse(Buffer.from(first.fields.id_token.split('.')[1] as string, 'base64url').toString()).nonce;
    const replayed = await launch({ user: learner, nonce });
    expect(replayed.response.statusCode).toBe(409);
  });

  it('refuses a launch whose state is not this browser’s', async () => {
    const { response } = await launch({ user: learner }, { tamperForm: (fields) => (fields.state = 'x'.repeat(43)) });
    expect(response.statusCode).toBe(403);
    expect(titleOf(response.body)).toBe('Launch not from this browser');
    const noCookie = await launch({ user: learner });
    const other = await post(t, newBrowserWithState('y'.repeat(43)), '/lti/launch', noCookie.fields);
    expect(other.statusCode).toBe(403);
  });

  it('offers to start again in a new window when the browser withheld the state cookie (a framed launch)', async () => {
    const framed = newBrowser();
    const first = await launch({ user: learner }, { browser: framed });
    expect(first.response.statusCode).toBe(303);
    // The same login again, but the framed browser keeps no cookie from the tool.
    platform.nextLaunch({ user: learner });
    const query = new URLSearchParams({
      iss: platform.issuer,
      login_hint: learner.sub,
      target_link_uri: `${t.url}/lti/launch`,
      client_id: platform.clientId,
    });
    const login = await t.app.inject({ method: 'GET', url: `/lti/login?${query}` });
    await fetch(login.headers.location as string);
    const form = platform.lastForm as { id_token: string; state: string };
    const refused = await post(t, newBrowser(), '/lti/launch', { id_token: form.id_token, state: form.state });
    expect(refused.statusCode).toBe(403);
    const again = /id="open-new-window"[^>]*href="([^"]+)"/.exec(refused.body)?.[1]?.replace(/&amp;/g, '&');
    expect(again).toBe(`/lti/login?${query}`);
    expect(refused.body).toContain('target="_blank"');
    // In a window of its own the cookie flows and the launch succeeds.
    expect((await launch({ user: learner })).response.statusCode).toBe(303);
  });

  it('refuses a login from an unregistered platform or deployment, and a target elsewhere', async () => {
    const base = { iss: platform.issuer, login_hint: 'x', target_link_uri: `${t.url}/lti/launch`, client_id: platform.clientId };
    for (const query of [
      { ...base, iss: 'https://unknown.example' },
      { ...base, lti_deployment_id: 'deployment-9' },
      { ...base, target_link_uri: 'https://evil.example/' },
      { iss: platform.issuer },
    ]) {
      const res = await t.app.inject({ method: 'GET', url: `/lti/login?${new URLSearchParams(query)}` });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it('refuses a launch post without an id_token, or with one that is not a JWT (a 4xx page, not a 500)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/lti/launch',
      payload: 'state=abc',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('did not post an id_token');
    const garbage = await post(t, newBrowserWithState('abc'), '/lti/launch', { id_token: 'not.a.jwt', state: 'abc' });
    expect(garbage.statusCode).toBe(401);
  });
});

/** An API key of the organisation `email` owns. */
async function apiKeyOf(email: string) {
  const created = await createApiKey(t.deps, { accountEmail: email });
  return { key: created.key };
}

function newBrowserWithState(state: string): Browserish {
  const browser = newBrowser();
  browser.cookies.set('vn_lti_state', state);
  return browser;
}

describe('roster sync (NRPS)', () => {
  const member = (id: string, given: string, family: string, roles = [ROLES.learner]): NrpsMember => ({
    user_id: id,
    given_name: given,
    family_name: family,
    name: `${given} ${family}`,
    email: `${given.toLowerCase()}@uni.example`,
    roles,
  });

  it('creates the course’s learners over two pages, and marks those who left as departed', async () => {
    const course = 'course-nrps';
    platform.setMembers(course, [
      member('inst-1', 'Grace', 'Hopper', [ROLES.instructor]),
      member('s-1', 'Niamh', 'Kelly'),
      member('s-2', 'Oisín', 'Walsh'),
      member('s-3', 'Siobhán', 'Murphy'),
    ]);
    const { browser, response } = await launch({ user: instructor, context: { id: course, title: 'Phonetics' } });
    expect(response.statusCode).toBe(303);
    expect(await runJobsLater(t.deps, 0)).toBeGreaterThan(0);
    expect(platform.log.pages).toEqual(expect.arrayContaining([`${course}#1`, `${course}#2`]));
    const collectionPath = response.headers.location as string;
    const people = await get(t, browser, collectionPath);
    for (const name of ['Niamh Kelly', 'Oisín Walsh', 'Siobhán Murphy']) expect(people.body).toContain(name);
    expect(people.body).not.toContain('Grace Hopper');
    const contextRow = await t.deps.db.kysely
      .selectFrom('lti_contexts')
      .select('id')
      .where('context_id', '=', course)
      .executeTakeFirstOrThrow();

    // Siobhán's record link works, then she leaves the course and Aisling joins: the platform's
    // differences say so, and only those two change.
    const siobhan = await launch({
      user: { sub: 's-3', givenName: 'Siobhán', familyName: 'Murphy', email: 'siobhán@uni.example', roles: [ROLES.learner] },
      context: { id: course, title: 'Phonetics' },
    });
    const recordPath = siobhan.response.headers.location as string;
    expect((await t.app.inject({ method: 'GET', url: recordPath })).statusCode).toBe(200);
    platform.setDifferences(course, [
      { ...member('s-3', 'Siobhán', 'Murphy'), status: 'Deleted' },
      member('s-4', 'Aisling', 'Ryan'),
    ]);
    expect(await syncCourseRoster(t.deps, contextRow.id)).toEqual({ created: 1, updated: 0, departed: 1 });
    expect(platform.log.pages.at(-1)).toBe(`${course}#differences`);
    expect((await t.app.inject({ method: 'GET', url: recordPath })).statusCode).toBe(404);
    expect((await get(t, browser, collectionPath)).body).toContain('Aisling Ryan');

    // No more invitations for her: the organisation's "everyone who has not recorded" leaves her out.
    const { key } = await apiKeyOf(OWNER);
    const collectionId = collectionPath.split('/').at(-1) as string;
    const invited = await t.request({
      method: 'POST',
      url: `/v1/collections/${collectionId}/invitations`,
      key,
      json: { filter: 'not_recorded', dry_run: true },
    });
    expect(invited.statusCode, invited.body).toBe(200);
    expect(invited.json<{ queued: number }>().queued).toBe(3);

    // What a person corrects on their record page stays theirs: the platform's rename of Niamh
    // changes her family name, not the display name she wrote.
    const niamh = await launch({
      user: { sub: 's-1', givenName: 'Niamh', familyName: 'Kelly', email: 'niamh@uni.example', roles: [ROLES.learner] },
      context: { id: course, title: 'Phonetics' },
    });
    const corrected = await t.app.inject({
      method: 'POST',
      url: `${niamh.response.headers.location as string}/details`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.url },
      payload: new URLSearchParams({
        display_name: 'Niamh Ní Cheallaigh',
        preferred_name: '',
        pronouns: '',
        phonetic_spelling: '',
      }).toString(),
    });
    expect(corrected.statusCode, corrected.body).toBe(303);
    platform.setDifferences(course, [member('s-1', 'Niamh', 'Kelly-Byrne')]);
    expect(await syncCourseRoster(t.deps, contextRow.id)).toEqual({ created: 0, updated: 1, departed: 0 });
    const row = await t.deps.db.kysely
      .selectFrom('users')
      .select(['display_name', 'last_name', 'field_sources'])
      .where('external_id', '=', 's-1')
      .where('collection_id', '=', collectionId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ display_name: 'Niamh Ní Cheallaigh', last_name: 'Kelly-Byrne' });
    expect(JSON.parse(row.field_sources)).toMatchObject({
      display_name: { source: 'person' },
      last_name: { source: 'integration' },
    });

    // A full read (daily, or when no differences link is known): whoever is not in it departs.
    await t.deps.db.kysely.updateTable('lti_contexts').set({ full_synced_at: null }).where('id', '=', contextRow.id).execute();
    platform.setMembers(course, [member('s-1', 'Niamh', 'Kelly'), member('s-4', 'Aisling', 'Ryan')]);
    expect(await syncCourseRoster(t.deps, contextRow.id)).toMatchObject({ created: 0, departed: 1 });
    expect(platform.log.pages.slice(-2)).toEqual([`${course}#1`, `${course}#2`]);
    expect(platform.log.refusedAssertions).toEqual([]);
  });

  it('names the course a member came from in their personal-data export', async () => {
    const course = 'course-export';
    platform.setMembers(course, [member('s-exp', 'Caoimhe', 'Doyle')]);
    const { response } = await launch({ user: instructor, context: { id: course, title: 'Irish 101' } });
    await runJobsLater(t.deps, 0);
    const collectionId = (response.headers.location as string).split('/').at(-1) as string;
    const person = await t.deps.db.kysely
      .selectFrom('users')
      .select('id')
      .where('collection_id', '=', collectionId)
      .where('external_id', '=', 's-exp')
      .executeTakeFirstOrThrow();
    const { key } = await apiKeyOf(OWNER);
    const res = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${person.id}/export`, key });
    expect(res.statusCode, res.body).toBe(200);
    const entries = await readZip(res.rawPayload);
    const document = JSON.parse(entries.find((e) => e.name === 'person.json')?.data.toString() ?? '{}');
    expect(document.provisioned_by).toMatchObject({
      scim: null,
      lms: { platform: platform.issuer, course: 'Irish 101', lti_user_id: 's-exp', departed_at: null },
    });
  });
});

describe('cookies over https', () => {
  it('binds the state with SameSite=None; Secure, so the platform’s cross-site form post carries it', async () => {
    const https = await createTestApp({ env: { BASE_URL: 'https://voicename.example', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    try {
      await https.newAccount('it@uni.example');
      const account = await https.deps.db.kysely
        .selectFrom('accounts')
        .select('id')
        .where('email', '=', 'it@uni.example')
        .executeTakeFirstOrThrow();
      await https.deps.db.kysely
        .insertInto('lti_registrations')
        .values({
          id: '00000000-0000-4000-8000-000000000001',
          account_id: account.id,
          issuer: 'https://lms.example',
          client_id: 'c1',
          deployment_ids: '["d1"]',
          auth_url: 'https://lms.example/auth',
          token_url: 'https://lms.example/token',
          jwks_url: 'https://lms.example/jwks',
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: '2026-01-01T00:00:00.000Z',
        })
        .execute();
      const query = new URLSearchParams({
        iss: 'https://lms.example',
        login_hint: 'u',
        target_link_uri: 'https://voicename.example/lti/launch',
      });
      const res = await https.app.inject({ method: 'GET', url: `/lti/login?${query}` });
      expect(res.statusCode).toBe(302);
      expect(String(res.headers['set-cookie'])).toMatch(/vn_lti_state=[^;]+;.*SameSite=None/);
      expect(String(res.headers['set-cookie'])).toMatch(/Secure/);
    } finally {
      await https.close();
    }
  });
});

describe('inside the platform’s frame', () => {
  const frameAncestors = (csp: unknown) => /frame-ancestors ([^;]*)/.exec(String(csp))?.[1];

  it('lets the sites a course was launched from, and no other, frame its learners’ record pages', async () => {
    const course = { id: 'course-framed', title: 'Framed course' };
    const first = await launch(
      { user: learner, context: course, returnUrl: 'https://school.lms.example/courses/7/external_tools/return' },
      { launchHeaders: { origin: 'https://school.lms.example' } },
    );
    expect(first.response.statusCode, first.response.body).toBe(303);
    const recordPath = first.response.headers.location as string;
    const page = await t.app.inject({ method: 'GET', url: recordPath });
    expect(page.statusCode).toBe(200);
    expect(frameAncestors(page.headers['content-security-policy'])).toBe('https://school.lms.example');
    expect(page.headers['x-frame-options']).toBeUndefined();
    // The microphone stays the page's own: the platform's frame must still allow it.
    expect(page.headers['permissions-policy']).toContain('microphone=(self)');

    // A second site's launch (the platform's other host) is added; the newest first.
    await launch(
      { user: instructor, context: course, returnUrl: 'https://canvas.lms.example/return' },
      { launchHeaders: { origin: 'https://sso.lms.example' } },
    );
    const again = await t.app.inject({ method: 'GET', url: recordPath });
    expect(frameAncestors(again.headers['content-security-policy'])).toBe(
      'https://sso.lms.example https://canvas.lms.example https://school.lms.example',
    );
  });

  it('keeps refusing to be framed where no course was launched (a collection of the API)', async () => {
    const { key } = await apiKeyOf(OWNER);
    const collection = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Not a course' } })).json<{
      id: string;
    }>();
    const person = (
      await t.request({
        method: 'POST',
        url: `/v1/collections/${collection.id}/users`,
        key,
        json: { email: 'x@uni.example', first_name: 'X' },
      })
    ).json<{ record_url: string }>();
    const page = await t.app.inject({ method: 'GET', url: new URL(person.record_url).pathname });
    expect(frameAncestors(page.headers['content-security-policy'])).toBe("'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
  });

  it('shows a refused launch inside the frame of the site that posted it', async () => {
    const { response } = await launch(
      { user: learner, audience: 'someone-else' },
      { launchHeaders: { origin: 'https://school.lms.example' } },
    );
    expect(response.statusCode).toBe(401);
    expect(frameAncestors(response.headers['content-security-policy'])).toBe('https://school.lms.example');
    expect(response.headers['x-frame-options']).toBeUndefined();
  });
});

describe('Deep Linking', () => {
  it('lets an instructor insert the course’s names, returned as a signed LtiDeepLinkingResponse', async () => {
    const browser = newBrowser();
    const { response } = await launch(
      { user: instructor, messageType: 'LtiDeepLinkingRequest', context: { id: 'course-1', title: 'Linguistics 101' } },
      { browser },
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.body).toContain('Insert voicename into Linguistics 101');
    // It opens in the platform's editor frame: the platform may frame it, nobody else.
    expect(response.headers['content-security-policy']).toContain(`frame-ancestors ${platform.url}`);
    expect(response.headers['x-frame-options']).toBeUndefined();
    const sealed = /name="request" value="([^"]+)"/.exec(response.body)?.[1] as string;
    const chosen = await post(t, browser, '/lti/deep-link', { request: sealed, choice: 'roster' });
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect(chosen.headers['content-security-policy']).toContain(`form-action ${platform.url}`);
    const action = /<form method="post" action="([^"]+)" data-auto-submit>/.exec(chosen.body)?.[1];
    expect(action).toBe(`${platform.url}/deep-link-return`);
    const jwt = /name="JWT" value="([^"]+)"/.exec(chosen.body)?.[1] as string;
    const returned = await fetch(action as string, { method: 'POST', body: new URLSearchParams({ JWT: jwt }) });
    expect(returned.status).toBe(200);
    const payload = platform.log.deepLinks.at(-1) as Record<string, unknown>;
    expect(payload['https://purl.imsglobal.org/spec/lti-dl/claim/data']).toBe('platform-opaque-data');
    expect(payload['https://purl.imsglobal.org/spec/lti-dl/claim/content_items']).toEqual([
      { type: 'ltiResourceLink', title: 'Names: Linguistics 101', url: `${t.url}/lti/launch` },
    ]);
  });

  it('lets an instructor insert one recorded person’s player as a link', async () => {
    const course = { id: 'course-dl', title: 'Deep Linking 101' };
    await launch({ user: learner, context: course });
    const person = await t.deps.db.kysely
      .selectFrom('users')
      .innerJoin('lti_roster', 'lti_roster.user_id', 'users.id')
      .innerJoin('lti_contexts', 'lti_contexts.id', 'lti_roster.context_row_id')
      .select(['users.id', 'users.display_name'])
      .where('lti_contexts.context_id', '=', course.id)
      .executeTakeFirstOrThrow();
    const token = await addRecording(t, person.id);
    const { response } = await launch({ user: instructor, messageType: 'LtiDeepLinkingRequest', context: course });
    expect(response.body).toContain(`${person.display_name}’s player`);
    const sealed = /name="request" value="([^"]+)"/.exec(response.body)?.[1] as string;
    const chosen = await post(t, newBrowser(), '/lti/deep-link', { request: sealed, choice: person.id });
    expect(chosen.statusCode, chosen.body).toBe(200);
    const jwt = /name="JWT" value="([^"]+)"/.exec(chosen.body)?.[1] as string;
    await fetch(`${platform.url}/deep-link-return`, { method: 'POST', body: new URLSearchParams({ JWT: jwt }) });
    const payload = platform.log.deepLinks.at(-1) as Record<string, unknown>;
    expect(payload['https://purl.imsglobal.org/spec/lti-dl/claim/content_items']).toEqual([
      { type: 'link', title: `How to say ${person.display_name}`, url: `${t.url}/p/${token}` },
    ]);
  });

  it('refuses a tampered or unknown choice with a page, not a 500', async () => {
    const tampered = await post(t, newBrowser(), '/lti/deep-link', { request: 'a.b.c', choice: 'roster' });
    expect(tampered.statusCode).toBe(401);
    const { response } = await launch({ user: instructor, messageType: 'LtiDeepLinkingRequest' });
    const sealed = /name="request" value="([^"]+)"/.exec(response.body)?.[1] as string;
    const unknown = await post(t, newBrowser(), '/lti/deep-link', { request: sealed, choice: 'somebody' });
    expect(unknown.statusCode).toBe(400);
  });

  it('refuses a deep linking launch from a learner', async () => {
    const { response } = await launch({ user: learner, messageType: 'LtiDeepLinkingRequest' });
    expect(response.statusCode).toBe(422);
  });
});

describe('people without an e-mail address', () => {
  it('gives each member the platform shares no address for an undeliverable one of their own, however alike their ids', async () => {
    const account = await t.deps.db.kysely
      .selectFrom('accounts')
      .select('id')
      .where('email', '=', OWNER)
      .executeTakeFirstOrThrow();
    const collection = await t.request({
      method: 'POST',
      url: '/v1/collections',
      key: (await apiKeyOf(OWNER)).key,
      json: { name: 'No mail' },
    });
    const prefix = 'urn:lti:user:0123456789abcdef0123456789abcdef:';
    const { created, people } = await upsertRosterPeople(t.deps, account.id, collection.json<{ id: string }>().id, [
      { externalId: `${prefix}1`, givenName: 'Ada', familyName: 'One', email: null },
      { externalId: `${prefix}2`, givenName: 'Bea', familyName: 'Two', email: null },
    ]);
    expect(created).toBe(2);
    const rows = await t.deps.db.kysely
      .selectFrom('users')
      .select('email')
      .where(
        'id',
        'in',
        people.map((p) => p.userId),
      )
      .execute();
    for (const row of rows) expect(row.email).toMatch(/@roster\.invalid$/);
    // Nobody is mailed at an address that reaches no one.
    const invited = await t.request({
      method: 'POST',
      url: `/v1/collections/${collection.json<{ id: string }>().id}/invitations`,
      key: (await apiKeyOf(OWNER)).key,
      json: { filter: 'not_recorded', dry_run: true },
    });
    expect(invited.json<{ queued: number }>().queued).toBe(0);
  });
});

describe('a platform that is down', () => {
  it('answers a launch whose key set cannot be read with a 502 page, not a 500', async () => {
    const down = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks`, keySetStatus: 503 });
    try {
      const account = await t.deps.db.kysely
        .selectFrom('accounts')
        .select('id')
        .where('email', '=', OWNER)
        .executeTakeFirstOrThrow();
      await createRegistration(t.deps, account.id, {
        issuer: down.issuer,
        client_id: down.clientId,
        deployment_ids: down.deploymentId,
        auth_url: down.authUrl,
        token_url: down.tokenUrl,
        jwks_url: down.jwksUrl,
      });
      const browser = newBrowser();
      down.nextLaunch({ user: learner });
      const query = new URLSearchParams({ iss: down.issuer, login_hint: learner.sub, target_link_uri: `${t.url}/lti/launch` });
      const login = await get(t, browser, `/lti/login?${query}`);
      await fetch(login.headers.location as string);
      const form = down.lastForm as { id_token: string; state: string };
      const res = await post(t, browser, '/lti/launch', { id_token: form.id_token, state: form.state });
      expect(res.statusCode).toBe(502);
      expect(titleOf(res.body)).toBe('The course platform did not answer');
    } finally {
      await down.close();
    }
  });
});

describe('rate limit', () => {
  it('answers a client past 300 requests a minute with a 429 page and Retry-After', async () => {
    const remoteAddress = '198.51.100.77';
    let last = await t.app.inject({ method: 'GET', url: '/lti/login', remoteAddress });
    for (let i = 0; i < 300 && last.statusCode !== 429; i += 1) {
      last = await t.app.inject({ method: 'GET', url: '/lti/login', remoteAddress });
    }
    expect(last.statusCode).toBe(429);
    expect(last.headers['retry-after']).toMatch(/^\d+$/);
    // The service's one convention (the IETF fields), not the plugin's X-RateLimit-* headers.
    expect(last.headers['ratelimit-policy']).toBe('"lti";q=300;w=60');
    expect(last.headers.ratelimit).toMatch(/^"lti";r=0;t=\d+$/);
    expect(last.headers['x-ratelimit-limit']).toBeUndefined();
    expect(titleOf(last.body)).toBe('Too many requests');
  });
});

describe('several processes', () => {
  it('uses a nonce once across two app instances on one database, even when both get the launch at once', async () => {
    const other = await createTestApp({ database: t.database, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    try {
      // Start a launch but stop before posting it: both instances are then handed the same post.
      const browser = newBrowser();
      platform.nextLaunch({ user: learner });
      const query = new URLSearchParams({
        iss: platform.issuer,
        login_hint: learner.sub,
        target_link_uri: `${t.url}/lti/launch`,
      });
      const login = await get(t, browser, `/lti/login?${query}`);
      expect(login.statusCode, login.body).toBe(302);
      await fetch(login.headers.location as string);
      const form = platform.lastForm as { id_token: string; state: string };
      const fields = { id_token: form.id_token, state: form.state };
      const answers = await Promise.all([
        post(t, { ...browser, cookies: new Map(browser.cookies) }, '/lti/launch', fields),
        post(other as TestApp & { url: string }, { ...browser, cookies: new Map(browser.cookies) }, '/lti/launch', fields),
      ]);
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([303, 409]);
    } finally {
      await other.app.close();
      await other.deps.notifications.close();
      await other.deps.rateLimits.close();
    }
  });
});

describe('the scheduled roster sync in several processes', () => {
  const forgetSyncs = () => t.deps.db.kysely.updateTable('lti_contexts').set({ synced_at: null, full_synced_at: null }).execute();
  const pagesRead = async (pass: () => Promise<unknown>) => {
    await forgetSyncs();
    const before = platform.log.pages.length;
    await pass();
    return platform.log.pages.slice(before).sort();
  };

  it('reads each course once when two processes run their passes at the same moment, and skips a course just synced', async () => {
    // Processes of one deployment share the key that seals the tool's keys: here, one DATA_DIR.
    const other = await createTestApp({
      database: t.database,
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', DATA_DIR: t.deps.config.dataDir },
    });
    try {
      const once = await pagesRead(() => syncAllRosters(t.deps, 60_000));
      expect(once.length).toBeGreaterThan(0);
      const together = await pagesRead(() => Promise.all([syncAllRosters(t.deps, 60_000), syncAllRosters(other.deps, 60_000)]));
      expect(together).toEqual(once);
      // Just synced by the pass above: the next pass within the gap reads nothing.
      const before = platform.log.pages.length;
      await syncAllRosters(other.deps, 60_000);
      expect(platform.log.pages.length).toBe(before);
    } finally {
      await other.app.close();
      await other.deps.notifications.close();
      await other.deps.rateLimits.close();
    }
  });
});

describe('editing and removing a registration', () => {
  it('adds a deployment id on the edit form, and removes a platform after a confirmation (both audited)', async () => {
    const list = await get(t, owner, '/dashboard/lti');
    const id = new RegExp(`/dashboard/lti/([0-9a-f-]{36})/edit`).exec(list.body)?.[1] as string;
    const form = await get(t, owner, `/dashboard/lti/${id}/edit`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain(platform.jwksUrl);
    const refusedBefore = await launch({ user: learner, deploymentId: 'deployment-2' });
    expect(refusedBefore.response.statusCode).toBe(422);

    const saved = await post(t, owner, `/dashboard/lti/${id}`, {
      csrf: owner.csrf,
      issuer: platform.issuer,
      client_id: platform.clientId,
      deployment_ids: `${platform.deploymentId}, deployment-2`,
      auth_url: platform.authUrl,
      token_url: platform.tokenUrl,
      jwks_url: platform.jwksUrl,
    });
    expect(saved.statusCode, saved.body).toBe(303);
    expect((await launch({ user: learner, deploymentId: 'deployment-2' })).response.statusCode).toBe(303);
    const badUrl = await post(t, owner, `/dashboard/lti/${id}`, {
      csrf: owner.csrf,
      issuer: platform.issuer,
      client_id: platform.clientId,
      deployment_ids: platform.deploymentId,
      auth_url: 'not a url',
      token_url: platform.tokenUrl,
      jwks_url: platform.jwksUrl,
    });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.body).toContain('aria-invalid="true"');

    const confirm = await get(t, owner, `/dashboard/lti/${id}/delete`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(`Remove ${platform.issuer}?`);
    const removed = await post(t, owner, `/dashboard/lti/${id}/delete`, { csrf: owner.csrf });
    expect(removed.statusCode).toBe(303);
    const afterwards = await t.app.inject({
      method: 'GET',
      url: `/lti/login?${new URLSearchParams({ iss: platform.issuer, login_hint: 'x', target_link_uri: `${t.url}/lti/launch` })}`,
    });
    expect(afterwards.statusCode).toBe(400);
    const audit = await get(t, owner, '/dashboard/audit');
    expect(audit.body).toContain('lti_registration.updated');
    expect(audit.body).toContain('lti_registration.deleted');
  });
});
