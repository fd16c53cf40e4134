/**
 * The JSON body parser of every route (the /v1 API, the agent API, the dashboard): Fastify's own
 * parser (prototype-poisoning checks included), behind a nesting check on the raw text, so that
 * no recursive code (JSON.parse, Ajv, canonical JSON, JSON.stringify) ever sees a deep body.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { jsonNestingExceeds, MAX_JSON_DEPTH } from '../lib/json-depth.js';

export const tooDeepError = () =>
  new AppError('invalid_json', `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`);

export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonNestingExceeds(body as string)) {
      done(tooDeepError(), undefined);
      return;
    }
    // Fastify's default parser answers through `done` and returns nothing (its type also admits a promise).
    void parse(request, body as string, done);
  });
}
