/** Helpers for the entity API tests: valid bodies, the paid flow on the sandbox processor. */
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp, type TestAppOptions } from './app.js';
import { FakeSpeech } from './fake-speech.js';

let counter = 0;

/** A valid generation body with a unique name (override any field). */
export function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    name: `Test Agent ${process.pid}-${counter}-${Math.random().toString(36).slice(2, 7)}`,
    entity_type: 'ai_agent',
    description: 'An agent that books meetings for small teams.',
    operator: 'Example Robotics',
    visibility: 'public',
    ...overrides,
  };
}

export const paymentHeader = (reference: string) => ({ 'payment-authorization': `mpp; reference="${reference}"` });

export function generate(t: TestApp, body: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/api/entities/generate',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

/** Pays a sandbox instruction the way an agent does, through the confirm URL. */
export async function confirmSandbox(t: TestApp, instruction: { reference: string; address: string }, paymentMethod?: string) {
  return t.app.inject({
    method: 'POST',
    url: `/api/sandbox/payment-intents/${instruction.reference}/confirm`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ client_secret: instruction.address, ...(paymentMethod ? { payment_method: paymentMethod } : {}) }),
  });
}

/** 402 → confirm → 200: returns the 402 instruction and the published response. */
export async function publishEntity(t: TestApp, body: Record<string, unknown>) {
  const unpaid = await generate(t, body);
  if (unpaid.statusCode !== 402) throw new Error(`expected 402, got ${unpaid.statusCode}: ${unpaid.body}`);
  const instruction = unpaid.json().mpp_instruction;
  const confirmed = await confirmSandbox(t, instruction);
  if (confirmed.statusCode !== 200) throw new Error(`confirm failed: ${confirmed.body}`);
  const paid = await generate(t, body, paymentHeader(instruction.reference));
  return { instruction, paid };
}

/**
 * Test apps for the entity API, closed together: speech is the fake engine (it answers at once;
 * entities-flow.test.ts uses the real one) and the unpaid rate limit is out of the way.
 */
export function entityApps() {
  const apps: TestApp[] = [];
  return {
    async app(options: TestAppOptions = {}): Promise<TestApp> {
      const created = await createTestApp({
        ...options,
        env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '100000', ...options.env },
        overrides: { speech: new FakeSpeech(), ...options.overrides },
      });
      apps.push(created);
      return created;
    },
    track(created: TestApp): void {
      apps.push(created);
    },
    async closeAll(): Promise<void> {
      for (const created of apps) await created.close();
    },
  };
}
