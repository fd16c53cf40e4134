/**
 * The authentication contract every /v1 route must pass. Call inside a `describe` after the
 * routes' resources exist: `authContract(() => ({ t, routes }))`.
 */
import { expect, it } from 'vitest';
import { revokeApiKey } from '../../src/features/api-keys/service.js';
import type { TestApp } from './app.js';

export interface ContractRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  json?: unknown;
  /** A raw body (e.g. a CSV file) with its headers, for routes that take no JSON. */
  payload?: string;
  headers?: Record<string, string>;
  /** The route names a resource of the owner: another account's key must get 404. */
  owned?: boolean;
}

export function authContract(context: () => { t: TestApp; routes: ContractRoute[] }) {
  const send = (route: ContractRoute, authorization?: string) =>
    context().t.request({
      method: route.method,
      url: route.url,
      ...(route.json === undefined ? {} : { json: route.json }),
      ...(route.payload === undefined ? {} : { payload: route.payload }),
      headers: { ...route.headers, ...(authorization === undefined ? {} : { authorization }) },
    });

  const expectError = (
    res: { statusCode: number; json(): { error: { code: string; request_id: string } }; headers: Record<string, unknown> },
    status: number,
    code: string,
  ) => {
    expect(res.statusCode).toBe(status);
    expect(res.json().error.code).toBe(code);
    expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
  };

  it('rejects requests without an API key (401 missing_api_key)', async () => {
    for (const route of context().routes) expectError(await send(route), 401, 'missing_api_key');
  });

  it('rejects malformed Authorization headers (401 invalid_api_key)', async () => {
    for (const route of context().routes) {
      for (const header of ['Bearer', 'Bearer not-a-key', 'Basic dm46dm4=', 'vn_abc', `Bearer vn_${'x'.repeat(10)}`]) {
        expectError(await send(route, header), 401, 'invalid_api_key');
      }
    }
  });

  it('rejects a well-formed key that does not exist (401 invalid_api_key)', async () => {
    const unknown = `Bearer vn_${'A'.repeat(12)}${'B'.repeat(32)}`;
    for (const route of context().routes) expectError(await send(route, unknown), 401, 'invalid_api_key');
  });

  it('rejects a revoked key (401 invalid_api_key)', async () => {
    const { t } = context();
    const revoked = await t.newAccount();
    await revokeApiKey(t.deps, revoked.keyId);
    for (const route of context().routes) expectError(await send(route, `Bearer ${revoked.key}`), 401, 'invalid_api_key');
  });

  it("answers 404 for another account's objects", async () => {
    const { t } = context();
    const stranger = await t.newAccount();
    for (const route of context().routes.filter((r) => r.owned)) {
      expectError(await send(route, `Bearer ${stranger.key}`), 404, 'resource_missing');
    }
  });
}
