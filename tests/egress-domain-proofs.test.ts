/**
 * OUTBOUND_PROXY_URL covers the domain proofs too: the well-known file of a claimed profile's
 * domain and of an SSO domain is fetched through a CONNECT tunnel to the address this service
 * checked, with the domain as Host and TLS name, and a domain that resolves to a private address
 * is refused before the proxy is asked (tests/webhooks-egress.test.ts shows the same for webhooks).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERIFICATION_PATH, verifyDomain } from '../src/features/profile-ownership/domain-service.js';
import { addSsoDomain, SSO_VERIFICATION_PATH, verifySsoDomain } from '../src/features/sso/domain-service.js';
import type { HostLookup } from '../src/integrations/outbound-http.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, post, signIn } from './helpers/dashboard.js';
import { type ConnectProxy, startConnectProxy, startTlsReceiver, type TlsReceiver, tlsFixtures } from './helpers/egress.js';
import { publishEntity, validBody } from './helpers/entities.js';

const CHECKED = '93.184.216.34';
const publicLookup: HostLookup = async (host) => (host === 'receiver.test' ? [CHECKED] : ['10.1.2.3']);
const privateLookup: HostLookup = async () => ['10.0.0.7'];
const OWNER = 'proofs-owner@example.com';

let proxy: ConnectProxy;
let receiver: TlsReceiver;
let t: TestApp;
let owner: Browserish & { csrf: string };
let accountId: string;

beforeAll(async () => {
  receiver = await startTlsReceiver({ requireClientCert: false });
  proxy = await startConnectProxy(receiver.port);
  t = await createTestApp({
    env: { SITE_URL: 'http://agents.localhost:3000', WEBHOOK_ALLOW_PRIVATE_URLS: 'false', OUTBOUND_PROXY_URL: proxy.url },
  });
  Object.assign(t.deps, { lookup: publicLookup, trustedCa: tlsFixtures.ca });
  owner = await signIn(t, OWNER, '203.0.113.62');
  accountId = (await t.deps.db.kysely.selectFrom('accounts').select('id').where('email', '=', OWNER).executeTakeFirstOrThrow())
    .id;
});
afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await receiver?.close();
});

describe("a claimed profile's domain proof through the egress proxy", () => {
  let slug: string;
  let token: string;

  beforeAll(async () => {
    // Port 8443: another origin than the SSO proof's, so neither test reuses the other's kept-alive tunnel.
    const { paid } = await publishEntity(t, validBody({ source_url: 'https://receiver.test:8443/' }));
    const entity = paid.json().entity;
    slug = new URL(entity.profile_url).pathname.split('/')[2] as string;
    const claimed = await post(t, owner, '/dashboard/profiles/claim', {
      csrf: owner.csrf,
      profile: entity.profile_url,
      deletion_token: paid.json().receipt.deletion_token,
    });
    expect(claimed.statusCode).toBe(303);
    const page = await get(t, owner, `/dashboard/profiles/${slug}/domain`);
    token = /id="domain-token" readonly value="([^"]+)"/.exec(page.body)?.[1] as string;
    expect(token).toMatch(/^voicename-verification=/);
  });

  it('refuses a domain that resolves to a private address without asking the proxy', async () => {
    receiver.files.set(VERIFICATION_PATH, `${token}\n`);
    proxy.connects.length = 0;
    const before = receiver.requests.length;
    await expect(verifyDomain({ ...t.deps, lookup: privateLookup }, accountId, slug)).rejects.toMatchObject({
      code: 'domain_not_verified',
      message: expect.stringContaining('receiver.test does not resolve to a public address'),
    });
    expect(proxy.connects).toEqual([]);
    expect(receiver.requests).toHaveLength(before);
  });

  it('fetches the file through a tunnel to the checked address, with the domain as Host and TLS name, and verifies it', async () => {
    receiver.files.set(VERIFICATION_PATH, `# other lines are fine\n${token}\n`);
    proxy.connects.length = 0;
    const verified = await post(t, owner, `/dashboard/profiles/${slug}/domain`, { csrf: owner.csrf });
    expect(verified.statusCode).toBe(303);
    expect(verified.headers.location).toBe('/dashboard/profiles?notice=domain-verified');
    expect(proxy.connects).toEqual([`${CHECKED}:8443`]);
    expect(receiver.requests.at(-1)).toMatchObject({
      path: VERIFICATION_PATH,
      host: 'receiver.test:8443',
      tlsName: 'receiver.test',
    });
    expect((await t.app.inject({ url: `/e/${slug}` })).body).toContain('✓ Verified: receiver.test');
  });
});

describe("an SSO domain's file proof through the egress proxy", () => {
  // No TXT record holds the token, so the well-known file decides.
  const noTxt = { resolveTxt: async () => [] };
  let domainId: string;
  let token: string;

  beforeAll(async () => {
    const domain = await addSsoDomain(t.deps, accountId, 'receiver.test');
    domainId = domain.id;
    token = domain.token;
  });

  it('refuses a domain that resolves to a private address without asking the proxy', async () => {
    receiver.files.set(SSO_VERIFICATION_PATH, `${token}\n`);
    proxy.connects.length = 0;
    const before = receiver.requests.length;
    await expect(verifySsoDomain({ ...t.deps, lookup: privateLookup }, accountId, domainId, noTxt)).rejects.toMatchObject({
      code: 'domain_not_verified',
      message: expect.stringMatching(/no TXT record holds the token, and .*receiver\.test does not resolve to a public address/),
    });
    expect(proxy.connects).toEqual([]);
    expect(receiver.requests).toHaveLength(before);
  });

  it('fetches the file through a tunnel to the checked address, with the domain as Host and TLS name, and verifies it', async () => {
    receiver.files.set(SSO_VERIFICATION_PATH, `${token}\n`);
    proxy.connects.length = 0;
    const verified = await verifySsoDomain(t.deps, accountId, domainId, noTxt);
    expect(verified.verifiedAt).not.toBeNull();
    expect(proxy.connects).toEqual([`${CHECKED}:443`]);
    expect(receiver.requests.at(-1)).toMatchObject({
      path: SSO_VERIFICATION_PATH,
      host: 'receiver.test',
      tlsName: 'receiver.test',
    });
    const row = await t.deps.db.kysely.selectFrom('sso_domains').selectAll().where('id', '=', domainId).executeTakeFirstOrThrow();
    expect(row.verified_at).toBe(verified.verifiedAt);
  });
});
