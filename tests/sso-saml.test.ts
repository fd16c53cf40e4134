/**
 * SAML 2.0 sign-in through the real app against a test IdP (tests/helpers/saml-idp.ts) whose
 * responses are signed with its own key and certificate: SP-initiated sign-in end to end (the
 * HTTP-Redirect AuthnRequest, the cross-site POST to the ACS without cookies, the same-site step
 * that binds it to the browser) with just-in-time membership and the mapped role; every refusal
 * (unsigned, another key, expired, wrong audience or recipient, replayed, unsolicited when not
 * allowed, an address outside the verified domains); IdP-initiated when allowed; the metadata;
 * settings per role.
 */
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSsoDomain, verifySsoDomain } from '../src/features/sso/domain-service.js';
import { SSO_STARTS_PER_HOUR } from '../src/features/sso/oidc-service.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import {
  type Browserish,
  csrfOf,
  get,
  inviteAndJoin,
  lastSignInLink,
  newBrowser,
  pathOf,
  post,
  signIn,
} from './helpers/dashboard.js';
import { type SamlResponseOptions, startSamlIdp, type TestSamlIdp } from './helpers/saml-idp.js';

const BASE = 'http://localhost:3000';
const ACS = `${BASE}/dashboard/sso/saml/acs`;
const SP_ENTITY_ID = `${BASE}/dashboard/sso/saml/metadata`;
const OWNER = 'owner@saml-university.test';

let t: TestApp;
let idp: TestSamlIdp;
let owner: Browserish & { csrf: string };
let accountId: string;

const settings = (overrides: Record<string, string> = {}) => ({
  csrf: owner.csrf,
  idp_entity_id: idp.entityId,
  idp_sso_url: idp.ssoUrl,
  idp_certificate: idp.certificate,
  email_attribute: 'email',
  group_attribute: 'groups',
  role_mapping: 'staff-admins = admin\nlibrary = viewer',
  default_role: 'viewer',
  ...overrides,
});

beforeAll(async () => {
  idp = await startSamlIdp({ acsUrl: ACS, spEntityId: SP_ENTITY_ID });
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  owner = await signIn(t, OWNER);
  accountId = (await t.deps.db.kysely.selectFrom('accounts').select('id').where('email', '=', OWNER).executeTakeFirstOrThrow())
    .id;
  const saved = await post(t, owner, '/dashboard/sso/saml', settings());
  expect(saved.statusCode).toBe(303);
  // DNS cannot be published on this machine: the TXT proof is read from a resolver the test passes.
  const domain = await addSsoDomain(t.deps, accountId, 'saml-university.test');
  await verifySsoDomain(t.deps, accountId, domain.id, { resolveTxt: async () => [[domain.token]] });
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
});

/** Asks to sign in with `email`; returns the AuthnRequest's ID from the IdP address the app sends the browser to. */
async function startSaml(browser: Browserish, email: string): Promise<string> {
  const form = await get(t, browser, '/dashboard/sign-in');
  const asked = await post(t, browser, '/dashboard/sign-in', { email, csrf: csrfOf(form.body) });
  expect(asked.statusCode).toBe(200);
  const next = new URL(
    (/id="sso-continue" class="button primary" href="([^"]+)"/.exec(asked.body)?.[1] ?? '').replaceAll('&amp;', '&'),
  );
  expect(`${next.origin}${next.pathname}`).toBe(idp.ssoUrl);
  const request = inflateRawSync(Buffer.from(next.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  expect(request).toContain(`AssertionConsumerServiceURL="${ACS}"`);
  expect(request).toContain(`>${SP_ENTITY_ID}</saml:Issuer>`);
  return /\sID="([^"]+)"/.exec(request)?.[1] as string;
}

/** The IdP's page posts the response to the ACS: cross-site, so the browser sends no Lax cookie. */
const postToAcs = (samlResponse: string, ip = '198.51.100.40') =>
  t.app.inject({
    method: 'POST',
    url: '/dashboard/sso/saml/acs',
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
    payload: new URLSearchParams({ SAMLResponse: samlResponse }).toString(),
  });

