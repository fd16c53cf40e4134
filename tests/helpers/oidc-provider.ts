/**
 * A certified OpenID provider (`oidc-provider`) on 127.0.0.1 for the browser tests: its own
 * signing keys (generated at start), one confidential client registered with the app's redirect
 * URI, PKCE required, and accounts whose claims (email, email_verified, groups) a test may change
 * between sign-ins. Its development login and consent pages take any password for a known account.
 */
import http from 'node:http';
import Provider, { type FindAccount } from 'oidc-provider';
import { freePort } from './app.js';

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Claims by login (the account id); change them to change the next ID token. */
  accounts: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startOidcProvider(options: { redirectUri: string }): Promise<TestProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'voicename-browser-test';
  const clientSecret = 'browser-test-secret-7d1e0b9c4a';
  const accounts = new Map<string, Record<string, unknown>>();
  const findAccount: FindAccount = async (_context, id) => {
    const claims = accounts.get(id);
    return claims ? { accountId: id, claims: async () => ({ sub: id, ...accounts.get(id) }) } : undefined;
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    findAccount,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    // The groups go into the ID token itself, as Entra ID and Okta put their group claims there.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: ['browser-test-cookie-key'] },
    features: { devInteractions: { enabled: true } },
  });
  const server = http.createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
