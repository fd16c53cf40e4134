/**
 * WARM_UP: once the server listens, the speech engine and the card renderer warm up in the
 * background, so the first paid profile after a restart is spoken at warm speed (bench/entities.ts
 * measures it). On by default only where profiles are sold (Stripe); the sandbox keeps both
 * engines unloaded until used, for the idle memory goal (docs/performance.md). The agent API's own
 * first-request work (request checks, the 402's challenges) is warmed first, and leaves nothing behind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { warmUpDeps } from '../src/deps.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { FakeSpeech } from './helpers/fake-speech.js';
import { within } from './helpers/within.js';

/** A speech engine whose warm-up takes until the test lets it finish. */
class SlowWarmingSpeech extends FakeSpeech {
  warmUps = 0;
  finish: () => void = () => undefined;
  warmUp(): Promise<void> {
    this.warmUps++;
    return new Promise((resolve) => (this.finish = resolve));
  }
}

let t: (TestApp & { url: string }) | undefined;
afterEach(() => t?.close());

/** A server with the engine above and a card renderer whose warm-ups are counted. */
async function serverWith(env: Record<string, string>) {
  const speech = new SlowWarmingSpeech();
  const renderer = { warmUps: 0 };
  t = await startTestServer({ env, overrides: { speech } });
  const real = t.deps.cards.renderer;
  real.warm = async () => {
    renderer.warmUps++;
  };
  return { speech, renderer, server: t };
}

describe('WARM_UP', () => {
  it('is on by default with Stripe payments and off on the sandbox; the setting wins either way', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).warmUp).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', STRIPE_SECRET_KEY: 'sk_test_x' }).warmUp).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test', STRIPE_SECRET_KEY: 'sk_test_x', WARM_UP: 'false' }).warmUp).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', WARM_UP: 'true' }).warmUp).toBe(true);
  });

  it('warms the speech engine and then the card renderer after listen, answering requests meanwhile', async () => {
    const { speech, renderer, server } = await serverWith({ WARM_UP: 'true' });
    await within(5_000, async () => speech.warmUps === 1);
    // Listening did not wait for the warm-up: the server answers while the engine is still warming.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(renderer.warmUps).toBe(0);
    speech.finish();
    await within(5_000, async () => renderer.warmUps === 1);
    expect(speech.warmUps).toBe(1);
  });

  it('/readyz says when the warm-up has finished, and is ready before it', async () => {
    const { speech, server } = await serverWith({ WARM_UP: 'true' });
    await within(5_000, async () => speech.warmUps === 1);
    const during = await fetch(`${server.url}/readyz`);
    expect(during.status).toBe(200);
    expect(await during.json()).toEqual({ status: 'ready', warm: false });
    speech.finish();
    await within(5_000, async () => (await (await fetch(`${server.url}/readyz`)).json()).warm === true);
  });

  it('leaves both engines alone when off', async () => {
    const { speech, renderer, server } = await serverWith({ WARM_UP: 'false' });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'ready', warm: false });
    // Fastify runs its onListen hooks as listening starts: any warm-up would have begun by now.
    await new Promise((resolve) => setImmediate(resolve));
    expect(speech.warmUps).toBe(0);
    expect(renderer.warmUps).toBe(0);
  });

  it("runs the agent API's request checks before the engines and leaves no trace: no rows, no metric, the name still free", async () => {
    const { speech, server } = await serverWith({ WARM_UP: 'false' });
    const validate = server.deps.agentApi.validate;
    const validated: unknown[] = [];
    server.deps.agentApi.validate = (body) => {
      validated.push(body);
      return validate(body);
    };
    const warming = warmUpDeps(server.deps);
    await within(5_000, async () => speech.warmUps === 1);
    // The sample request and a refused one were checked before the speech engine began.
    expect(validated.length).toBeGreaterThanOrEqual(2);
    expect(validate(validated[0])).toBeNull();
    speech.finish();
    await warming;
    expect(server.deps.lifecycle.warm).toBe(true);

    const { kysely } = server.deps.db;
    for (const table of ['entity_payment_requests', 'entities', 'sandbox_payment_intents'] as const) {
      expect(await kysely.selectFrom(table).selectAll().execute()).toEqual([]);
    }
    const metrics = await server.deps.metrics.registry.metrics();
    expect(metrics).not.toMatch(/outcome="instruction_issued"/);
    // An agent may still buy the sample's name: the warm-up did not reserve it.
    const unpaid = await fetch(`${server.url}/api/entities/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Warm-up Agent 7',
        entity_type: 'ai_agent',
        description: 'A real request after the warm-up.',
        operator: 'Warm-up Operator',
        visibility: 'unlisted',
      }),
    });
    expect(unpaid.status).toBe(402);
  });
});
