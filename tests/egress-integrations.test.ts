/**
 * OUTBOUND_PROXY_URL covers the integrations' requests to customers' systems too: single sign-on's
 * OpenID discovery, an LTI platform's key set, its roster (NRPS, with the token request before it),
 * LTI Dynamic Registration (the platform's configuration and the registration post) and agent
 * callbacks each go through a CONNECT tunnel to the address this service checked, with the name
 * as Host and TLS name, and a name that resolves to a private address is refused before the proxy
 * is asked (tests/egress-domain-proofs.test.ts shows the same for the domain proofs).
 *
 * Each is driven through its service function (the key set through the cache the launch uses, the
 * callback through its job's handler), not its HTTP route: a route would need a whole identity
 * provider or platform set-up, and the outbound request is the same either way. Every test uses
 * its own ports, so none reuses another's kept-alive tunnel.
 */
import { exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverEntityCallback } from '../src/features/agent-api/callbacks.js';
import { createCollection } from '../src/features/collections/service.js';
import {
  completeDynamicRegistration,
  createRegistrationLink,
  readPlatformConfiguration,
} from '../src/features/lti/dynamic-registration.js';
import { createPlatformKeySets } from '../src/features/lti/platform-keys.js';
import { createRegistration } from '../src/features/lti/registration-service.js';
import { syncCourseRoster } from '../src/features/lti/roster-sync.js';
import { findProfile } from '../src/features/profiles/service.js';
import { discoverIssuer } from '../src/features/sso/service.js';
import type { HostLookup } from '../src/integrations/outbound-http.js';
import { newId } from '../src/lib/ids.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type ConnectProxy, startConnectProxy, startTlsReceiver, type TlsReceiver, tlsFixtures } from './helpers/egress.js';
import { publishEntity, validBody } from './helpers/entities.js';
import { fakeSpeech } from './helpers/fake-speech.js';
import { ROLES } from './helpers/lti-platform.js';
import { accountIdOf } from './helpers/webhooks.js';
import { discoveryDocument } from './helpers/oidc-test-issuer.js';

const CHECKED = '93.184.216.34';
const publicLookup: HostLookup = async (host) => (host === 'receiver.test' ? [CHECKED] : ['10.1.2.3']);
const privateLookup: HostLookup = async () => ['10.0.0.7'];
const REFUSED = 'receiver.test does not resolve to a public address';

let proxy: ConnectProxy;
let receiver: TlsReceiver;
let t: TestApp;
let accountId: string;

beforeAll(async () => {
  receiver = await startTlsReceiver({ requireClientCert: false });
  proxy = await startConnectProxy(receiver.port);
  t = await createTestApp({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false', OUTBOUND_PROXY_URL: proxy.url },
    overrides: fakeSpeech(),
  });
  Object.assign(t.deps, { lookup: publicLookup, trustedCa: tlsFixtures.ca });
  accountId = await accountIdOf(t, (await t.newAccount()).email);
});
afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await receiver?.close();
});

/** The receiver answers `path` with `body` as JSON. */
function serveJson(path: string, body: unknown) {
  receiver.files.set(path, JSON.stringify(body));
  receiver.headers.set(path, { 'content-type': 'application/json' });
}

/** Runs `refusedRequest` and expects it refused with no tunnel asked for and nothing reaching the receiver. */
async function expectRefusedBeforeTheProxy(refusedRequest: () => Promise<unknown>, expected: Record<string, unknown>) {
  proxy.connects.length = 0;
  const before = receiver.requests.length;
  await expect(refusedRequest()).rejects.toMatchObject(expected);
  expect(proxy.connects).toEqual([]);
  expect(receiver.requests).toHaveLength(before);
}

describe('single sign-on: the identity provider’s OpenID discovery', () => {
  const issuer = 'https://receiver.test:8443';
  const connection = { issuer, clientId: 'voicename', clientSecret: 'secret' };

  beforeAll(() => {
    serveJson('/.well-known/openid-configuration', discoveryDocument(issuer));
  });

  it('refuses an issuer that resolves to a private address without asking the proxy', async () => {
    await expectRefusedBeforeTheProxy(
      () =>
        discoverIssuer({ ...t.deps, lookup: privateLookup }, connection, {
          fresh: true,
        }),
      {
        code: 'sso_discovery_failed',
        message: expect.stringContaining(REFUSED),
      },
    );
  });

  it('reads the metadata through a tunnel to the checked address, with the issuer’s name as Host and TLS name', async () => {
    proxy.connects.length = 0;
    const configuration = await discoverIssuer(t.deps, connection, {
      fresh: true,
    });
    expect(configuration.serverMetadata().token_endpoint).toBe(`${issuer}/token`);
    expect(proxy.connects).toEqual([`${CHECKED}:8443`]);
    expect(receiver.requests.at(-1)).toMatchObject({
      path: '/.well-known/openid-configuration',
      host: 'receiver.test:8443',
      tlsName: 'receiver.test',
    });
  });
});

