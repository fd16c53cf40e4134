/**
 * OpenTelemetry with OTEL_EXPORTER_OTLP_ENDPOINT set: a request (through `@fastify/otel`), a
 * background job and an outbound call (through the undici instrumentation) reach a real OTLP/HTTP
 * receiver on loopback as spans, with the job's outbound call inside the job's trace.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineJob, handleJob } from '../src/jobs/define.js';
import { JobWorker } from '../src/jobs/worker.js';
import { sendOutbound } from '../src/integrations/outbound-http.js';
import { startTracing, type Tracing } from '../src/tracing.js';
import { Type } from 'typebox';
import { withTransaction } from '../src/db/transaction.js';
import { enqueue } from '../src/jobs/queue.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

let collector: http.Server;
const bodies: { resourceSpans: { resource: unknown; scopeSpans: { spans: OtlpSpan[] }[] }[] }[] = [];
let tracing: Tracing;
let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  collector = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  tracing = (await startTracing({ endpoint, serviceName: 'voicename-test' })) as Tracing;
  t = await createTestApp({ overrides: { tracing } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
  await new Promise<void>((resolve) => collector.close(() => resolve()));
});

const spans = () => bodies.flatMap((body) => body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));

describe('tracing', () => {
  it('is off without an endpoint: nothing is loaded', async () => {
    expect(await startTracing({ endpoint: null, serviceName: 'x' })).toBeNull();
  });

  it('exports request, job and outbound spans over OTLP/HTTP, the outbound call inside its job', async () => {
    const { key } = await t.newAccount();
    expect((await t.request({ method: 'GET', url: '/v1/collections', key })).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    const ping = defineJob({ name: 'test.ping', payload: Type.Object({ url: Type.String() }), maxAttempts: 1, backoff: () => 0 });
    const worker = new JobWorker({
      db: t.deps.db,
      clock: t.deps.clock,
      logger: t.deps.logger,
      jobs: [
        handleJob(ping, (payload) =>
          sendOutbound({ url: payload.url, headers: {}, body: '{}', allowPrivate: true }).then(() => {}),
        ),
      ],
      periodic: [],
    });
    await withTransaction(t.deps, (tx) => enqueue(tx, ping, { url: `${receiver.url}/traced` }));
    expect(await worker.runDue()).toBe(1);
    expect(receiver.requests.map((r) => r.path)).toContain('/traced');

    await tracing.shutdown(); // flushes every batched span
    const all = spans();
    const attribute = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;
    const request = all.find(
      (span) => span.name === 'request' && attribute(span, 'http.route')?.stringValue === '/v1/collections',
    );
    expect(request, all.map((s) => s.name).join(', ')).toBeDefined();
    expect(attribute(request as OtlpSpan, 'http.response.status_code')).toEqual({ intValue: 200 });
    // Health checks are not traced.
    expect(all.some((span) => attribute(span, 'url.path')?.stringValue === '/healthz')).toBe(false);
    const job = all.find((span) => span.name === 'job test.ping');
    expect(job).toBeDefined();
    const outbound = all.find((span) => span.name === 'POST' && span.traceId === job?.traceId);
    expect(outbound, all.map((s) => s.name).join(', ')).toBeDefined();
    expect(outbound?.parentSpanId).toBe(job?.spanId);
    expect(JSON.stringify(bodies[0]?.resourceSpans[0]?.resource)).toContain('voicename-test');
  });
});
