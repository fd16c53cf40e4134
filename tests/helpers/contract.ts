/**
 * The contract check: every response a test's request receives from a documented route is
 * validated against the API document (`/v1/openapi.json`): its status must be documented for the
 * operation, its Content-Type must be one the document names, a JSON body must match the
 * documented schema, /v1 answers carry `Cache-Control: no-store` and a 201 its `Location`.
 * One hook, installed by createTestApp on every test app; a violation fails the test that caused
 * it (tests/helpers/contract-setup.ts), so the document cannot drift from what the service does.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

type Json = Record<string, unknown>;
interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

const violations: string[] = [];

/** Violations since the last call, and forgets them. */
export function takeContractViolations(): string[] {
  return violations.splice(0);
}

export function installContractCheck(app: FastifyInstance): void {
  let checker: Checker | undefined;
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method === 'HEAD' || request.method === 'OPTIONS') return payload;
    checker ??= new Checker(app.swagger() as Json);
    const problem = checker.check(request, reply, payload);
    if (problem) violations.push(`${request.method} ${request.url} → ${reply.statusCode}: ${problem}`);
    return payload;
  });
}

class Checker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly validators = new Map<string, ReturnType<Ajv2020['compile']>>();

  constructor(private readonly document: Json) {
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: 'api', components: document.components }, 'api');
  }

  check(request: FastifyRequest, reply: FastifyReply, payload: unknown): string | null {
    const documented = this.operationOf(request);
    if (!documented) return null;
    const { path, method, operation } = documented;
    const status = String(reply.statusCode);
    const response = operation.responses?.[status] ?? operation.responses?.[`${status[0]}XX`] ?? operation.responses?.default;
    if (!response) return `status ${status} is not documented for ${method.toUpperCase()} ${path}`;
    if (path.startsWith('/v1/') && reply.getHeader('cache-control') !== 'no-store') return 'no `Cache-Control: no-store`';
    if (status === '201' && !reply.hasHeader('location')) return 'a 201 without `Location`';
    if (!response.content || payload === null || payload === undefined || payload === '') return null;
    const type = String(reply.getHeader('content-type') ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    const mediaType = Object.keys(response.content).find((documentedType) => matches(documentedType, type));
    if (!mediaType) return `Content-Type ${type || '(none)'} is not documented (${Object.keys(response.content).join(', ')})`;
    if (!/json$/.test(type) || !(typeof payload === 'string' || Buffer.isBuffer(payload))) return null;
    const schema = response.content[mediaType]?.schema;
    if (schema === undefined) return null;
    const key = `${method} ${path} ${status} ${mediaType}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema) as object);
      this.validators.set(key, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(payload.toString());
    } catch {
      return 'the body is not JSON';
    }
    if (validate(body)) return null;
    return `the body does not match the documented schema: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`;
  }

  private operationOf(request: FastifyRequest) {
    const route = request.routeOptions.url;
    if (route === undefined) return null;
    let path = route.replace(/:(\w+)/g, '{$1}');
    // `/p/<token>.mp3` shares the `/p/:token` route with the player page.
    if (path === '/p/{token}' && request.url.split('?')[0]!.endsWith('.mp3')) path = '/p/{token}.mp3';
    const paths = this.document.paths as Record<string, Record<string, Operation>>;
    const method = request.method.toLowerCase();
    const operation = paths[path]?.[method];
    return operation ? { path, method, operation } : null;
  }
}

const matches = (documented: string, actual: string) =>
  documented === actual || (documented.endsWith('/*') && actual.startsWith(documented.slice(0, -1)));

/** `#/components/...` refs inside a response schema point into the document registered as `api`. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `api${value}` : rebase(value),
    ]),
  );
}
