/**
 * LTI Dynamic Registration 1.0 against the mock platform (tests/helpers/lti-platform.ts): an owner
 * makes a registration URL on the LMS page, the platform opens it with its `openid_configuration`
 * and `registration_token`, the tool checks the configuration, asks for a confirmation, registers
 * and stores the platform, and the next launch with the client id it got works. Every refusal is a
 * page with a 4xx (the platform refusing: 502) and leaves nothing stored.
 *
 * The mock platform listens on http://127.0.0.1, so the tool here allows private URLs
 * (WEBHOOK_ALLOW_PRIVATE_URLS, as tests/lti.test.ts does); one app without it shows the SSRF rules
 * refusing such a configuration URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistrationLink } from '../src/features/lti/dynamic-registration.js';
import { createTestApp, startTestServer, type TestApp } from './helpers/app.js';
import { type Browserish, get, newBrowser, post, signIn } from './helpers/dashboard.js';
import { type MockPlatform, type NextLaunch, ROLES, startMockPlatform } from './helpers/lti-platform.js';

let t: TestApp & { url: string };
let platform: MockPlatform;
let owner: Browserish & { csrf: string };

const learner: NextLaunch['user'] = {
  sub: 'stud-1',
  givenName: 'Aoife',
  familyName: 'Byrne',
  email: 'aoife@uni.example',
  roles: [ROLES.learner],
};

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  platform = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks`, clientId: 'dynamic-client-7' });
  owner = await signIn(t, 'registrar@uni.example');
});
afterAll(async () => {
  await platform?.close();
  await t?.close();
});

/** Makes a registration URL on the LMS page, as an owner does, and returns its path. */
async function makeRegistrationUrl(browser: Browserish & { csrf: string } = owner): Promise<string> {
  const made = await post(t, browser, '/dashboard/lti/registration-urls', { csrf: browser.csrf });
  expect(made.statusCode, made.body).toBe(201);
  const url = /id="registration-url"[^>]*value="([^"]+)"/.exec(made.body)?.[1];
  if (!url) throw new Error('no registration URL on the page');
  expect(url.startsWith(`${t.url}/lti/register/vnltireg_`)).toBe(true);
  return new URL(url).pathname;
}

/** What the platform appends when it opens the URL. */
const opened = (path: string, of: MockPlatform = platform, configuration = of.openidConfigurationUrl) =>
  `${path}?${new URLSearchParams({ openid_configuration: configuration, registration_token: of.registrationToken })}`;

/** The confirmation page's form, posted as the administrator's click does. */
async function confirm(path: string, of: MockPlatform = platform) {
  const page = await get(t, newBrowser(), opened(path, of));
  expect(page.statusCode, page.body).toBe(200);
  return post(t, newBrowser(), path, {
    openid_configuration: of.openidConfigurationUrl,
    registration_token: of.registrationToken,
  });
}

const registrationsOf = (accountEmail: string) =>
  t.deps.db.kysely
    .selectFrom('lti_registrations')
    .innerJoin('accounts', 'accounts.id', 'lti_registrations.account_id')
    .select(['lti_registrations.client_id', 'lti_registrations.deployment_ids', 'lti_registrations.issuer'])
    .where('accounts.email', '=', accountEmail)
    .execute();

const linkOf = (path: string) =>
  t.deps.db.kysely
    .selectFrom('lti_registration_links')
    .selectAll()
    .where('prefix', '=', (path.split('/').pop() as string).slice(0, 'vnltireg_'.length + 12))
    .executeTakeFirstOrThrow();

const headingOf = (page: string) => /<h1>([^<]*)<\/h1>/.exec(page)?.[1];

