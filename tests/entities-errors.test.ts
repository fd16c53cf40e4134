/**
 * The agent API's error handler (agent-api/http.ts): agent API AppErrors in the spec's shapes,
 * anything else (an internal AppError included) as the generic 500 that reveals nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError, errorBody } from '../src/errors.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { generate, paymentHeader, validBody } from './helpers/entities.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { SITE_URL: 'http://agents.localhost:3000' } });
});
afterAll(() => t.close());

describe('entities error handler', () => {
  it('answers an unexpected failure, an internal AppError included, with the generic 500', async () => {
    const body = validBody();
    const unpaid = await generate(t, body);
    expect(unpaid.statusCode).toBe(402);
    const reference = unpaid.json().mpp_instruction.reference;
    for (const failure of [new AppError('internal_error', 'internal detail'), new Error('internal detail')]) {
      const spy = vi.spyOn(t.deps.payments, 'retrieveIntent').mockRejectedValueOnce(failure);
      const res = await generate(t, body, paymentHeader(reference));
      spy.mockRestore();
      expect(res.statusCode).toBe(500);
      expect(res.headers['cache-control']).toBe('no-store');
      // Names the request id and does not invite a retry that cannot succeed.
      expect(res.json()).toEqual({
        status: 'error',
        message: `Internal error (request id ${res.headers['x-request-id'] as string}); it has been logged. Repeating this request unchanged is unlikely to help: contact support with the request id. A paid request is never charged twice.`,
      });
      expect(res.body).not.toContain('internal detail');
    }
  });

  it('keeps agent details out of the /v1 envelope', () => {
    const error = new AppError('payment_required', 'Pay first.', { details: { mpp_instruction: { amount: '1.00' } } });
    expect(error.status).toBe(402);
    expect(errorBody(error, 'req_1')).toEqual({
      error: { type: 'invalid_request_error', code: 'payment_required', message: 'Pay first.', request_id: 'req_1' },
    });
  });
});
