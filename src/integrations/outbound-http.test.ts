import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOutboundUrl, openOutboundPools, OutboundError, sendOutbound } from './outbound-http.js';
import { isForbiddenAddress } from './public-address.js';

// Hook0's tables (output-worker/src/dns.rs) plus AWS IMDSv6 and the research notes' extras.
const forbidden = [
  '0.0.0.0',
  '127.0.0.1',
  '10.0.0.1',
  '172.16.5.4',
  '172.31.255.255',
  '192.168.1.1',
  '100.64.0.1',
  '169.254.1.1',
  '169.254.169.254',
  '192.0.0.8',
  '192.0.2.1',
  '198.18.0.1',
  '198.51.100.7',
  '203.0.113.9',
  '192.88.99.1',
  '224.0.0.1',
  '239.255.255.250',
  '255.255.255.255',
  '::1',
  '::',
  '1::1',
  '0:0:0:1::1',
  'ff:ffff::1',
  'fc00::1',
  'fd00:ec2::254',
  'fe80::1',
  '::ffff:127.0.0.1',
  '::ffff:169.254.169.254',
  '64:ff9b:1::1',
  '100::1',
  'fec0::1',
  '5f00::1',
  'ff02::1',
  'ff0e::1',
  '2001::1',
  '2001:1ff::1',
  '2001:db8::1',
  '3fff::1',
  '3fff:fff::1',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b::7f00:1',
  '64:ff9b::a00:1',
  '64:ff9b::e000:1',
  '64:ff9b::c058:6301',
  '64:ff9b::',
  '64:ff9b:0:1::1',
  '2002:a9fe:a9fe::1',
  '2002:7f00:1::1',
  '2002:5db8:d822::1',
  '::7f00:1',
  '::a9fe:a9fe',
  '::ffff:0:7f00:1',
  '::ffff:0:a9fe:a9fe',
  '::ffff:0:5db8:d822',
  '::5efe:7f00:1',
  '::5efe:a9fe:a9fe',
];

const allowed = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.216.34',
  '192.88.98.255',
  '192.88.100.1',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '100:0:0:1::1',
  '64:ff9b::5db8:d822',
  '2001:1::1',
  '2001:1::2',
  '2001:3::1',
  '2001:4:112::1',
  '2001:20::1',
  '2001:2f::1',
  '2001:200::1',
  '3fff:1000::1',
  '64:ff9b::101:101',
];

// URL spellings a customer could register; each must end up refused.
const forbiddenUrls = [
  'https://127.0.0.1/hook',
  'https://0x7f.1/hook',
  'https://2130706433/hook',
  'https://127.1/hook',
  'https://0177.0.0.1/hook',
  'https://[::1]/hook',
  'https://[0:0:0:0:0:0:0:1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://[::7f00:1]/hook',
  'https://[::5efe:7f00:1]/hook',
  'https://[64:ff9b::7f00:1]/hook',
  'https://[2002:7f00:1::1]/hook',
  'https://169.254.169.254/latest/meta-data',
  'https://[fd00:ec2::254]/latest/meta-data',
  'https://10.1.2.3/hook',
  'https://172.16.0.1/hook',
  'https://172.31.0.1/hook',
  'https://192.168.0.10/hook',
  'https://100.64.1.1/hook',
  'https://[fc00::1]/hook',
  'https://[fd12:3456::1]/hook',
  'https://[fe80::1]/hook',
  'https://0.0.0.0/hook',
  'https://localhost/hook',
  'https://localhost.:8443/hook',
];

async function outboundCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'no error';
  } catch (error) {
    if (error instanceof OutboundError) return error.code;
    throw error;
  }
}

