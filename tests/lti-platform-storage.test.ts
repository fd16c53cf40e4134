/**
 * LTI launches completed through the platform's storage (src/features/lti/platform-storage.ts),
 * as a browser that drops the tool's cookie in the platform's frame makes them: the login with
 * `lti_storage_target` answers the page that stores the state in the platform's storage, the
 * launch without the cookie answers the page that reads it back with a one-time ticket, and the
 * completion checks ticket and state. The browser side (postMessage) is in
 * lti-platform-storage.browser.test.ts; here the HTTP exchanges and every refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccountWithEmail } from '../src/features/accounts/service.js';
import { LAUNCH_TICKET_TTL_MS } from '../src/features/lti/platform-storage.js';
import { createRegistration } from '../src/features/lti/registration-service.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { get, newBrowser, post } from './helpers/dashboard.js';
import { type MockPlatform, type NextLaunch, ROLES, startMockPlatform } from './helpers/lti-platform.js';

let t: TestApp & { url: string };
let platform: MockPlatform;

const learner: NextLaunch['user'] = {
  sub: 'storage-learner-1',
  givenName: 'Niamh',
  familyName: 'Kelly',
  email: 'niamh@uni.example',
  roles: [ROLES.learner],
};
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  platform = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks` });
  await t.newAccount('registrar@uni.example');
  const account = await findAccountWithEmail(t.deps, 'registrar@uni.example');
  if (!account) throw new Error('no account');
  await createRegistration(t.deps, account.id, {
    issuer: platform.issuer,
    client_id: platform.clientId,
    deployment_ids: platform.deploymentId,
    auth_url: platform.authUrl,
    token_url: platform.tokenUrl,
    jwks_url: platform.jwksUrl,
  });
});
afterAll(async () => {
  await platform?.close();
  await t?.close();
});

const attribute = (page: string, name: string) =>
  (new RegExp(`${name}="([^"]*)"`).exec(page)?.[1] ?? '').replaceAll('&amp;', '&');

/** Login with platform storage, the platform's auth answer, and the launch posted without the cookie. */
async function launchWithoutCookie(options: { storageTarget?: string } = {}) {
  platform.nextLaunch({ user: learner, context: { id: 'course-storage', title: 'Storage 101' } });
  const query = new URLSearchParams({
    iss: platform.issuer,
    login_hint: learner.sub,
    target_link_uri: `${t.url}/lti/launch`,
    client_id: platform.clientId,
    lti_deployment_id: platform.deploymentId,
    ...(options.storageTarget ? { lti_storage_target: options.storageTarget } : {}),
  });
  const login = await get(t, newBrowser(), `/lti/login?${query}`);
  const authorized = await fetch(options.storageTarget ? attribute(login.body, 'data-next') : (login.headers.location as string));
  expect(authorized.status).toBe(200);
  const form = platform.lastForm;
  if (!form) throw new Error('the platform answered no form');
  // Another browser: the one that logged in kept the cookie, this frame has none.
  const launch = await post(t, newBrowser(), '/lti/launch', { id_token: form.id_token, state: form.state });
  return { login, launch, state: form.state, ticket: attribute(launch.body, 'name="ticket" value') };
}

describe('a login with platform storage', () => {
  it('answers the page that stores the state in the named frame, framed only by the platform, with the cookie set as before', async () => {
    const { login, state } = await launchWithoutCookie({ storageTarget: 'post_message_forwarding' });
    expect(login.statusCode).toBe(200);
    expect(attribute(login.body, 'data-target')).toBe('post_message_forwarding');
    expect(attribute(login.body, 'data-origin')).toBe(platform.url);
    expect(attribute(login.body, 'data-state')).toBe(state);
    expect(new URL(attribute(login.body, 'data-next')).origin).toBe(platform.url);
    expect(login.body).toMatch(/<script src="\/assets\/lti-storage\.[0-9a-f]+\.js" defer><\/script>/);
    expect(login.headers['content-security-policy']).toContain(`frame-ancestors ${platform.url}`);
    expect(login.headers['content-security-policy']).toContain("script-src 'self'");
    expect(String(login.headers['set-cookie'])).toContain('vn_lti_state=');
  });

  it('refuses a storage target that is not a frame name (400)', async () => {
    const query = new URLSearchParams({
      iss: platform.issuer,
      login_hint: learner.sub,
      target_link_uri: `${t.url}/lti/launch`,
      client_id: platform.clientId,
      lti_storage_target: '"><script>',
    });
    const login = await get(t, newBrowser(), `/lti/login?${query}`);
    expect(login.statusCode).toBe(400);
  });
});

