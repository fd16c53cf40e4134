/**
 * The HTTP server's connection settings, over real sockets: idle keep-alive connections outlive a
 * load balancer's idle timeout, a client trickling a body is cut off after its budget with a 408,
 * the recorder refuses an unknown token before reading the upload, and a body over its limit is
 * read to its end (within a bound) before the 413, so clients that send it all see the answer.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { within } from './helpers/within.js';

let t: TestApp & { url: string };
let key: string;

beforeAll(async () => {
  t = await startTestServer({ env: { REQUEST_TIMEOUT_MS: '1500', UPLOAD_TIMEOUT_MS: '4000' } });
  ({ key } = await t.newAccount());
});
afterAll(() => t.close());

/** A raw connection: write bytes, read everything the server sends until it closes (or `waitMs`). */
function rawConnection() {
  const { port } = new URL(t.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  let received = '';
  let closedAt: number | null = null;
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve(void (closedAt = Date.now()))));
  socket.on('error', () => undefined);
  return {
    write: (text: string) => socket.write(text),
    received: () => received,
    closed,
    closedAt: () => closedAt,
    end: () => socket.destroy(),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('keep-alive', () => {
  it('keeps an idle connection open past Node’s 5 s default (load balancers keep theirs 60 s)', { timeout: 20_000 }, async () => {
    expect(t.app.server.keepAliveTimeout).toBe(72_000);
    const connection = rawConnection();
    connection.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await sleep(6_500); // real time on purpose: past Node's 5 s keep-alive default
    expect(connection.closedAt()).toBeNull();
    connection.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    await connection.closed;
    expect(connection.received().match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
  });
});

describe('request body budgets', () => {
  it(
    'answers 408 and closes the connection when a JSON body trickles in past REQUEST_TIMEOUT_MS',
    { timeout: 20_000 },
    async () => {
      const connection = rawConnection();
      const started = Date.now();
      connection.write(
        `POST /v1/collections HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
      );
      const trickle = setInterval(() => connection.write(' '), 300);
      await connection.closed;
      clearInterval(trickle);
      const elapsed = Date.now() - started;
      expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(connection.received()).toContain('"code":"request_timeout"');
      expect(elapsed).toBeGreaterThanOrEqual(1_400);
      expect(elapsed).toBeLessThan(6_000);
    },
  );

  it('gives audio uploads their own, longer budget (UPLOAD_TIMEOUT_MS)', { timeout: 20_000 }, async () => {
    const connection = rawConnection();
    const started = Date.now();
    connection.write(
      `PUT /v1/collections/c/users/u/recording HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: audio/wav\r\nContent-Length: 5000\r\n\r\nRIFF`,
    );
    const trickle = setInterval(() => connection.write('\0'), 300);
    await connection.closed;
    clearInterval(trickle);
    const elapsed = Date.now() - started;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(elapsed).toBeGreaterThanOrEqual(3_900);
    expect(elapsed).toBeLessThan(9_000);
  });
});

describe('recorder upload', () => {
  it('refuses an unknown record token before reading the body', { timeout: 10_000 }, async () => {
    const connection = rawConnection();
    const started = Date.now();
    // Announces 4 MB and sends none of it: the answer must not wait for the body.
    connection.write(
      `POST /r/${'x'.repeat(24)}/recording HTTP/1.1\r\nHost: localhost\r\nContent-Type: audio/webm\r\nContent-Length: 4000000\r\n\r\n`,
    );
    await within(1_000, async () => connection.received().includes('\r\n\r\n'));
    connection.end();
    expect(connection.received()).toMatch(/^HTTP\/1\.1 404 /);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('oversized bodies', () => {
  const head = (length: number) =>
    `POST /v1/collections HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  it('reads the rest of a body announced over the limit before answering 413 and closing', { timeout: 20_000 }, async () => {
    const length = t.config.jsonBodyLimit + 10;
    const connection = rawConnection();
    connection.write(head(length) + ' '.repeat(100_000));
    await sleep(300); // real time on purpose: nothing may be answered meanwhile
    // An answer now would reset the connection under a client still sending (EPIPE in fetch).
    expect(connection.received()).toBe('');
    expect(connection.closedAt()).toBeNull();
    connection.write(' '.repeat(length - 100_000));
    await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(connection.received()).toContain('"code":"payload_too_large"');
  });

  it('answers 413 and closes when the rest of the body does not come within the budget', { timeout: 20_000 }, async () => {
    const connection = rawConnection();
    const started = Date.now();
    connection.write(head(t.config.jsonBodyLimit + 10) + ' '.repeat(100_000));
    await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(Date.now() - started).toBeLessThan(6_000);
  });
});
