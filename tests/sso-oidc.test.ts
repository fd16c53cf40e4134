/**
 * OpenID Connect sign-in through the real app against a hand-made provider on loopback
 * (tests/helpers/oidc-test-issuer.ts), whose ID tokens each test shapes: the flow end to end with
 * PKCE, just-in-time membership and roles from the group claim, and every refusal (replayed or
 * foreign state, nonce, audience, expiry, unverified or foreign e-mail), settings per organisation
 * and per role, the client secret kept out of pages, logs and the audit log and sealed in the
 * database, and "SSO required" with the owner's break-glass link.
 *
 * The provider runs on 127.0.0.1 over http, so the app runs with WEBHOOK_ALLOW_PRIVATE_URLS, the
 * development switch of the SSRF-safe client that webhooks use; one test shows the issuer refused without it.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { randomToken } from '../src/lib/ids.js';
import { loadSecretBox } from '../src/lib/secret-box.js';
import { addSsoDomain, verifySsoDomain } from '../src/features/sso/domain-service.js';
import { SSO_STARTS_PER_HOUR } from '../src/features/sso/oidc-service.js';
import { saveSsoSettings } from '../src/features/sso/service.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import {
  askForLink,
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
import { startTestIssuer, type TestIssuer } from './helpers/oidc-test-issuer.js';

let t: TestApp;
let idp: TestIssuer;
const lines: string[] = [];
const OWNER = 'owner@university.test';
let owner: Browserish & { csrf: string };
let accountId: string;

const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});

beforeAll(async () => {
  idp = await startTestIssuer();
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, overrides: { logger: createLogger('debug', sink) } });
  owner = await signIn(t, OWNER);
  accountId = (await t.deps.db.kysely.selectFrom('accounts').select('id').where('email', '=', OWNER).executeTakeFirstOrThrow())
    .id;
  const saved = await post(t, owner, '/dashboard/sso', {
    csrf: owner.csrf,
    issuer: idp.issuer,
    client_id: idp.clientId,
    client_secret: idp.clientSecret,
    group_claim: 'groups',
    role_mapping: 'staff-admins = admin\nlibrary = viewer',
    default_role: 'viewer',
  });
  expect(saved.statusCode).toBe(303);
  // DNS cannot be published on this machine: the TXT proof is read from a resolver the test passes.
  const domain = await addSsoDomain(t.deps, accountId, 'university.test');
  await verifySsoDomain(t.deps, accountId, domain.id, { resolveTxt: async () => [[domain.token]] });
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
});

/** Asks to sign in with `email` in `browser`; returns the provider's authorization URL the app redirected to. */
async function startSso(browser: Browserish, email: string): Promise<URL> {
  const form = await get(t, browser, '/dashboard/sign-in');
  const asked = await post(t, browser, '/dashboard/sign-in', { email, csrf: csrfOf(form.body) });
  expect(asked.statusCode).toBe(200);
  const next = /id="sso-continue" class="button primary" href="([^"]+)"/.exec(asked.body)?.[1] as string;
  expect(asked.body).toContain(`<meta http-equiv="refresh" content="0; url=${next}">`);
  return new URL(next.replaceAll('&amp;', '&'));
}

/** The provider's answer: a code whose ID token carries `claims` (and `override`s of the standard claims). */
function issueCode(authorization: URL, claims: Record<string, unknown>, override?: Record<string, unknown>): string {
  const code = randomToken(16);
  idp.codes.set(code, {
    nonce: authorization.searchParams.get('nonce') as string,
    codeChallenge: authorization.searchParams.get('code_challenge') as string,
    claims,
    ...(override ? { override } : {}),
  });
  return code;
}

const callback = (browser: Browserish, authorization: URL, code: string) =>
  get(t, browser, `/dashboard/sso/callback?code=${code}&state=${authorization.searchParams.get('state')}`);