/** The whole way back: the ACS, then the browser's same-site step that opens the session. */
async function answer(browser: Browserish, response: SamlResponseOptions) {
  const acs = await postToAcs(idp.response(response), browser.ip);
  if (acs.statusCode !== 303) return acs;
  expect(acs.headers['set-cookie']).toBeUndefined();
  return get(t, browser, String(acs.headers.location));
}

const memberOf = (email: string) =>
  t.deps.db.kysely
    .selectFrom('account_members')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('email', '=', email)
    .executeTakeFirst();

const expectRefused = (res: { statusCode: number; body: string }, message: RegExp) => {
  expect(res.statusCode).toBe(400);
  expect(res.body).toContain('Single sign-on refused');
  expect(res.body).toMatch(message);
  expect(res.body).toContain('href="/dashboard/sign-in"');
};

describe('SP-initiated sign-in', () => {
  it('signs a new member in through the IdP with the role of their group, just in time', async () => {
    const browser = newBrowser('198.51.100.41');
    const requestId = await startSaml(browser, 'ada@saml-university.test');
    const done = await answer(browser, { email: 'ada@saml-university.test', groups: ['staff-admins'], inResponseTo: requestId });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/dashboard');
    const overview = await get(t, browser, '/dashboard');
    expect(overview.statusCode).toBe(200);
    expect(overview.body).toContain('<span id="signed-in-as">ada@saml-university.test</span>');
    expect(await memberOf('ada@saml-university.test')).toMatchObject({ role: 'admin', invited_by: 'single sign-on' });
    const audit = await t.deps.db.kysely.selectFrom('audit_log').selectAll().where('account_id', '=', accountId).execute();
    expect(audit.map((entry) => entry.action)).toContain('member.joined_by_sso');
  });

  it('gives the default role to a member in no mapped group, and follows the group attribute at the next sign-in', async () => {
    for (const [groups, role] of [
      [[], 'viewer'],
      [['staff-admins', 'library'], 'admin'],
    ] as const) {
      const browser = newBrowser('198.51.100.42');
      const requestId = await startSaml(browser, 'grace@saml-university.test');
      const done = await answer(browser, { email: 'grace@saml-university.test', groups: [...groups], inResponseTo: requestId });
      expect(done.statusCode).toBe(303);
      expect((await memberOf('grace@saml-university.test'))?.role).toBe(role);
    }
  });

  it('refuses a response redeemed in another browser than the one that started the sign-in', async () => {
    const requestId = await startSaml(newBrowser('198.51.100.43'), 'elsewhere@saml-university.test');
    const refused = await answer(newBrowser('198.51.100.44'), {
      email: 'elsewhere@saml-university.test',
      inResponseTo: requestId,
    });
    expectRefused(refused, /another browser/);
    expect(await memberOf('elsewhere@saml-university.test')).toBeUndefined();
  });
});

