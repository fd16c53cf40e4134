/**
 * A hand-made OpenID provider on loopback for the refusal tests: discovery, its own RSA key set
 * and a token endpoint whose ID token each test shapes (audience, nonce, expiry, e-mail claims).
 * The browser is not needed: a test reads `state`, `nonce` and the PKCE challenge from the
 * authorization URL the app redirects to, then calls the app's callback with a code. The token
 * endpoint checks the client's secret and the PKCE verifier, as a real provider does.
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface IssuedCode {
  nonce: string;
  codeChallenge: string;
  /** Claims of the ID token issued for this code, on top of iss/aud/sub/iat/exp/nonce. */
  claims: Record<string, unknown>;
  /** Overrides of the standard claims (aud, nonce, exp…), to make a bad token. */
  override?: Record<string, unknown>;
}

export interface TestIssuer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  codes: Map<string, IssuedCode>;
  /** Token requests received (their form bodies). */
  tokenRequests: URLSearchParams[];
  /** How many times the discovery document was read. */
  discoveryReads(): number;
  close(): Promise<void>;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The OpenID Provider Metadata of an issuer serving the usual paths (`/authorize`, `/token`, `/jwks`). */
export const discoveryDocument = (issuer: string) => ({
  issuer,
  authorization_endpoint: `${issuer}/authorize`,
  token_endpoint: `${issuer}/token`,
  jwks_uri: `${issuer}/jwks`,
  response_types_supported: ['code'],
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: ['RS256'],
  code_challenge_methods_supported: ['S256'],
  token_endpoint_auth_methods_supported: ['client_secret_basic'],
});

export async function startTestIssuer(options: { clientId?: string; clientSecret?: string } = {}): Promise<TestIssuer> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'test-key-1', use: 'sig', alg: 'RS256' };
  const clientId = options.clientId ?? 'voicename-test-client';
  const clientSecret = options.clientSecret ?? 'test-client-secret-never-shown-8f3a1c';
  const codes = new Map<string, IssuedCode>();
  const tokenRequests: URLSearchParams[] = [];
  let discoveryReads = 0;
  let issuer = '';

  const idToken = (code: IssuedCode) => {
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      iss: issuer,
      aud: clientId,
      sub: String(code.claims.email ?? 'someone'),
      iat: now,
      exp: now + 300,
      nonce: code.nonce,
      ...code.claims,
      ...code.override,
    };
    const input = `${b64url({ alg: 'RS256', kid: jwk.kid, typ: 'JWT' })}.${b64url(payload)}`;
    return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
  };

  const server = http.createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path === '/.well-known/openid-configuration') {
      discoveryReads += 1;
      return json(200, discoveryDocument(issuer));
    }
    if (path === '/jwks') return json(200, { keys: [jwk] });
    if (path === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        tokenRequests.push(form);
        // RFC 6749 2.3.1: both parts form-url-encoded before Basic encoding.
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
        const [id, secret] = Buffer.from(basic, 'base64')
          .toString()
          .split(':')
          .map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
        if (id !== clientId || secret !== clientSecret) return json(401, { error: 'invalid_client' });
        const code = codes.get(form.get('code') ?? '');
        if (!code) return json(400, { error: 'invalid_grant' });
        codes.delete(form.get('code') ?? '');
        const challenge = createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url');
        if (challenge !== code.codeChallenge) return json(400, { error: 'invalid_grant', error_description: 'PKCE failed' });
        return json(200, { access_token: 'test-access-token', token_type: 'Bearer', expires_in: 300, id_token: idToken(code) });
      });
      return;
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    clientId,
    clientSecret,
    codes,
    tokenRequests,
    discoveryReads: () => discoveryReads,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