const memberOf = (email: string) =>
  t.deps.db.kysely
    .selectFrom('account_members')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('email', '=', email)
    .executeTakeFirst();

async function ssoSignIn(email: string, groups: string[]): Promise<Browserish> {
  const browser = newBrowser('198.51.100.20');
  const authorization = await startSso(browser, email);
  const done = await callback(browser, authorization, issueCode(authorization, { email, email_verified: true, groups }));
  expect(done.statusCode).toBe(303);
  expect(done.headers.location).toBe('/dashboard');
  return browser;
}

describe('signing in through the identity provider', () => {
  it('sends a verified domain to the provider with PKCE, state and nonce, and signs in a new member with the mapped role', async () => {
    const browser = newBrowser('198.51.100.20');
    const authorization = await startSso(browser, 'ada@university.test');
    expect(authorization.origin).toBe(idp.issuer);
    expect(authorization.pathname).toBe('/authorize');
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      client_id: idp.clientId,
      response_type: 'code',
      scope: 'openid email profile',
      redirect_uri: 'http://localhost:3000/dashboard/sso/callback',
      code_challenge_method: 'S256',
      login_hint: 'ada@university.test',
    });
    expect(authorization.searchParams.get('state')).toMatch(/^[\w-]{30,}$/);
    expect(authorization.searchParams.get('nonce')).toMatch(/^[\w-]{30,}$/);

    const code = issueCode(authorization, { email: 'ada@university.test', email_verified: true, groups: ['staff-admins'] });
    const done = await callback(browser, authorization, code);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/dashboard');
    expect(idp.tokenRequests.at(-1)?.get('code_verifier')).toMatch(/^[\w-]{43,}$/);
    const overview = await get(t, browser, '/dashboard');
    expect(overview.statusCode).toBe(200);
    expect(overview.body).toContain('<span id="signed-in-as">ada@university.test</span>');
    expect(await memberOf('ada@university.test')).toMatchObject({ role: 'admin', invited_by: 'single sign-on' });
    const audit = await t.deps.db.kysely.selectFrom('audit_log').selectAll().where('account_id', '=', accountId).execute();
    expect(audit.map((entry) => entry.action)).toContain('member.joined_by_sso');
  });

  it('gives a member in no mapped group the default role, and the role follows the group claim at each sign-in', async () => {
    await ssoSignIn('grace@university.test', []);
    expect((await memberOf('grace@university.test'))?.role).toBe('viewer');
    await ssoSignIn('grace@university.test', ['staff-admins']);
    expect((await memberOf('grace@university.test'))?.role).toBe('admin');
    await ssoSignIn('grace@university.test', ['library']);
    expect((await memberOf('grace@university.test'))?.role).toBe('viewer');
  });

  it('takes Entra ID’s xms_edov as the provider vouching for the address (Entra sends no email_verified)', async () => {
    const browser = newBrowser('198.51.100.27');
    const authorization = await startSso(browser, 'entra@university.test');
    const done = await callback(
      browser,
      authorization,
      issueCode(authorization, { email: 'entra@university.test', xms_edov: true }),
    );
    expect(done.statusCode).toBe(303);
    expect((await memberOf('entra@university.test'))?.role).toBe('viewer');
  });

  it('reads the provider’s metadata when the settings are saved, and not again at either step of the sign-ins that follow', async () => {
    const before = idp.discoveryReads();
    const saved = await post(t, owner, '/dashboard/sso', {
      csrf: owner.csrf,
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret: '',
      group_claim: 'groups',
      role_mapping: 'staff-admins = admin\nlibrary = viewer',
      default_role: 'viewer',
    });
    expect(saved.statusCode).toBe(303);
    expect(idp.discoveryReads()).toBe(before + 1);
    for (const email of ['cached-1@university.test', 'cached-2@university.test']) {
      const browser = newBrowser('198.51.100.31');
      const authorization = await startSso(browser, email);
      const done = await callback(browser, authorization, issueCode(authorization, { email, email_verified: true }));
      expect(done.statusCode).toBe(303);
    }
    expect(idp.discoveryReads()).toBe(before + 1);
  });

  it('never changes an owner’s role', async () => {
    await ssoSignIn(OWNER, ['library']);
    expect((await memberOf(OWNER))?.role).toBe('owner');
  });
});