describe('LTI: a platform’s key set', () => {
  const jwksUrl = 'https://receiver.test:9443/jwks';
  const keySetsOf = (lookup: HostLookup) =>
    createPlatformKeySets({
      clock: t.deps.clock,
      allowPrivate: t.deps.config.webhooks.allowPrivateUrls,
      proxyUrl: t.deps.config.webhooks.outboundProxyUrl,
      lookup,
      trustedCa: tlsFixtures.ca,
    });

  it('refuses a key set URL that resolves to a private address without asking the proxy', async () => {
    await expectRefusedBeforeTheProxy(() => keySetsOf(privateLookup).get(jwksUrl, 'platform-key'), {
      code: 'lti_platform_unavailable',
      message: expect.stringContaining(REFUSED),
    });
  });

  it('reads the key set through a tunnel to the checked address, and verifies a token with it', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    serveJson('/jwks', {
      keys: [
        {
          ...(await exportJWK(publicKey)),
          kid: 'platform-key',
          alg: 'RS256',
          use: 'sig',
        },
      ],
    });
    proxy.connects.length = 0;
    const verify = await keySetsOf(publicLookup).get(jwksUrl, 'platform-key');
    expect(proxy.connects).toEqual([`${CHECKED}:9443`]);
    expect(receiver.requests.at(-1)).toMatchObject({
      path: '/jwks',
      host: 'receiver.test:9443',
      tlsName: 'receiver.test',
    });
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'platform-key' })
      .setIssuer('lms')
      .sign(privateKey);
    expect((await jwtVerify(token, verify)).payload.iss).toBe('lms');
  });
});

