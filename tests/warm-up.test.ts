/**
 * WARM_UP: once the server listens, the speech engine and the card renderer warm up in the
 * background, so the first paid profile after a restart is spoken at warm speed (bench/entities.ts
 * measures it). On by default only where profiles are sold (Stripe); the sandbox keeps both
 * engines unloaded until used, for the idle memory goal (docs/performance.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
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
});
