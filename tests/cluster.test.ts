/**
 * The scaled deployment the README describes, as real processes: two API processes
 * (`npm start` with RUN_WORKER=false) and two workers (`npm run worker`) on one PostgreSQL, the
 * S3-compatible server and Redis, behind a small round-robin proxy (the load balancer: it sends
 * each request to the next process, and a refused connection to the other one). It shows that a
 * re-recording through one process is served by the other within 100 ms, that a rotation retires
 * the old token everywhere at once, that rate limits are counted once across both processes,
 * that the separate workers deliver webhooks, and that a rolling restart under load drops no
 * request. (A worker killed mid-delivery is in webhooks-fault.test.ts.) SQLite is one process by
 * design, so this runs on PostgreSQL only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { speechWav } from './helpers/audio.js';
import { createTestApp, freePort, type TestApp } from './helpers/app.js';
import { usingPostgres } from './helpers/database.js';
import { startTestRedis, type TestRedis } from './helpers/redis.js';
import { startTestS3, type TestS3 } from './helpers/s3.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { within } from './helpers/within.js';

interface Member {
  name: string;
  port: number;
  child: ChildProcess;
  log: string;
}

let t: TestApp;
let s3: TestS3;
let redis: TestRedis;
let receiver: Receiver;
let proxy: http.Server;
let proxyUrl = '';
let env: Record<string, string | undefined> = {};
const api: Member[] = [];
const workers: Member[] = [];
let key = '';

function spawnMember(name: string, args: string[], port: number): Member {
  const child = spawn(process.execPath, ['scripts/start.mjs', ...args], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const member: Member = { name, port, child, log: '' };
  child.stdout?.on('data', (chunk) => (member.log += chunk));
  child.stderr?.on('data', (chunk) => (member.log += chunk));
  return member;
}

async function ready(member: Member, ms = 240_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (member.child.exitCode !== null) throw new Error(`${member.name} exited: ${member.log}`);
    try {
      if ((await fetch(`http://127.0.0.1:${member.port}/readyz`)).ok) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${member.name} not ready: ${member.log}`);
}

async function stop(member: Member, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (member.child.exitCode !== null || member.child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    member.child.once('exit', () => resolve());
    member.child.kill(signal);
  });
}

/**
 * The load balancer: round robin over the API processes whose `/readyz` answered 200 at its last
 * check (every 100 ms, as a load balancer's health check); a refused connection goes to the next.
 */
const healthy = new Set<string>();
let checking: NodeJS.Timeout | undefined;
async function startProxy(): Promise<void> {
  let next = 0;
  checking = setInterval(() => {
    for (const member of api) {
      fetch(`http://127.0.0.1:${member.port}/readyz`)
        .then((res) => (res.ok ? healthy.add(member.name) : healthy.delete(member.name)))
        .catch(() => healthy.delete(member.name));
    }
  }, 100);
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      // Each healthy process once (every process if none looks healthy), starting with the next in turn.
      const first = next++;
      const pool = api.filter((member) => healthy.has(member.name));
      const members = pool.length > 0 ? pool : [...api];
      const attempt = (tried: number) => {
        const target = members[(first + tried) % members.length] as Member;
        const upstream = http.request(
          {
            host: '127.0.0.1',
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, connection: 'close' },
            agent: false,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-served-by': target.name });
            answer.pipe(res);
          },
        );
        upstream.on('error', (err: NodeJS.ErrnoException) => {
          // Only a connection never made is safe to try elsewhere (the request did not arrive).
          if (err.code === 'ECONNREFUSED' && tried + 1 < members.length) return attempt(tried + 1);
          if (!res.headersSent) res.writeHead(502).end(`${target.name}: ${err.code ?? err.message}`);
        });
        upstream.end(body);
      };
      attempt(0);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

const call = (url: string, init: RequestInit & { json?: unknown } = {}) =>
  fetch(url, {
    ...init,
    headers: {
      authorization: `Bearer ${key}`,
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.headers as Record<string, string>),
    },
    body: init.json === undefined ? init.body : JSON.stringify(init.json),
  });
const direct = (member: Member, pathname: string, init: RequestInit & { json?: unknown } = {}) =>
  call(`http://127.0.0.1:${member.port}${pathname}`, init);

const onPostgres = usingPostgres();