describe('refusals', () => {
  const refusedWith = async (email: string, response: Omit<SamlResponseOptions, 'email' | 'inResponseTo'>, message: RegExp) => {
    const browser = newBrowser('198.51.100.45');
    const requestId = await startSaml(browser, email);
    expectRefused(await answer(browser, { email, inResponseTo: requestId, ...response }), message);
    expect(browser.cookies.has('vn_session')).toBe(false);
    expect(await memberOf(email)).toBeUndefined();
  };

  it('refuses an unsigned assertion, and one signed by a key that is not the IdP’s', async () => {
    await refusedWith('unsigned@saml-university.test', { signedBy: 'none' }, /Invalid signature/);
    await refusedWith('forged@saml-university.test', { signedBy: 'other', groups: ['staff-admins'] }, /Invalid signature/);
  });

  it('refuses an expired assertion', async () => {
    // node-saml checks the bearer confirmation's NotOnOrAfter first, and names it.
    await refusedWith('late@saml-university.test', { validForMs: -10 * 60_000 }, /No valid subject confirmation/);
  });

  it('refuses an assertion for another audience, or addressed to another ACS', async () => {
    await refusedWith(
      'aud@saml-university.test',
      { audience: 'https://other-sp.example/metadata' },
      /SAML assertion audience mismatch/,
    );
    await refusedWith(
      'recipient@saml-university.test',
      { recipient: 'https://other-sp.example/acs' },
      /not addressed to this service/,
    );
  });

  it('refuses a response posted to us but addressed (Destination) to another service', async () => {
    await refusedWith(
      'destination@saml-university.test',
      { destination: 'https://other-sp.example/acs' },
      /not addressed to this service/,
    );
  });

  it('refuses a response to a request voicename never sent', async () => {
    const refused = await postToAcs(idp.response({ email: 'forged@saml-university.test', inResponseTo: '_never-sent' }));
    expectRefused(refused, /expired or was already used/);
    expect(await memberOf('forged@saml-university.test')).toBeUndefined();
  });

  it('refuses a replayed response: the AuthnRequest and the assertion are each used once', async () => {
    const browser = newBrowser('198.51.100.46');
    const requestId = await startSaml(browser, 'replay@saml-university.test');
    const response = idp.response({ email: 'replay@saml-university.test', inResponseTo: requestId });
    expect((await postToAcs(response)).statusCode).toBe(303);
    expectRefused(await postToAcs(response), /expired or was already used/);
  });

  it('refuses an e-mail address outside the organisation’s verified domains', async () => {
    const browser = newBrowser('198.51.100.47');
    const requestId = await startSaml(browser, 'someone@saml-university.test');
    const refused = await answer(browser, { email: 'mallory@elsewhere.test', groups: ['staff-admins'], inResponseTo: requestId });
    expectRefused(refused, /elsewhere\.test is not a verified domain of this organisation/);
    expect(await memberOf('mallory@elsewhere.test')).toBeUndefined();
  });

  it('refuses an unsolicited (IdP-initiated) response while the organisation does not allow them', async () => {
    expectRefused(
      await postToAcs(idp.response({ email: 'unsolicited@saml-university.test' })),
      /not accepted for this organisation/,
    );
    expect(await memberOf('unsolicited@saml-university.test')).toBeUndefined();
  });

  it('answers a response that is not SAML with the refusal page, not a server error', async () => {
    expectRefused(await postToAcs('bm90IHNhbWw='), /no SAML response/);
    expectRefused(await postToAcs(''), /no SAML response/);
  });
});

describe('IdP-initiated sign-in, when allowed', () => {
  it('signs the person in from an unsolicited response, and refuses the same assertion a second time', async () => {
    expect((await post(t, owner, '/dashboard/sso/saml', settings({ allow_idp_initiated: 'on' }))).statusCode).toBe(303);
    try {
      const response = idp.response({ email: 'portal@saml-university.test', groups: ['library'] });
      const browser = newBrowser('198.51.100.48');
      const acs = await postToAcs(response);
      expect(acs.statusCode).toBe(303);
      const done = await get(t, browser, String(acs.headers.location));
      expect(done.statusCode).toBe(303);
      expect((await memberOf('portal@saml-university.test'))?.role).toBe('viewer');
      expectRefused(await postToAcs(response), /already used: a replayed sign-in is refused/);
    } finally {
      expect((await post(t, owner, '/dashboard/sso/saml', settings())).statusCode).toBe(303);
    }
  });
});