describe('address classification', () => {
  it.each(forbidden)('refuses %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });
  it.each(allowed)('allows %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});

describe('checkOutboundUrl (registration)', () => {
  it.each(forbiddenUrls)('refuses %s', async (url) => {
    expect(await outboundCode(checkOutboundUrl(url, { allowPrivate: false }))).toBe('forbidden_address');
  });

  it('refuses a host name whose resolver answers 127.0.0.1', async () => {
    const lookup = async () => ['127.0.0.1'];
    expect(await outboundCode(checkOutboundUrl('https://hooks.customer.test/x', { allowPrivate: false, lookup }))).toBe(
      'forbidden_address',
    );
  });

  it('refuses an answer mixing public and private addresses', async () => {
    const lookup = async () => ['93.184.216.34', '10.0.0.5'];
    expect(await outboundCode(checkOutboundUrl('https://mixed.test/x', { allowPrivate: false, lookup }))).toBe(
      'forbidden_address',
    );
  });

  it('accepts a host that resolves to public addresses only', async () => {
    const lookup = async () => ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'];
    expect(await outboundCode(checkOutboundUrl('https://hooks.customer.test/x', { allowPrivate: false, lookup }))).toBe(
      'no error',
    );
  });

  it.each([
    ['http://93.184.216.34/x', 'invalid_url'],
    ['ftp://example.com/x', 'invalid_url'],
    ['https://user:pw@example.com/x', 'invalid_url'],
    ['https://example.com/x#frag', 'invalid_url'],
    ['not a url', 'invalid_url'],
    [`https://example.com/${'a'.repeat(2048)}`, 'invalid_url'],
  ])('refuses %s as %s', async (url, code) => {
    expect(await outboundCode(checkOutboundUrl(url, { allowPrivate: false, lookup: async () => ['93.184.216.34'] }))).toBe(code);
  });

  it('reports a name that does not resolve', async () => {
    const lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await outboundCode(checkOutboundUrl('https://nowhere.test/x', { allowPrivate: false, lookup }))).toBe('dns_failed');
  });

  it('allows http and private hosts when allowPrivate is on', async () => {
    expect(await outboundCode(checkOutboundUrl('http://127.0.0.1:9/x', { allowPrivate: true }))).toBe('no error');
  });
});

describe('sendOutbound', () => {
  let server: http.Server;
  let port = 0;
  const hits: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        hits.push({ path: req.url ?? '', headers: req.headers, body });
        if (req.url === '/redirect') {
          res.writeHead(302, { location: `http://127.0.0.1:${port}/target` }).end();
        } else if (req.url === '/big') {
          res.writeHead(200).end('é'.repeat(5000));
        } else if (req.url === '/slow') {
          setTimeout(() => res.writeHead(200).end('late'), 1500);
        } else {
          res.writeHead(201, { 'content-type': 'text/plain' }).end('created');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const base = () => ({ headers: { 'content-type': 'application/json' }, body: '{"a":1}' });

  it.each(forbiddenUrls)('refuses to send to %s', async (url) => {
    const before = hits.length;
    // Point the URL at our live loopback port: the request would land if the check were missing.
    const parsed = new URL(url);
    parsed.port = String(port);
    const target = parsed.toString();
    expect(await outboundCode(sendOutbound({ ...base(), url: target, allowPrivate: false }))).toBe('forbidden_address');
    expect(hits.length).toBe(before);
  });

  it('refuses to send to a name resolving to 127.0.0.1 (injected resolver)', async () => {
    const before = hits.length;
    const lookup = async () => ['127.0.0.1'];
    const result = sendOutbound({ ...base(), url: `https://rebind.test:${port}/hook`, allowPrivate: false, lookup });
    expect(await outboundCode(result)).toBe('forbidden_address');
    expect(hits.length).toBe(before);
  });

  it('connects to the address it resolved, resolving only once (no rebinding window)', async () => {
    let calls = 0;
    const lookup = async () => {
      calls += 1;
      return ['127.0.0.1'];
    };
    // The system resolver does not know this name: the request can only land via the pinned address.
    const response = await sendOutbound({ ...base(), url: `http://pinned.invalid:${port}/pinned`, allowPrivate: true, lookup });
    expect(response.status).toBe(201);
    expect(calls).toBe(1);
    expect(hits.at(-1)?.headers.host).toBe(`pinned.invalid:${port}`);
  });

  it('refuses plain http when private targets are not allowed', async () => {
    expect(await outboundCode(sendOutbound({ ...base(), url: `http://127.0.0.1:${port}/x`, allowPrivate: false }))).toBe(
      'invalid_url',
    );
  });

  it('posts the exact body and headers and returns status, duration and snippet', async () => {
    const response = await sendOutbound({
      url: `http://127.0.0.1:${port}/ok`,
      headers: { 'content-type': 'application/json', 'x-test': 'yes' },
      body: '{"exact": "bytes"}',
      allowPrivate: true,
    });
    expect(response).toMatchObject({ status: 201, bodySnippet: 'created' });
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
    const hit = hits.at(-1)!;
    expect(hit.body).toBe('{"exact": "bytes"}');
    expect(hit.headers['x-test']).toBe('yes');
  });

  it('returns a redirect as its status and never fetches the Location', async () => {
    const before = hits.length;
    const response = await sendOutbound({ ...base(), url: `http://127.0.0.1:${port}/redirect`, allowPrivate: true });
    expect(response.status).toBe(302);
    expect(hits.length).toBe(before + 1);
    expect(hits.some((hit) => hit.path === '/target')).toBe(false);
  });

  it('keeps only the first 2 KB of the response body', async () => {
    const response = await sendOutbound({ ...base(), url: `http://127.0.0.1:${port}/big`, allowPrivate: true });
    expect(Buffer.byteLength(response.bodySnippet)).toBeLessThanOrEqual(2048);
    expect(Buffer.byteLength(response.bodySnippet)).toBeGreaterThan(2040);
    expect(response.bodySnippet).toMatch(/^é+$/);
  });

  it('times out a slow receiver', async () => {
    const code = await outboundCode(
      sendOutbound({ ...base(), url: `http://127.0.0.1:${port}/slow`, allowPrivate: true, timeoutMs: 300 }),
    );
    expect(code).toBe('timeout');
  });

  it('keeps the connection alive for the next request to the same checked address', async () => {
    const receiver = http.createServer((_req, res) => res.writeHead(204).end());
    let connections = 0;
    receiver.on('connection', () => connections++);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverPort = (receiver.address() as AddressInfo).port;
    try {
      for (let i = 0; i < 10; i++) {
        const res = await sendOutbound({ ...base(), url: `http://127.0.0.1:${receiverPort}/hook`, allowPrivate: true });
        expect(res.status).toBe(204);
      }
      // Reused, not one per request (undici may open a second while the first finishes its request).
      expect(connections).toBeLessThanOrEqual(2);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('never reuses a connection for an answer with another address: each checked address has its own pool', async () => {
    const before = openOutboundPools();
    const at = (address: string) => async () => [address];
    const first = await sendOutbound({
      ...base(),
      url: `http://moving.invalid:${port}/a`,
      allowPrivate: true,
      lookup: at('127.0.0.1'),
    });
    expect(first.status).toBe(201);
    // The same name now resolves elsewhere: a new pool, connected to the new address (nothing listens there).
    const moved = sendOutbound({
      ...base(),
      url: `http://moving.invalid:${port}/b`,
      allowPrivate: true,
      lookup: at('127.0.0.9'),
    });
    expect(await outboundCode(moved)).toBe('connect_failed');
    expect(openOutboundPools()).toBe(before + 2);
    expect(hits.some((hit) => hit.path === '/b')).toBe(false);
  });

  it('reports a refused connection', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const code = await outboundCode(sendOutbound({ ...base(), url: `http://127.0.0.1:${closedPort}/x`, allowPrivate: true }));
    expect(code).toBe('connect_failed');
  });
});
