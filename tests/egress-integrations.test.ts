/**
 * OUTBOUND_PROXY_URL covers the integrations' requests to customers' systems too: single sign-on's
 * OpenID discovery goes through a CONNECT tunnel to the address this service checked, with the
 * name as Host and TLS name, and a name that resolves to a private address is refused before the
 * proxy is asked (tests/egress-domain-proofs.test.ts shows the same for the domain proofs).
 *
 * Driven through the service function, not the HTTP route: a route would need a whole identity
 * provider set-up, and the outbound request is the same either way. Every test uses its own
 * ports, so none reuses another's kept-alive tunnel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverIssuer } from '../src/features/sso/service.js';
import type { HostLookup } from '../src/integrations/outbound-http.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type ConnectProxy, startConnectProxy, startTlsReceiver, type TlsReceiver, tlsFixtures } from './helpers/egress.js';

const CHECKED = '93.184.216.34';
const publicLookup: HostLookup = async (host) => (host === 'receiver.test' ? [CHECKED] : ['10.1.2.3']);
const privateLookup: HostLookup = async () => ['10.0.0.7'];
const REFUSED = 'receiver.test does not resolve to a public address';

let proxy: ConnectProxy;
let receiver: TlsReceiver;
let t: TestApp;

beforeAll(async () => {
  receiver = await startTlsReceiver({ requireClientCert: false });
  proxy = await startConnectProxy(receiver.port);
  t = await createTestApp({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false', OUTBOUND_PROXY_URL: proxy.url },
  });
  Object.assign(t.deps, { lookup: publicLookup, trustedCa: tlsFixtures.ca });
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
    serveJson('/.well-known/openid-configuration', {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
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