describe('settings and metadata', () => {
  it('serves the service provider metadata with the entity id and the HTTP-POST ACS', async () => {
    const metadata = await t.app.inject({ method: 'GET', url: '/dashboard/sso/saml/metadata' });
    expect(metadata.statusCode).toBe(200);
    expect(metadata.headers['content-type']).toContain('application/samlmetadata+xml');
    expect(metadata.body).toContain(`entityID="${SP_ENTITY_ID}"`);
    expect(metadata.body).toContain('WantAssertionsSigned="true"');
    expect(metadata.body).toContain(`Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${ACS}"`);
  });

  it('shows what to paste into the IdP, and says the organisation signs in with SAML', async () => {
    const page = await get(t, owner, '/dashboard/sso');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`value="${SP_ENTITY_ID}"`);
    expect(page.body).toContain(`value="${ACS}"`);
    expect(page.body).toContain('Members sign in with <strong>SAML 2.0</strong>');
  });

  it('refuses a certificate that is not X.509 PEM, and keeps what was typed', async () => {
    const refused = await post(
      t,
      owner,
      '/dashboard/sso/saml',
      settings({ idp_certificate: 'not a certificate', idp_entity_id: 'kept-entity' }),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('id="saml-error"');
    expect(refused.body).toContain('must be an X.509 certificate in PEM');
    expect(refused.body).toContain('value="kept-entity"');
    const row = await t.deps.db.kysely
      .selectFrom('sso_connections')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    expect(row?.issuer).toBe(idp.entityId);
  });

  it('audits a change of the SAML settings', async () => {
    expect((await post(t, owner, '/dashboard/sso/saml', settings({ default_role: 'admin' }))).statusCode).toBe(303);
    expect((await post(t, owner, '/dashboard/sso/saml', settings())).statusCode).toBe(303);
    const entries = await t.deps.db.kysely
      .selectFrom('audit_log')
      .select('detail')
      .where('account_id', '=', accountId)
      .where('action', '=', 'sso.settings_saved')
      .execute();
    expect(entries.map((entry) => entry.detail)).toContain('{"protocol":"saml","changed":"defaultRole"}');
  });

  it('lets viewers neither see nor change single sign-on', async () => {
    const viewer = await inviteAndJoin(t, owner, 'viewer@partner.test', 'viewer');
    expect((await get(t, viewer, '/dashboard/sso')).statusCode).toBe(403);
    const changed = await post(t, viewer, '/dashboard/sso/saml', {
      ...settings({ allow_idp_initiated: 'on' }),
      csrf: viewer.csrf,
    });
    expect(changed.statusCode).toBe(403);
    const row = await t.deps.db.kysely
      .selectFrom('sso_connections')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    expect(row?.saml_allow_idp_initiated).toBe(0);
  });
});

describe('SSO required and the rate limit, as for OpenID Connect', () => {
  const askLink = async (ip: string, email: string) => {
    const browser = newBrowser(ip);
    const form = await get(t, browser, '/dashboard/sign-in?link=1');
    return { browser, res: await post(t, browser, '/dashboard/sign-in', { email, method: 'link', csrf: csrfOf(form.body) }) };
  };

  it('refuses a member an e-mailed link while SAML is required, and keeps the owner’s break-glass link', async () => {
    expect((await post(t, owner, '/dashboard/sso/saml', settings({ sso_required: 'on' }))).statusCode).toBe(303);
    try {
      const member = await askLink('198.51.100.60', 'ada@saml-university.test');
      expect(member.res.statusCode).toBe(403);
      expect(member.res.body).toContain('Your organisation requires single sign-on');
      const glass = await askLink('198.51.100.61', OWNER);
      expect(glass.res.statusCode).toBe(200);
      expect((await get(t, glass.browser, pathOf(lastSignInLink(t, OWNER)))).headers.location).toBe('/dashboard');
    } finally {
      expect((await post(t, owner, '/dashboard/sso/saml', settings())).statusCode).toBe(303);
    }
  });

  it('counts SAML sign-ins started by one client in the same hourly limit (429 with Retry-After)', async () => {
    const browser = newBrowser('198.51.100.99');
    for (let i = 0; i < SSO_STARTS_PER_HOUR; i++) await startSaml(browser, `burst${i}@saml-university.test`);
    const form = await get(t, browser, '/dashboard/sign-in');
    const limited = await post(t, browser, '/dashboard/sign-in', {
      email: 'burst@saml-university.test',
      csrf: csrfOf(form.body),
    });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3000);
  });
});

describe('several processes', () => {
  it('accepts a response in another app instance than the one that sent the request, once, even when both get it at once', async () => {
    const other = await createTestApp({ database: t.database, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    try {
      const browser = newBrowser('198.51.100.70');
      const requestId = await startSaml(browser, 'twice@saml-university.test');
      const response = idp.response({ email: 'twice@saml-university.test', groups: ['library'], inResponseTo: requestId });
      const payload = new URLSearchParams({ SAMLResponse: response }).toString();
      const headers = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' };
      const answers = await Promise.all(
        [t, other].map((app) => app.app.inject({ method: 'POST', url: '/dashboard/sso/saml/acs', headers, payload })),
      );
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([303, 400]);
      const accepted = answers.find((answer) => answer.statusCode === 303);
      const done = await get(other, browser, String(accepted?.headers.location));
      expect(done.headers.location).toBe('/dashboard');
      expect((await memberOf('twice@saml-university.test'))?.role).toBe('viewer');
    } finally {
      await other.app.close();
      await other.deps.notifications.close();
      await other.deps.rateLimits.close();
    }
  });
});