describe('Dynamic Registration', () => {
  it('registers the platform from a pasted URL, and a launch with the client id it got works', async () => {
    const path = await makeRegistrationUrl();
    const page = await get(t, newBrowser(), opened(path));
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('registrar@uni.example');
    expect(page.body).toContain(platform.issuer);
    expect(page.headers['content-security-policy']).toContain(`frame-ancestors ${platform.url}`);
    expect(platform.registrations.accepted).toHaveLength(0);

    const done = await post(t, newBrowser(), path, {
      openid_configuration: platform.openidConfigurationUrl,
      registration_token: platform.registrationToken,
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(headingOf(done.body)).toBe('Registration complete, you can close this window');
    const csp = done.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(`frame-ancestors ${platform.url}`);
    expect(done.headers['x-frame-options']).toBeUndefined();
    expect(done.headers['cross-origin-opener-policy']).toBe('unsafe-none');
    expect(done.body).toMatch(/<script src="\/assets\/lti-registered\.[^"]+\.js"/);

    const sent = platform.registrations.accepted[0] as Record<string, unknown>;
    expect(sent).toMatchObject({
      application_type: 'web',
      response_types: ['id_token'],
      grant_types: ['implicit', 'client_credentials'],
      initiate_login_uri: `${t.url}/lti/login`,
      redirect_uris: [`${t.url}/lti/launch`],
      client_name: 'voicename',
      jwks_uri: `${t.url}/lti/jwks`,
      token_endpoint_auth_method: 'private_key_jwt',
    });
    expect(sent.scope).toContain('contextmembership.readonly');
    const tool = sent['https://purl.imsglobal.org/spec/lti-tool-configuration'] as { messages: { type: string }[] };
    expect(tool.messages.map((m) => m.type)).toEqual(['LtiResourceLinkRequest', 'LtiDeepLinkingRequest']);

    expect(await registrationsOf('registrar@uni.example')).toEqual([
      { client_id: 'dynamic-client-7', deployment_ids: JSON.stringify([platform.deploymentId]), issuer: platform.issuer },
    ]);
    const lms = await get(t, owner, '/dashboard/lti');
    expect(lms.body).toContain('dynamic-client-7');
    expect(lms.body).not.toContain('Unused URL');
    const audit = await get(t, owner, '/dashboard/audit');
    expect(audit.body).toContain('lti_registration_url.created');
    expect(audit.body).toContain('lti_registration.created');

    // The launch of a learner with the registered client id lands on their record page.
    platform.nextLaunch({ user: learner });
    const browser = newBrowser();
    const login = await get(
      t,
      browser,
      `/lti/login?${new URLSearchParams({
        iss: platform.issuer,
        login_hint: learner.sub,
        target_link_uri: `${t.url}/lti/launch`,
        client_id: platform.clientId,
        lti_deployment_id: platform.deploymentId,
      })}`,
    );
    expect(login.statusCode, login.body).toBe(302);
    expect((await fetch(login.headers.location as string)).status).toBe(200);
    const form = platform.lastForm as NonNullable<MockPlatform['lastForm']>;
    const launched = await post(t, browser, '/lti/launch', { id_token: form.id_token, state: form.state });
    expect(launched.statusCode, launched.body).toBe(303);
    expect(launched.headers.location).toMatch(/^\/r\//);
  });

  it('refuses a URL used a second time, before asking the platform anything', async () => {
    const path = await makeRegistrationUrl();
    const other = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks`, clientId: 'second-client' });
    try {
      expect((await confirm(path, other)).statusCode).toBe(200);
      const again = await get(t, newBrowser(), opened(path, other));
      expect(again.statusCode).toBe(403);
      expect(again.body).toContain('already used');
      const repost = await post(t, newBrowser(), path, { openid_configuration: other.openidConfigurationUrl });
      expect(repost.statusCode).toBe(403);
      expect(other.registrations.accepted).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('refuses an expired URL, a revoked one and a made-up one', async () => {
    const expired = await makeRegistrationUrl();
    await t.deps.db.kysely
      .updateTable('lti_registration_links')
      .set({ expires_at: '2000-01-01T00:00:00.000Z' })
      .where('prefix', '=', (await linkOf(expired)).prefix)
      .execute();
    const refused = await get(t, newBrowser(), opened(expired));
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('expired');

    const revoked = await makeRegistrationUrl();
    const lms = await get(t, owner, '/dashboard/lti');
    const revokeHref = /href="(\/dashboard\/lti\/registration-urls\/[0-9a-f-]+\/revoke)"/.exec(lms.body)?.[1] as string;
    const revokedAnswer = await post(t, owner, revokeHref, { csrf: owner.csrf });
    expect(revokedAnswer.statusCode).toBe(303);
    const afterRevoke = await get(t, newBrowser(), opened(revoked));
    expect(afterRevoke.statusCode).toBe(403);
    expect(afterRevoke.body).toContain('revoked');

    const madeUp = await get(t, newBrowser(), opened(`/lti/register/vnltireg_${'a'.repeat(44)}`));
    expect(madeUp.statusCode).toBe(403);
    expect(headingOf(madeUp.body)).toBe('Registration URL not accepted');
    expect(platform.registrations.accepted).toHaveLength(1);
  });

  it('registers into the organisation whose URL it is, never another', async () => {
    const other = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks`, clientId: 'college-client' });
    try {
      const college = await signIn(t, 'it@college.example', '203.0.113.20');
      const path = await makeRegistrationUrl(college);
      const page = await get(t, newBrowser(), opened(path, other));
      expect(page.body).toContain('it@college.example');
      expect((await confirm(path, other)).statusCode).toBe(200);
      expect((await registrationsOf('it@college.example')).map((r) => r.client_id)).toEqual(['college-client']);
      expect((await registrationsOf('registrar@uni.example')).map((r) => r.client_id)).not.toContain('college-client');
      expect((await get(t, owner, '/dashboard/lti')).body).not.toContain('college-client');
    } finally {
      await other.close();
    }
  });

  it('refuses a configuration whose issuer is not on the configuration URL’s host', async () => {
    const path = await makeRegistrationUrl();
    platform.dynamicRegistration.issuer = 'https://lms.elsewhere.example';
    try {
      const page = await get(t, newBrowser(), opened(path));
      expect(page.statusCode).toBe(400);
      expect(headingOf(page.body)).toBe('Platform configuration not accepted');
      expect(page.body).toContain('not on the host');
      const posted = await post(t, newBrowser(), path, { openid_configuration: platform.openidConfigurationUrl });
      expect(posted.statusCode).toBe(400);
    } finally {
      platform.dynamicRegistration = {};
    }
  });

  it('answers a platform refusing the registration with a 502 page, stores nothing and keeps the URL usable', async () => {
    const other = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks`, clientId: 'refused-client' });
    try {
      const path = await makeRegistrationUrl();
      other.dynamicRegistration.registrationStatus = 400;
      const refused = await confirm(path, other);
      expect(refused.statusCode).toBe(502);
      expect(refused.body).toContain('status 400');
      expect(refused.body).toContain('Nothing was registered');
      expect((await registrationsOf('registrar@uni.example')).map((r) => r.client_id)).not.toContain('refused-client');
      expect((await linkOf(path)).used_at).toBeNull();

      // The URL was not used up: the same registration succeeds once the platform accepts it.
      other.dynamicRegistration = {};
      expect((await confirm(path, other)).statusCode).toBe(200);
      expect((await registrationsOf('registrar@uni.example')).map((r) => r.client_id)).toContain('refused-client');
    } finally {
      await other.close();
    }
  });

  it('refuses a platform already registered (the same issuer and client id) with a 409, keeping the URL usable', async () => {
    const path = await makeRegistrationUrl();
    const again = await confirm(path);
    expect(again.statusCode).toBe(409);
    expect(headingOf(again.body)).toBe('Platform already registered');
    expect((await registrationsOf('registrar@uni.example')).filter((r) => r.client_id === 'dynamic-client-7')).toHaveLength(1);
    const link = await linkOf(path);
    expect(link.used_at).toBeNull();
  });

  it('refuses a registration token that cannot be a bearer token, before asking the platform', async () => {
    const path = await makeRegistrationUrl();
    const before = platform.registrations.accepted.length + platform.registrations.refused.length;
    const page = await get(
      t,
      newBrowser(),
      `${path}?${new URLSearchParams({ openid_configuration: platform.openidConfigurationUrl, registration_token: 'two words' })}`,
    );
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('not a bearer token');
    expect(platform.registrations.accepted.length + platform.registrations.refused.length).toBe(before);
  });

  it('refuses a registration without the platform’s bearer token (the platform answers 400), with a 502', async () => {
    const other = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks`, clientId: 'tokenless-client' });
    try {
      const path = await makeRegistrationUrl();
      const refused = await post(t, newBrowser(), path, { openid_configuration: other.openidConfigurationUrl });
      expect(refused.statusCode).toBe(502);
      expect(other.registrations.refused).toEqual(['registration token']);
    } finally {
      await other.close();
    }
  });
});

describe('Dynamic Registration under the SSRF rules', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await createTestApp();
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('refuses a configuration URL on a private network or on plain http', async () => {
    const { accountId } = await (async () => {
      const { email } = await strict.newAccount('sysadmin@uni.example');
      const row = await strict.deps.db.kysely
        .selectFrom('accounts')
        .select('id')
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      return { accountId: row.id };
    })();
    for (const configuration of ['https://10.0.0.7/.well-known/openid-configuration', platform.openidConfigurationUrl]) {
      const link = await createRegistrationLink(strict.deps, accountId, 'sysadmin@uni.example');
      const path = new URL(link.url).pathname;
      const page = await strict.app.inject({
        method: 'GET',
        url: `${path}?${new URLSearchParams({ openid_configuration: configuration })}`,
      });
      expect(page.statusCode, configuration).toBe(400);
      expect(page.body).toContain('configuration URL (openid_configuration) is not usable');
    }
  });
});
