/**
 * A mock LMS platform speaking LTI 1.3 on loopback, for the tool's tests: its own RSA keys and
 * key set (`/jwks`), an OIDC auth endpoint (`/auth`) that answers the tool's login redirect with
 * an auto-submitting form_post of a signed id_token, a token endpoint (`/token`) that checks the
 * tool's client assertion against the tool's own key set, and an NRPS memberships endpoint
 * (`/nrps/<course>`) in two pages linked by `Link: rel="next"`. For LTI Dynamic Registration it
 * serves its OpenID configuration (`/.well-known/openid-configuration`, with the LTI platform
 * block) and a registration endpoint (`/register`) that checks the bearer registration token and
 * the tool's client registration as the specification asks, answers with the platform's client id
 * and deployment id, and records what it got.
 *
 * What the next launch says is set with `nextLaunch`; tests that need a bad token take one of
 * the `tamper` options (another key, another audience, an expired token, a fixed nonce…).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';

const LTI = 'https://purl.imsglobal.org/spec/lti/claim/';
const LIS = 'http://purl.imsglobal.org/vocab/lis/v2/';
const NRPS_SCOPE = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly';
export const ROLES = {
  instructor: `${LIS}membership#Instructor`,
  learner: `${LIS}membership#Learner`,
};

export interface PlatformUser {
  sub: string;
  givenName: string;
  familyName: string;
  email: string | null;
  roles: string[];
}

export interface NextLaunch {
  user: PlatformUser;
  messageType?: 'LtiResourceLinkRequest' | 'LtiDeepLinkingRequest' | string;
  deploymentId?: string;
  context?: { id: string; title: string };
  /** Leave out the roles claim entirely. */
  withoutRoles?: boolean;
  /** Sign with a key that is not in the platform's key set (but under a published kid). */
  foreignKey?: boolean;
  /** `aud` to send instead of the tool's client id. */
  audience?: string | string[];
  /** Seconds to shift `iat`/`exp` by (negative: in the past). */
  timeShiftS?: number;
  /** The nonce to send instead of the one the tool asked for (a replay of an older launch). */
  nonce?: string;
  deepLinkReturnUrl?: string;
  /** `launch_presentation.return_url`: the platform page the tool is shown in (its frame). */
  returnUrl?: string;
}

export interface NrpsMember {
  user_id: string;
  given_name: string;
  family_name: string;
  name: string;
  email: string;
  roles: string[];
  status?: 'Active' | 'Inactive' | 'Deleted';
}