describe('LTI: a course’s roster (NRPS)', () => {
  // The token endpoint and the roster on two ports: two tunnels, each to the checked address.
  const platform = 'https://receiver.test:10443';
  const membershipsUrl = 'https://receiver.test:10444/memberships';
  let contextRowId: string;

  beforeAll(async () => {
    const registration = await createRegistration(t.deps, accountId, {
      issuer: platform,
      client_id: 'nrps-client',
      deployment_ids: 'deployment-1',
      auth_url: `${platform}/authorize`,
      token_url: `${platform}/token`,
      jwks_url: `${platform}/jwks`,
    });
    const collection = await createCollection(t.deps, accountId, {
      name: 'Phonetics',
    });
    contextRowId = newId();
    await t.deps.db.kysely
      .insertInto('lti_contexts')
      .values({
        id: contextRowId,
        registration_id: registration.id,
        context_id: 'course-egress',
        collection_id: collection.id,
        title: 'Phonetics',
        memberships_url: membershipsUrl,
        deployment_id: 'deployment-1',
        differences_url: null,
        synced_at: null,
        full_synced_at: null,
        frame_origins: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    serveJson('/token', {
      access_token: 'platform-token',
      token_type: 'Bearer',
      expires_in: 3600,
    });
    serveJson('/memberships', {
      id: membershipsUrl,
      members: [
        {
          user_id: 'learner-1',
          given_name: 'Niamh',
          family_name: 'Kelly',
          roles: [ROLES.learner],
        },
      ],
    });
  });

  it('refuses a platform that resolves to a private address without asking the proxy', async () => {
    await expectRefusedBeforeTheProxy(() => syncCourseRoster({ ...t.deps, lookup: privateLookup }, contextRowId), {
      code: 'lti_platform_unavailable',
      message: expect.stringContaining(REFUSED),
    });
  });

  it('asks for the token and reads the roster through tunnels to the checked address, with the name as Host and TLS name', async () => {
    proxy.connects.length = 0;
    const before = receiver.requests.length;
    expect(await syncCourseRoster(t.deps, contextRowId)).toEqual({
      created: 1,
      updated: 0,
      departed: 0,
    });
    expect(proxy.connects).toEqual([`${CHECKED}:10443`, `${CHECKED}:10444`]);
    expect(receiver.requests.slice(before)).toEqual([
      expect.objectContaining({
        path: '/token',
        host: 'receiver.test:10443',
        tlsName: 'receiver.test',
      }),
      expect.objectContaining({
        path: '/memberships',
        host: 'receiver.test:10444',
        tlsName: 'receiver.test',
      }),
    ]);
  });
});

describe('LTI Dynamic Registration', () => {
  const platformConfiguration = (origin: string) => ({
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    jwks_uri: `${origin}/jwks`,
    registration_endpoint: `${origin.replace(/:(\d+)$/, (_, port: string) => `:${Number(port) + 1}`)}/register`,
    id_token_signing_alg_values_supported: ['RS256'],
    'https://purl.imsglobal.org/spec/lti-platform-configuration': {
      product_family_code: 'moodle',
    },
  });

  it('refuses a configuration URL that resolves to a private address without asking the proxy', async () => {
    serveJson('/platform-configuration', platformConfiguration('https://receiver.test:11443'));
    await expectRefusedBeforeTheProxy(
      () => readPlatformConfiguration({ ...t.deps, lookup: privateLookup }, 'https://receiver.test:11443/platform-configuration'),
      {
        code: 'lti_platform_configuration_invalid',
        message: expect.stringContaining(REFUSED),
      },
    );
  });

  it('reads the platform’s configuration through a tunnel to the checked address, with the name as Host and TLS name', async () => {
    serveJson('/platform-configuration', platformConfiguration('https://receiver.test:11443'));
    proxy.connects.length = 0;
    const platform = await readPlatformConfiguration(t.deps, 'https://receiver.test:11443/platform-configuration');
    expect(platform).toMatchObject({
      issuer: 'https://receiver.test:11443',
      productFamily: 'moodle',
    });
    expect(proxy.connects).toEqual([`${CHECKED}:11443`]);
    expect(receiver.requests.at(-1)).toMatchObject({
      path: '/platform-configuration',
      host: 'receiver.test:11443',
      tlsName: 'receiver.test',
    });
  });

  it('posts the registration through a tunnel too, and stores what the platform answered', async () => {
    const origin = 'https://receiver.test:12443';
    serveJson('/platform-configuration', platformConfiguration(origin));
    serveJson('/register', {
      client_id: 'dynamic-client',
      'https://purl.imsglobal.org/spec/lti-tool-configuration': {
        deployment_id: 'deployment-7',
      },
    });
    const link = await createRegistrationLink(t.deps, accountId, 'admin@example.com');
    proxy.connects.length = 0;
    const before = receiver.requests.length;
    const { registration } = await completeDynamicRegistration(
      t.deps,
      {
        token: link.url.split('/').at(-1) as string,
        openidConfiguration: `${origin}/platform-configuration`,
        registrationToken: 'registration-token',
      },
      '203.0.113.9',
    );
    expect(registration).toMatchObject({
      issuer: origin,
      clientId: 'dynamic-client',
      deploymentIds: ['deployment-7'],
    });
    expect(proxy.connects).toEqual([`${CHECKED}:12443`, `${CHECKED}:12444`]);
    expect(receiver.requests.slice(before)).toEqual([
      expect.objectContaining({
        path: '/platform-configuration',
        host: 'receiver.test:12443',
        tlsName: 'receiver.test',
      }),
      expect.objectContaining({
        path: '/register',
        host: 'receiver.test:12444',
        tlsName: 'receiver.test',
      }),
    ]);
  });
});

describe('agent callbacks', () => {
  let entityId: string;

  beforeAll(async () => {
    const { paid } = await publishEntity(
      t,
      validBody({
        callback_url: 'https://receiver.test:13443/entity-published',
      }),
    );
    expect(paid.statusCode).toBe(200);
    const slug = new URL(paid.json().entity.profile_url).pathname.split('/')[2] as string;
    const profile = await findProfile(t.deps, slug);
    if (profile.kind !== 'found') throw new Error(`no profile ${slug}`);
    entityId = profile.entity.id;
  });

  it('drops a callback whose URL resolves to a private address without asking the proxy', async () => {
    proxy.connects.length = 0;
    const before = receiver.requests.length;
    await deliverEntityCallback({ ...t.deps, lookup: privateLookup }, entityId, 1);
    expect(proxy.connects).toEqual([]);
    expect(receiver.requests).toHaveLength(before);
  });

  it('delivers the callback through a tunnel to the checked address, with the name as Host and TLS name', async () => {
    proxy.connects.length = 0;
    await deliverEntityCallback(t.deps, entityId, 1);
    expect(proxy.connects).toEqual([`${CHECKED}:13443`]);
    expect(receiver.requests.at(-1)).toMatchObject({
      path: '/entity-published',
      host: 'receiver.test:13443',
      tlsName: 'receiver.test',
    });
  });
});