describe.skipIf(!onPostgres)('a cluster: 2 API processes, 2 workers, PostgreSQL, S3, Redis, a load balancer', () => {
  beforeAll(async () => {
    t = await createTestApp();
    [s3, redis, receiver] = await Promise.all([startTestS3(), startTestRedis(), startReceiver()]);
    await startProxy();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-cluster-'));
    env = {
      ...t.childEnv(),
      DATA_DIR: dataDir,
      BASE_URL: proxyUrl,
      SITE_URL: proxyUrl,
      BLOB_STORE: 's3',
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      REDIS_URL: redis.url,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '4',
      RATE_LIMIT_PER_MINUTE: '1000000',
      // Longer than the load balancer's health-check interval: it stops sending before the close.
      SHUTDOWN_DELAY_MS: '1000',
      LOG_LEVEL: 'warn',
      RUN_WORKER: 'false',
    };
    const [portA, portB] = [await freePort(), await freePort()];
    api.push(spawnMember('api-a', [], portA));
    await ready(api[0] as Member); // the first start may build dist/; the others then find it built
    api.push(spawnMember('api-b', [], portB));
    for (const name of ['worker-1', 'worker-2']) workers.push(spawnMember(name, ['worker'], await freePort()));
    await ready(api[1] as Member);
    ({ key } = await t.newAccount());
  }, 300_000);

  afterAll(async () => {
    await Promise.all([...api, ...workers].map((member) => stop(member, 'SIGKILL')));
    clearInterval(checking);
    await new Promise<void>((resolve) => proxy?.close(() => resolve()));
    await receiver?.close();
    await s3?.close();
    await redis?.close();
    await t?.close();
  });

  it('re-recorded through A, served by B within 100 ms; a rotation through A retires the token in B at once; the workers deliver', async () => {
    const [a, b] = api as [Member, Member];
    const hook = await call(`${proxyUrl}/v1/webhooks`, {
      method: 'POST',
      json: { url: receiver.url, events: ['recording.completed'] },
    });
    expect(hook.status).toBe(201);
    const collection = await (await call(`${proxyUrl}/v1/collections`, { method: 'POST', json: { name: 'Cluster' } })).json();
    const user = await (
      await call(`${proxyUrl}/v1/collections/${collection.id}/users`, {
        method: 'POST',
        json: { email: 'c@example.com', first_name: 'Niamh' },
      })
    ).json();
    const recording = `/v1/collections/${collection.id}/users/${user.id}/recording`;
    const upload = (member: Member, text: string) =>
      direct(member, recording, {
        method: 'PUT',
        headers: { 'content-type': 'audio/wav' },
        body: fs.readFileSync(speechWav(text, text.replace(/\W+/g, '-').toLowerCase())),
      });
    const uploaded = await upload(a, 'Niamh Ni Bhriain');
    const firstTake = await uploaded.json();
    expect(uploaded.status, JSON.stringify(firstTake)).toBe(200);
    const token = new URL(firstTake.play_link).pathname.split('/')[2] as string;
    const metaOf = async (member: Member) => {
      const { play_count: _plays, ...rest } = await (await fetch(`http://127.0.0.1:${member.port}/p/${token}/meta`)).json();
      return JSON.stringify(rest);
    };
    const before = await metaOf(b); // B caches the link
    expect((await upload(a, 'Niamh Ni Bhriain, said slowly and with care')).status).toBe(200);
    const took = await within(100, async () => (await metaOf(b)) !== before);
    expect(took).toBeLessThan(100);
    // The audio B redirects to exists (S3, shared by every process).
    const mp3 = await fetch(`http://127.0.0.1:${b.port}/p/${token}.mp3`, { redirect: 'manual' });
    expect(mp3.status).toBe(302);
    expect((await fetch(mp3.headers.get('location') as string)).status).toBe(200);

    const rotated = await direct(a, `/v1/collections/${collection.id}/users/${user.id}/play-link/rotate`, { method: 'POST' });
    expect(rotated.status).toBe(200);
    const gone = await within(100, async () => (await fetch(`http://127.0.0.1:${b.port}/p/${token}/meta`)).status === 404);
    expect(gone).toBeLessThan(100);

    // Both recordings' events reached the receiver through the worker processes, once each.
    await receiver.waitFor(2, 15_000);
    const ids = receiver.requests.map((request) => request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
  }, 120_000);

  it('counts rate limits once across both API processes (Redis)', async () => {
    const body = JSON.stringify({
      name: `Cluster Agent ${Date.now()}`,
      entity_type: 'ai_agent',
      description: 'An agent that books meetings for small teams.',
      operator: 'Example Robotics',
      visibility: 'public',
    });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const member = api[i % 2] as Member;
      const res = await fetch(`http://127.0.0.1:${member.port}/api/entities/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((status) => status === 402)).toHaveLength(4);
    expect(statuses.filter((status) => status === 429)).toHaveLength(4);
  });

  it('a rolling restart of both API processes under load drops no request', async () => {
    const answers: number[] = [];
    /** Which API process answered each request, in order (the load balancer's `x-served-by`). */
    const servedBy: string[] = [];
    const failures: string[] = [];
    let loading = true;
    const load = async () => {
      while (loading) {
        const res = await call(`${proxyUrl}/v1/collections?limit=5`);
        const text = await res.text();
        answers.push(res.status);
        servedBy.push(res.headers.get('x-served-by') ?? '');
        if (res.status !== 200) failures.push(`${res.status} ${text.slice(0, 120)}`);
      }
    };
    const clients = Array.from({ length: 6 }, load);
    // The load reaches both processes before the first one stops.
    await within(30_000, async () => api.every((member) => servedBy.includes(member.name)));
    for (const [i, member] of api.entries()) {
      await stop(member);
      expect(member.child.exitCode, member.log).toBe(0);
      const restarted = spawnMember(member.name, [], member.port);
      api[i] = restarted;
      await ready(restarted);
      // Back in the load balancer: it answers part of the load before the next process stops.
      const mark = servedBy.length;
      await within(30_000, async () => servedBy.slice(mark).includes(restarted.name));
    }
    loading = false;
    await Promise.all(clients);
    expect(answers.length).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  }, 180_000);
});