export interface MockPlatform {
  url: string;
  issuer: string;
  clientId: string;
  deploymentId: string;
  authUrl: string;
  tokenUrl: string;
  jwksUrl: string;
  membershipsUrl(courseId: string): string;
  nextLaunch(launch: NextLaunch): void;
  /** The course's members, served in two pages. */
  setMembers(courseId: string, members: NrpsMember[]): void;
  /** What the course's `differences` link answers (the changes since the last read), in one page. */
  setDifferences(courseId: string, members: NrpsMember[]): void;
  /** Client assertions the token endpoint accepted (their `kid`), and memberships pages served. */
  log: { tokens: string[]; pages: string[]; refusedAssertions: string[]; deepLinks: Record<string, unknown>[] };
  /**
   * The course page with platform storage (LTI Client Side postMessages): the tool's login in a
   * frame, next to the frame `post_message_forwarding` that answers capabilities, put_data and
   * get_data from the tool's origin only. Open it under `browserOrigin` (another site than the
   * tool's, so the browser treats the tool's frame as third-party).
   */
  coursePageUrl(browserOrigin: string, toolLoginUrl: string): string;
  /** Make the storage frame answer get_data with another value (a forged state). */
  storage: { forgeGetData: boolean; requests: string[] };
  /** The URL a platform sends as `openid_configuration`, and the bearer token its registration endpoint wants. */
  openidConfigurationUrl: string;
  registrationToken: string;
  /** Dynamic Registration: what to serve instead (another issuer, a refusing registration endpoint). */
  dynamicRegistration: { issuer?: string; registrationStatus?: number };
  /** Client registrations the registration endpoint accepted, and why it refused the others. */
  registrations: { accepted: Record<string, unknown>[]; refused: string[] };
  /** The form the auth endpoint answered last (id_token and state), as the tests post it. */
  lastForm: { action: string; id_token: string; state: string } | null;
  close(): Promise<void>;
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export async function startMockPlatform(options: {
  toolJwksUrl: () => string;
  /** The tool's origin, the only one the storage frame answers. */
  toolOrigin?: () => string;
  clientId?: string;
  /** Answer the key set with this status instead (a platform that is down). */
  keySetStatus?: number;
}): Promise<MockPlatform> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const foreign = await generateKeyPair('RS256', { extractable: true });
  const kid = 'platform-key-1';
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const members = new Map<string, NrpsMember[]>();
  const differences = new Map<string, NrpsMember[]>();
  const accessTokens = new Set<string>();
  let next: NextLaunch | null = null;
  let toolKeys: ReturnType<typeof createRemoteJWKSet> | null = null;

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const platform: MockPlatform = {
    url,
    issuer: url,
    clientId: options.clientId ?? 'voicename-client-1',
    deploymentId: 'deployment-1',
    authUrl: `${url}/auth`,
    tokenUrl: `${url}/token`,
    jwksUrl: `${url}/jwks`,
    membershipsUrl: (courseId) => `${url}/nrps/${encodeURIComponent(courseId)}`,
    nextLaunch(launch) {
      next = launch;
    },
    setMembers(courseId, list) {
      members.set(courseId, list);
    },
    setDifferences(courseId, list) {
      differences.set(courseId, list);
    },
    log: { tokens: [], pages: [], refusedAssertions: [], deepLinks: [] },
    openidConfigurationUrl: `${url}/.well-known/openid-configuration`,
    registrationToken: `reg-${Math.random().toString(36).slice(2)}`,
    dynamicRegistration: {},
    registrations: { accepted: [], refused: [] },
    lastForm: null,
    coursePageUrl: (browserOrigin, toolLoginUrl) => `${browserOrigin}/course?${new URLSearchParams({ login: toolLoginUrl })}`,
    storage: { forgeGetData: false, requests: [] },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  async function idToken(params: URLSearchParams): Promise<string> {
    if (!next) throw new Error('no launch set: call nextLaunch first');
    const launch = next;
    const now = Math.floor(Date.now() / 1000) + (launch.timeShiftS ?? 0);
    const context = launch.context ?? { id: 'course-1', title: 'Linguistics 101' };
    const claims: Record<string, unknown> = {
      nonce: launch.nonce ?? params.get('nonce'),
      given_name: launch.user.givenName,
      family_name: launch.user.familyName,
      name: `${launch.user.givenName} ${launch.user.familyName}`,
      ...(launch.user.email === null ? {} : { email: launch.user.email }),
      [`${LTI}message_type`]: launch.messageType ?? 'LtiResourceLinkRequest',
      [`${LTI}version`]: '1.3.0',
      [`${LTI}deployment_id`]: launch.deploymentId ?? platform.deploymentId,
      [`${LTI}target_link_uri`]: params.get('redirect_uri'),
      [`${LTI}resource_link`]: { id: 'resource-link-1', title: 'Say my name' },
      [`${LTI}context`]: { id: context.id, title: context.title, label: 'LING101' },
      'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice': {
        context_memberships_url: platform.membershipsUrl(context.id),
        service_versions: ['2.0'],
      },
    };
    if (!launch.withoutRoles) claims[`${LTI}roles`] = launch.user.roles;
    if (launch.returnUrl !== undefined) {
      claims[`${LTI}launch_presentation`] = { document_target: 'iframe', return_url: launch.returnUrl };
    }
    if (launch.messageType === 'LtiDeepLinkingRequest') {
      claims['https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings'] = {
        deep_link_return_url: launch.deepLinkReturnUrl ?? `${url}/deep-link-return`,
        accept_types: ['ltiResourceLink', 'link'],
        accept_presentation_document_targets: ['iframe', 'window'],
        accept_multiple: false,
        data: 'platform-opaque-data',
      };
    }
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(platform.issuer)
      .setSubject(launch.user.sub)
      .setAudience(launch.audience ?? platform.clientId)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(launch.foreignKey ? foreign.privateKey : privateKey);
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const requestUrl = new URL(request.url ?? '/', url);
    const path = requestUrl.pathname;
    if (path === '/jwks') {
      if (options.keySetStatus !== undefined) {
        response.writeHead(options.keySetStatus).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }));
      return;
    }
    if (path === '/course') {
      const login = requestUrl.searchParams.get('login') ?? '';
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><title>Mock LMS course</title></head><body>
<h1>Course</h1>
<iframe name="post_message_forwarding" src="/storage-frame" title="storage" hidden></iframe>
<iframe name="tool" title="voicename" src="${escapeAttribute(login)}" width="900" height="700"></iframe>
</body></html>`);
      return;
    }
    if (path === '/storage-log' && request.method === 'POST') {
      platform.storage.requests.push(await readBody(request));
      response.writeHead(204).end();
      return;
    }
    if (path === '/storage-frame') {
      // The platform's storage: answers only the tool's origin, to the window that asked.
      const toolOrigin = options.toolOrigin?.() ?? '';
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><title>storage</title></head><body><script>
const store = new Map();
const forge = ${JSON.stringify(platform.storage.forgeGetData)};
window.addEventListener('message', (event) => {
  const m = event.data || {};
  if (event.origin !== ${JSON.stringify(toolOrigin)} || typeof m.subject !== 'string') return;
  fetch('/storage-log', { method: 'POST', body: m.subject + ' ' + (m.key || '') });
  const answer = { subject: m.subject + '.response', message_id: m.message_id };
  if (m.subject === 'org.imsglobal.lti.capabilities') {
    answer.supported_messages = [
      { subject: 'org.imsglobal.lti.capabilities' },
      { subject: 'org.imsglobal.lti.put_data', frame: 'post_message_forwarding' },
      { subject: 'org.imsglobal.lti.get_data', frame: 'post_message_forwarding' },
    ];
  } else if (m.subject === 'org.imsglobal.lti.put_data') {
    store.set(m.key, m.value);
    Object.assign(answer, { key: m.key, value: m.value });
  } else if (m.subject === 'org.imsglobal.lti.get_data') {
    Object.assign(answer, { key: m.key, value: forge ? 'forged-state' : store.get(m.key) });
  } else {
    answer.error = { code: 'unsupported_subject', message: m.subject };
  }
  event.source.postMessage(answer, event.origin);
});
</script></body></html>`);
      return;
    }
    if (path === '/admin' && request.method === 'GET') {
      // The platform's own page, from which browser tests open the tool's registration (window or frame).
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          '<!doctype html><html lang="en"><head><title>Mock LMS admin</title></head><body><h1>Mock LMS admin</h1></body></html>',
        );
      return;
    }
    if (path === '/.well-known/openid-configuration' && request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer: platform.dynamicRegistration.issuer ?? platform.issuer,
          authorization_endpoint: platform.authUrl,
          token_endpoint: platform.tokenUrl,
          jwks_uri: platform.jwksUrl,
          registration_endpoint: `${url}/register`,
          token_endpoint_auth_methods_supported: ['private_key_jwt'],
          token_endpoint_auth_signing_alg_values_supported: ['RS256'],
          scopes_supported: ['openid', NRPS_SCOPE],
          response_types_supported: ['id_token'],
          id_token_signing_alg_values_supported: ['RS256'],
          claims_supported: ['sub', 'iss', 'name', 'given_name', 'family_name', 'email'],
          subject_types_supported: ['public'],
          'https://purl.imsglobal.org/spec/lti-platform-configuration': {
            product_family_code: 'mock-lms',
            version: '1.0',
            messages_supported: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest' }],
          },
        }),
      );
      return;
    }
    if (path === '/register' && request.method === 'POST') {
      const refuse = (why: string) => {
        platform.registrations.refused.push(why);
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'invalid_client_metadata', why }));
      };
      if (request.headers.authorization !== `Bearer ${platform.registrationToken}`) return refuse('registration token');
      if (platform.dynamicRegistration.registrationStatus !== undefined) {
        platform.registrations.refused.push(`status ${platform.dynamicRegistration.registrationStatus}`);
        response.writeHead(platform.dynamicRegistration.registrationStatus, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
      const tool = body['https://purl.imsglobal.org/spec/lti-tool-configuration'] as Record<string, unknown> | undefined;
      const list = (value: unknown) => (Array.isArray(value) ? (value as unknown[]) : []);
      // The fields LTI Dynamic Registration 1.0 (section 3.5.2) makes required of a tool.
      const problems = [
        body.application_type !== 'web' && 'application_type',
        !list(body.response_types).includes('id_token') && 'response_types',
        !(list(body.grant_types).includes('implicit') && list(body.grant_types).includes('client_credentials')) && 'grant_types',
        typeof body.initiate_login_uri !== 'string' && 'initiate_login_uri',
        list(body.redirect_uris).length === 0 && 'redirect_uris',
        typeof body.client_name !== 'string' && 'client_name',
        typeof body.jwks_uri !== 'string' && 'jwks_uri',
        body.token_endpoint_auth_method !== 'private_key_jwt' && 'token_endpoint_auth_method',
        typeof tool?.domain !== 'string' && 'domain',
        typeof tool?.target_link_uri !== 'string' && 'target_link_uri',
      ].filter(Boolean);
      if (problems.length > 0) return refuse(`missing or wrong: ${problems.join(', ')}`);
      platform.registrations.accepted.push(body);
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          client_id: platform.clientId,
          registration_client_uri: `${url}/register/${platform.clientId}`,
          ...body,
          'https://purl.imsglobal.org/spec/lti-tool-configuration': { ...tool, deployment_id: platform.deploymentId },
        }),
      );
      return;
    }
    if (path === '/auth') {
      const params = requestUrl.searchParams;
      const problems = [
        params.get('scope') !== 'openid' && 'scope',
        params.get('response_type') !== 'id_token' && 'response_type',
        params.get('response_mode') !== 'form_post' && 'response_mode',
        params.get('client_id') !== platform.clientId && 'client_id',
        !params.get('nonce') && 'nonce',
        !params.get('state') && 'state',
        !params.get('login_hint') && 'login_hint',
      ].filter(Boolean);
      if (problems.length > 0) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(`bad auth request: ${problems.join(', ')}`);
        return;
      }
      const form = {
        action: params.get('redirect_uri') as string,
        id_token: await idToken(params),
        state: params.get('state') as string,
      };
      platform.lastForm = form;
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><title>Mock LMS</title></head>
<body onload="document.forms[0].submit()">
<form method="post" action="${escapeAttribute(form.action)}">
<input type="hidden" name="id_token" value="${escapeAttribute(form.id_token)}">
<input type="hidden" name="state" value="${escapeAttribute(form.state)}">
<noscript><button type="submit">Continue</button></noscript>
</form></body></html>`);
      return;
    }
    if (path === '/token' && request.method === 'POST') {
      const form = new URLSearchParams(await readBody(request));
      const assertion = form.get('client_assertion') ?? '';
      try {
        if (form.get('grant_type') !== 'client_credentials') throw new Error('grant_type');
        if (form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') {
          throw new Error('client_assertion_type');
        }
        if (form.get('scope') !== 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly')
          throw new Error('scope');
        toolKeys ??= createRemoteJWKSet(new URL(options.toolJwksUrl()));
        const { payload, protectedHeader } = await jwtVerify(assertion, toolKeys, {
          issuer: platform.clientId,
          subject: platform.clientId,
          audience: platform.tokenUrl,
          algorithms: ['RS256'],
          requiredClaims: ['jti', 'exp', 'iat'],
        });
        if (!payload.jti) throw new Error('jti');
        platform.log.tokens.push(protectedHeader.kid ?? '');
      } catch (error) {
        platform.log.refusedAssertions.push(String(error));
        response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client' }));
        return;
      }
      const token = `at-${Math.random().toString(36).slice(2)}`;
      accessTokens.add(token);
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600, scope: form.get('scope') }));
      return;
    }
    if (path === '/deep-link-return' && request.method === 'POST') {
      // The tool's LtiDeepLinkingResponse: checked against the tool's key set, as a platform does.
      const jwt = new URLSearchParams(await readBody(request)).get('JWT') ?? '';
      toolKeys ??= createRemoteJWKSet(new URL(options.toolJwksUrl()));
      const { payload } = await jwtVerify(jwt, toolKeys, {
        issuer: platform.clientId,
        audience: platform.issuer,
        algorithms: ['RS256'],
      });
      if (payload[`${LTI}message_type`] !== 'LtiDeepLinkingResponse') throw new Error('not a deep linking response');
      platform.log.deepLinks.push(payload);
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>Inserted</title><h1>Inserted</h1>');
      return;
    }
    const nrps = /^\/nrps\/([^/]+)$/.exec(path);
    if (nrps && request.method === 'GET') {
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (!bearer || !accessTokens.has(bearer)) {
        response.writeHead(401).end();
        return;
      }
      if (!(request.headers.accept ?? '').includes('application/vnd.ims.lti-nrps.v2.membershipcontainer+json')) {
        response.writeHead(406).end();
        return;
      }
      const courseId = decodeURIComponent(nrps[1] as string);
      const self = platform.membershipsUrl(courseId);
      const contentType = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json';
      if (requestUrl.searchParams.has('since')) {
        platform.log.pages.push(`${courseId}#differences`);
        response.writeHead(200, { 'content-type': contentType, link: `<${self}?since=3>; rel="differences"` }).end(
          JSON.stringify({
            id: requestUrl.toString(),
            context: { id: courseId, label: 'LING101', title: 'Linguistics 101' },
            members: (differences.get(courseId) ?? []).map((member) => ({ status: 'Active', ...member })),
          }),
        );
        return;
      }
      const list = members.get(courseId) ?? [];
      const page = requestUrl.searchParams.get('page') === '2' ? 2 : 1;
      const half = Math.ceil(list.length / 2);
      const slice = page === 1 ? list.slice(0, half) : list.slice(half);
      platform.log.pages.push(`${courseId}#${page}`);
      const headers: Record<string, string> = { 'content-type': contentType };
      headers.link =
        page === 1
          ? `<${self}?page=2>; rel="next", <${self}?since=1>; rel="differences"`
          : `<${self}?since=2>; rel="differences"`;
      response.writeHead(200, headers).end(
        JSON.stringify({
          id: `${self}?page=${page}`,
          context: { id: courseId, label: 'LING101', title: 'Linguistics 101' },
          members: slice.map((member) => ({ status: 'Active', ...member })),
        }),
      );
      return;
    }
    response.writeHead(404).end();
  }

  return platform;
}