describe('refusals', () => {
  const refusedWith = async (claims: Record<string, unknown>, override: Record<string, unknown> | undefined, message: RegExp) => {
    const browser = newBrowser('198.51.100.21');
    const authorization = await startSso(browser, String(claims.email));
    const refused = await callback(browser, authorization, issueCode(authorization, claims, override));
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Single sign-on refused');
    expect(refused.body).toMatch(message);
    expect(refused.body).toContain('href="/dashboard/sign-in"');
    expect(browser.cookies.has('vn_session')).toBe(false);
  };
  const good = (email: string) => ({ email, email_verified: true, groups: [] });

  it('refuses a replayed state, and a state from another browser', async () => {
    const browser = newBrowser('198.51.100.22');
    const authorization = await startSso(browser, 'replay@university.test');
    // The same browser, as it was before the first callback (its sign-in binding cookie intact).
    const again = newBrowser('198.51.100.22');
    again.cookies = new Map(browser.cookies);
    const first = await callback(browser, authorization, issueCode(authorization, good('replay@university.test')));
    expect(first.statusCode).toBe(303);
    const sameBrowserAgain = await callback(again, authorization, issueCode(authorization, good('replay@university.test')));
    expect(sameBrowserAgain.statusCode).toBe(400);
    expect(sameBrowserAgain.body).toContain('already used');

    const started = newBrowser('198.51.100.23');
    const other = await startSso(started, 'other-browser@university.test');
    const elsewhere = await callback(newBrowser('198.51.100.24'), other, issueCode(other, good('other-browser@university.test')));
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.body).toContain('Single sign-on refused');
    expect(await memberOf('other-browser@university.test')).toBeUndefined();
  });

  it('refuses an ID token with another nonce, for another audience, or expired', async () => {
    await refusedWith(good('nonce@university.test'), { nonce: 'not-the-one-we-sent' }, /nonce/);
    await refusedWith(good('aud@university.test'), { aud: 'some-other-client' }, /aud/);
    const past = Math.floor(Date.now() / 1000) - 3600;
    await refusedWith(good('late@university.test'), { iat: past - 300, exp: past }, /exp/);
    for (const email of ['nonce@university.test', 'aud@university.test', 'late@university.test']) {
      expect(await memberOf(email)).toBeUndefined();
    }
  });

  it('refuses an e-mail address the provider did not verify, or outside the organisation’s verified domains', async () => {
    await refusedWith({ email: 'unverified@university.test', email_verified: false }, undefined, /email_verified/);
    await refusedWith({ email: 'unverified2@university.test' }, undefined, /email_verified/);
    // The provider answers for the organisation, but with an address in a domain it never proved.
    const browser = newBrowser('198.51.100.25');
    const authorization = await startSso(browser, 'someone@university.test');
    const foreign = await callback(
      browser,
      authorization,
      issueCode(authorization, { email: 'mallory@elsewhere.test', email_verified: true, groups: ['staff-admins'] }),
    );
    expect(foreign.statusCode).toBe(400);
    expect(foreign.body).toContain('elsewhere.test is not a verified domain of this organisation');
    expect(await memberOf('mallory@elsewhere.test')).toBeUndefined();
  });

  it('lets one client start at most 20 sign-ins an hour (429 with Retry-After)', async () => {
    const browser = newBrowser('198.51.100.99');
    for (let i = 0; i < SSO_STARTS_PER_HOUR; i++) await startSso(browser, `burst${i}@university.test`);
    const form = await get(t, browser, '/dashboard/sign-in');
    const limited = await post(t, browser, '/dashboard/sign-in', { email: 'burst@university.test', csrf: csrfOf(form.body) });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3000);
    expect(limited.body).toContain('Too many sign-ins were started.');
    // Another client is not held back.
    await startSso(newBrowser('198.51.100.98'), 'burst@university.test');
  });

  it('does not route an unverified domain to the provider', async () => {
    await addSsoDomain(t.deps, accountId, 'pending.test');
    const browser = newBrowser('198.51.100.26');
    expect((await askForLink(t, browser, 'someone@pending.test')).body).toContain('Check your e-mail');
  });
});

