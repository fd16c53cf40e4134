/**
 * A SAML 2.0 identity provider for the tests, on loopback: its own RSA key and self-signed X.509
 * certificate (a fixture made once by `openssl req -x509`), responses built as IdPs send them and signed
 * with node-saml's own XML signing (the assertion, enveloped, RSA-SHA256), and an SSO endpoint
 * that reads the HTTP-Redirect AuthnRequest and answers the browser with a page that posts the
 * signed response to the ACS by itself (HTTP-POST binding), for the browser test.
 *
 * Each test shapes a response (`response()`): who, which groups, and what to get wrong (no
 * signature, another key, expired, another audience, another recipient, an assertion ID reused).
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { signSamlPost } from '@node-saml/node-saml/lib/saml-post-signing.js';

export interface SamlResponseOptions {
  email: string;
  groups?: string[];
  /** The AuthnRequest answered; absent: an unsolicited (IdP-initiated) response. */
  inResponseTo?: string;
  audience?: string;
  recipient?: string;
  /** The response's Destination (default: the recipient). */
  destination?: string;
  /** Where the assertion's validity ends, relative to now (ms); negative: already expired. */
  validForMs?: number;
  /** `idp`: this IdP's key; `other`: a key the service provider does not know; `none`: unsigned. */
  signedBy?: 'idp' | 'other' | 'none';
  assertionId?: string;
}

export interface TestSamlIdp {
  entityId: string;
  ssoUrl: string;
  /** The IdP's signing certificate, PEM, as an admin pastes it. */
  certificate: string;
  /** The service provider's ACS and entity id the responses are addressed to. */
  acsUrl: string;
  spEntityId: string;
  /** Who signs in at the SSO endpoint next (the browser test), and their groups. */
  nextLogin: { email: string; groups: string[] } | null;
  /** AuthnRequests received at the SSO endpoint, decoded. */
  requests: string[];
  /** A signed (or deliberately broken) response, base64, as posted to the ACS in `SAMLResponse`. */
  response(options: SamlResponseOptions): string;
  close(): Promise<void>;
}

const escapeXml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/**
 * The test IdP's key and its self-signed certificate, made once with
 * `openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -subj /CN=test-idp` and kept beside
 * this file (node:crypto makes keys, not certificates; a fixture spares the tests a system openssl).
 * They sign nothing but test responses.
 */
function makeKeyAndCertificate(): { key: string; certificate: string } {
  const dir = fileURLToPath(new URL('./saml-idp-keys/', import.meta.url));
  return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), certificate: readFileSync(join(dir, 'certificate.pem'), 'utf8') };
}

const ASSERTION_XPATH = "/*[local-name(.)='Response']/*[local-name(.)='Assertion']";

/**
 * `host`: the name browsers reach the IdP by (it listens on 127.0.0.1). The browser test uses
 * `localhost`, another site than the app's 127.0.0.1, so the post to the ACS is cross-site as in
 * production and carries no SameSite=Lax cookie.
 */
export async function startSamlIdp(options: { acsUrl: string; spEntityId: string; host?: string }): Promise<TestSamlIdp> {
  const { key, certificate } = makeKeyAndCertificate();
  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
  const requests: string[] = [];
  let entityId = '';

  function response(o: SamlResponseOptions): string {
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const until = iso(now + (o.validForMs ?? 5 * 60_000));
    const issued = o.validForMs !== undefined && o.validForMs < 0 ? now + o.validForMs - 5 * 60_000 : now;
    const recipient = escapeXml(o.recipient ?? idp.acsUrl);
    const inResponseTo = o.inResponseTo ? ` InResponseTo="${escapeXml(o.inResponseTo)}"` : '';
    const groups = (o.groups ?? [])
      .map((g) => `<saml:AttributeValue xsi:type="xs:string">${escapeXml(g)}</saml:AttributeValue>`)
      .join('');
    const assertion = `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ID="${escapeXml(o.assertionId ?? `_${randomUUID()}`)}" Version="2.0" IssueInstant="${iso(issued)}"><saml:Issuer>${escapeXml(entityId)}</saml:Issuer><saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escapeXml(o.email)}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${until}" Recipient="${recipient}"${inResponseTo}/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${iso(issued - 60_000)}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${escapeXml(o.audience ?? idp.spEntityId)}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${iso(issued)}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement><saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue xsi:type="xs:string">${escapeXml(o.email)}</saml:AttributeValue></saml:Attribute>${groups ? `<saml:Attribute Name="groups">${groups}</saml:Attribute>` : ''}</saml:AttributeStatement></saml:Assertion>`;
    const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${iso(now)}" Destination="${o.destination === undefined ? recipient : escapeXml(o.destination)}"${inResponseTo}><saml:Issuer>${escapeXml(entityId)}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>${assertion}</samlp:Response>`;
    const signedBy = o.signedBy ?? 'idp';
    const signed =
      signedBy === 'none'
        ? xml
        : signSamlPost(xml, ASSERTION_XPATH, {
            privateKey: signedBy === 'idp' ? key : otherKey,
            signatureAlgorithm: 'sha256',
            digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
          });
    return Buffer.from(signed).toString('base64');
  }

  const server = http.createServer((request, reply) => {
    const url = new URL(request.url ?? '/', 'http://idp.invalid');
    const samlRequest = url.searchParams.get('SAMLRequest');
    if (url.pathname !== '/sso' || samlRequest === null || idp.nextLogin === null) {
      reply.writeHead(400).end('not a sign-in this IdP expects');
      return;
    }
    const authnRequest = inflateRawSync(Buffer.from(samlRequest, 'base64')).toString('utf8');
    requests.push(authnRequest);
    const id = /\sID="([^"]+)"/.exec(authnRequest)?.[1] ?? '';
    const body = response({ ...idp.nextLogin, inResponseTo: id });
    const relayState = url.searchParams.get('RelayState');
    // The HTTP-POST binding: a page that posts the response to the ACS as soon as it loads.
    reply.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><title>Test IdP</title></head>
<body onload="document.forms[0].submit()"><form method="post" action="${escapeXml(idp.acsUrl)}">
<input type="hidden" name="SAMLResponse" value="${body}">
${relayState ? `<input type="hidden" name="RelayState" value="${escapeXml(relayState)}">` : ''}
<noscript><button type="submit">Continue</button></noscript></form></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  entityId = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  const idp: TestSamlIdp = {
    entityId,
    ssoUrl: `${entityId}/sso`,
    certificate,
    acsUrl: options.acsUrl,
    spEntityId: options.spEntityId,
    nextLogin: null,
    requests,
    response,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return idp;
}