describe('completing a launch through platform storage', () => {
  it('lands the learner on their record page when the state read back is the login’s', async () => {
    const { launch, state, ticket } = await launchWithoutCookie({ storageTarget: 'post_message_forwarding' });
    expect(launch.statusCode).toBe(200);
    expect(ticket).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(launch.body).not.toContain('/r/');
    const done = await post(t, newBrowser(), '/lti/launch/complete', { ticket, state }, SAME_ORIGIN);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toMatch(/^\/r\/[A-Za-z0-9_-]+$/);
  });

  it('refuses a wrong state (403), and the ticket is spent by it', async () => {
    const { state, ticket } = await launchWithoutCookie({ storageTarget: 'post_message_forwarding' });
    const wrong = await post(t, newBrowser(), '/lti/launch/complete', { ticket, state: `${state}x` }, SAME_ORIGIN);
    expect(wrong.statusCode).toBe(403);
    expect(wrong.body).toContain('did not start in this browser');
    const again = await post(t, newBrowser(), '/lti/launch/complete', { ticket, state }, SAME_ORIGIN);
    expect(again.statusCode).toBe(409);
  });

  it('refuses a reused ticket (409)', async () => {
    const { state, ticket } = await launchWithoutCookie({ storageTarget: 'post_message_forwarding' });
    expect((await post(t, newBrowser(), '/lti/launch/complete', { ticket, state }, SAME_ORIGIN)).statusCode).toBe(303);
    const reused = await post(t, newBrowser(), '/lti/launch/complete', { ticket, state }, SAME_ORIGIN);
    expect(reused.statusCode).toBe(409);
    expect(reused.body).toContain('already completed');
  });

  it('refuses an expired ticket (409)', async () => {
    const { state, ticket } = await launchWithoutCookie({ storageTarget: 'post_message_forwarding' });
    await t.deps.db.kysely
      .updateTable('lti_launch_tickets')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('used_at', 'is', null)
      .execute();
    const expired = await post(t, newBrowser(), '/lti/launch/complete', { ticket, state }, SAME_ORIGIN);
    expect(expired.statusCode).toBe(409);
    expect(LAUNCH_TICKET_TTL_MS).toBe(5 * 60_000);
  });

  it('refuses a completion posted from another site (403) and one without ticket or state', async () => {
    const { state, ticket } = await launchWithoutCookie({ storageTarget: 'post_message_forwarding' });
    const forged = await post(t, newBrowser(), '/lti/launch/complete', { ticket, state }, { 'sec-fetch-site': 'cross-site' });
    expect(forged.statusCode).toBe(403);
    expect((await post(t, newBrowser(), '/lti/launch/complete', {}, SAME_ORIGIN)).statusCode).toBe(409);
    expect((await post(t, newBrowser(), '/lti/launch/complete', { ticket }, SAME_ORIGIN)).statusCode).toBe(403);
  });

  it('uses the nonce at the launch: the same id_token posted again is refused', async () => {
    const { state } = await launchWithoutCookie({ storageTarget: 'post_message_forwarding' });
    const form = platform.lastForm;
    const replay = await post(t, newBrowser(), '/lti/launch', { id_token: form?.id_token ?? '', state });
    expect(replay.statusCode).toBe(403);
  });

  it('without lti_storage_target a launch without the cookie still offers a window of its own', async () => {
    const { launch } = await launchWithoutCookie();
    expect(launch.statusCode).toBe(403);
    expect(launch.body).toContain('id="open-new-window"');
  });
});