describe('settings', () => {
  it('shows the redirect URI; the check of an unpublished domain says what it found', async () => {
    const page = await get(t, owner, '/dashboard/sso');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('value="http://localhost:3000/dashboard/sso/callback"');
    const added = await post(t, owner, '/dashboard/sso/domains', { csrf: owner.csrf, domain: 'Unpublished.Test' });
    expect(added.statusCode).toBe(303);
    const row = await t.deps.db.kysely
      .selectFrom('sso_domains')
      .selectAll()
      .where('domain', '=', 'unpublished.test')
      .executeTakeFirstOrThrow();
    const check = await post(t, owner, `/dashboard/sso/domains/${row.id}/verify`, { csrf: owner.csrf });
    expect(check.statusCode).toBe(400);
    expect(check.body).toContain('unpublished.test is not verified: no TXT record holds the token');
    const bad = await post(t, owner, '/dashboard/sso/domains', { csrf: owner.csrf, domain: 'not a domain' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('is not a domain name');
  });

  it('refuses an issuer that does not publish OpenID Connect metadata, and a private issuer without the development switch', async () => {
    const refused = await post(t, owner, '/dashboard/sso', {
      csrf: owner.csrf,
      issuer: `${idp.issuer}/nowhere`,
      client_id: idp.clientId,
      client_secret: '',
      group_claim: 'groups',
      role_mapping: '',
      default_role: 'viewer',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('metadata could not be read');
    const strict = { ...t.deps, config: { ...t.config, webhooks: { ...t.config.webhooks, allowPrivateUrls: false } } };
    await expect(
      saveSsoSettings(strict, accountId, {
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: 'x',
        groupClaim: 'groups',
        roleMapping: '',
        defaultRole: 'viewer',
        ssoRequired: false,
      }),
    ).rejects.toMatchObject({ code: 'sso_discovery_failed', message: expect.stringContaining('Issuer URL refused') });
  });

  it('keeps another organisation’s settings and domains out of reach (404)', async () => {
    const other = await signIn(t, 'someone@another.test', '203.0.113.90');
    const page = await get(t, other, '/dashboard/sso');
    expect(page.body).not.toContain('university.test');
    expect(page.body).not.toContain(idp.clientId);
    const domain = await t.deps.db.kysely
      .selectFrom('sso_domains')
      .selectAll()
      .where('domain', '=', 'university.test')
      .executeTakeFirstOrThrow();
    expect((await post(t, other, `/dashboard/sso/domains/${domain.id}/verify`, { csrf: other.csrf })).statusCode).toBe(404);
    expect((await post(t, other, `/dashboard/sso/domains/${domain.id}/remove`, { csrf: other.csrf })).statusCode).toBe(404);
    expect(
      await t.deps.db.kysely.selectFrom('sso_domains').select('id').where('id', '=', domain.id).executeTakeFirst(),
    ).toBeDefined();
  });

  it('lets viewers neither see nor change single sign-on', async () => {
    const viewer = await inviteAndJoin(t, owner, 'viewer@partner.test', 'viewer');
    expect((await get(t, viewer, '/dashboard/sso')).statusCode).toBe(403);
    const changed = await post(t, viewer, '/dashboard/sso', {
      csrf: viewer.csrf,
      issuer: 'https://evil.example',
      client_id: 'x',
      client_secret: 'y',
      group_claim: 'groups',
      role_mapping: '',
      default_role: 'admin',
    });
    expect(changed.statusCode).toBe(403);
    expect((await post(t, viewer, '/dashboard/sso/remove', { csrf: viewer.csrf })).statusCode).toBe(403);
    expect((await post(t, viewer, '/dashboard/sso/domains', { csrf: viewer.csrf, domain: 'evil.example' })).statusCode).toBe(403);
  });

  it('never shows or logs the client secret, and keeps it encrypted in the database', async () => {
    const page = await get(t, owner, '/dashboard/sso');
    expect(page.body).toContain(idp.clientId);
    expect(page.body).not.toContain(idp.clientSecret);
    const audit = await get(t, owner, '/dashboard/audit');
    expect(audit.body).toContain('sso.settings_saved');
    expect(audit.body).not.toContain(idp.clientSecret);
    const entries = await t.deps.db.kysely.selectFrom('audit_log').selectAll().execute();
    expect(JSON.stringify(entries)).not.toContain(idp.clientSecret);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(idp.clientSecret);

    const row = await t.deps.db.kysely
      .selectFrom('sso_connections')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(idp.clientSecret);
    expect(row.client_secret_sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    const box = loadSecretBox(t.config);
    expect(box.open(row.client_secret_sealed, `sso-client-secret:${accountId}`)).toBe(idp.clientSecret);
    // Sealed for this organisation only: moved to another row, it does not open.
    expect(() => box.open(row.client_secret_sealed, 'sso-client-secret:another-organisation')).toThrow();
  });
});

describe('SSO required', () => {
  it('refuses e-mailed links to members, ends their link sessions, and keeps the owner’s break-glass link', async () => {
    const partner = await inviteAndJoin(t, owner, 'partner@partner.test', 'admin', '203.0.113.77');
    const required = await post(t, owner, '/dashboard/sso', {
      csrf: owner.csrf,
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret: '',
      group_claim: 'groups',
      role_mapping: 'staff-admins = admin\nlibrary = viewer',
      default_role: 'viewer',
      sso_required: 'on',
    });
    expect(required.statusCode).toBe(303);
    // The member's session from an invitation link no longer acts in the organisation.
    expect((await get(t, partner, '/dashboard')).headers.location).toBe('/dashboard/organisations');

    const browser = newBrowser('203.0.113.78');
    const form = await get(t, browser, '/dashboard/sign-in?link=1');
    const refused = await post(t, browser, '/dashboard/sign-in', {
      email: 'partner@partner.test',
      method: 'link',
      csrf: csrfOf(form.body),
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('Your organisation requires single sign-on');

    // A member of a verified domain goes to the provider; with ?link=1 they are refused a link too.
    const ada = newBrowser('203.0.113.79');
    const adaForm = await get(t, ada, '/dashboard/sign-in?link=1');
    const adaLink = await post(t, ada, '/dashboard/sign-in', {
      email: 'ada@university.test',
      method: 'link',
      csrf: csrfOf(adaForm.body),
    });
    expect(adaLink.statusCode).toBe(403);
    expect((await ssoSignIn('ada@university.test', ['staff-admins'])) !== null).toBe(true);

    // Break-glass: the owner asks for a link with ?link=1 and signs in with it.
    const glass = newBrowser('203.0.113.80');
    const glassForm = await get(t, glass, '/dashboard/sign-in?link=1');
    expect(glassForm.body).toContain('name="method" value="link"');
    const sent = await post(t, glass, '/dashboard/sign-in', { email: OWNER, method: 'link', csrf: csrfOf(glassForm.body) });
    expect(sent.statusCode).toBe(200);
    const opened = await get(t, glass, pathOf(lastSignInLink(t, OWNER)));
    expect(opened.headers.location).toBe('/dashboard');
    expect((await get(t, glass, '/dashboard')).statusCode).toBe(200);
  });
});
