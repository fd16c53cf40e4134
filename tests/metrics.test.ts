/**
 * Prometheus metrics: nothing is exposed unless asked for; `GET /metrics` needs the bearer token;
 * `METRICS_PORT` serves them apart from the API port. The numbers move with what the service
 * does: requests by route template and status, job queue depth, audio processing, payment
 * outcomes, play-link cache lookups, and the runtime's event-loop lag.
 */
import fs from 'node:fs';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetricsServer } from '../src/http/metrics.js';
import { createTestApp, freePort, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { generate, validBody } from './helpers/entities.js';
import { addRecordedUser, addUser, createCollection } from './helpers/play-link-fixtures.js';

const TOKEN = 'metrics-token-0123456789';

/** The value of one sample line, e.g. `name{a="b"} 3`, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split('\n')
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `) ? wanted.every((w) => l.includes(w)) : false));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics with METRICS_TOKEN', () => {
  let t: TestApp;
  let key: string;
  const scrape = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    return res.body;
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
    ({ key } = await t.newAccount());
  });
  afterAll(() => t.close());

  it('refuses a missing or wrong token', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer metrics-token-0123456780' },
    });
    expect(wrong.statusCode).toBe(401);
  });

  it('counts requests by route template and status, never by raw URL', async () => {
    await t.request({ method: 'GET', url: '/v1/collections', key });
    await t.request({ method: 'GET', url: '/v1/collections/00000000-0000-4000-8000-000000000000', key });
    const text = await scrape();
    expect(sample(text, 'voicename_http_request_duration_seconds_count', { route: '/v1/collections', status: '200' })).toBe(1);
    expect(
      sample(text, 'voicename_http_request_duration_seconds_count', { route: '/v1/collections/:collection_id', status: '404' }),
    ).toBe(1);
    expect(text).not.toContain('00000000-0000-4000-8000-000000000000');
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('shows audio processing, payment outcomes and play-link cache lookups', async () => {
    const collectionId = await createCollection(t, key);
    const userId = await addUser(t, collectionId);
    const upload = await t.request({
      method: 'PUT',
      url: `/v1/collections/${collectionId}/users/${userId}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    expect(upload.statusCode, upload.body).toBe(200);
    expect((await generate(t, validBody({ name: 'Metrics Agent' }))).statusCode).toBe(402);
    const { token } = await addRecordedUser(t, collectionId);
    for (let i = 0; i < 3; i++) await t.app.inject({ method: 'GET', url: `/p/${token}/meta` });
    const text = await scrape();
    expect(sample(text, 'voicename_audio_processing_seconds_count', { outcome: 'ok' })).toBe(1);
    expect(sample(text, 'voicename_entity_payments_total', { outcome: 'instruction_issued' })).toBe(1);
    expect(sample(text, 'voicename_play_link_cache_lookups_total', { result: 'hit' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'voicename_play_link_cache_lookups_total', { result: 'miss' })).toBeGreaterThanOrEqual(1);
  });

  it('shows due jobs by type', async () => {
    // The test app runs no worker: the recording above queued its webhook fan-out and nothing ran it.
    const text = await scrape();
    const due = text.split('\n').filter((l) => l.startsWith('voicename_jobs_due{'));
    expect(due.length).toBeGreaterThan(0);
    expect(sample(text, 'voicename_jobs_due', { job: 'webhook.delivery' })).toBe(0);
  });
});

describe('metrics exposure', () => {
  it('is off by default: /metrics is 404', async () => {
    const t = await createTestApp();
    try {
      expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });

  describe('with METRICS_PORT', () => {
    let t: TestApp;
    let server: http.Server;
    let port: number;
    beforeAll(async () => {
      port = await freePort();
      t = await createTestApp({ env: { METRICS_PORT: String(port), METRICS_TOKEN: TOKEN } });
      server = await startMetricsServer(t.deps.metrics, port, '127.0.0.1');
    });
    afterAll(async () => {
      server.close();
      await t.close();
    });

    it('serves them on that port only, without a token, and not on the API port', async () => {
      await t.app.inject({ method: 'GET', url: '/healthz' });
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(sample(await res.text(), 'voicename_http_request_duration_seconds_count', { route: '/healthz' })).toBe(1);
      const api = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      expect(api.statusCode).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    });
  });
});
