/**
 * Reading dashboard forms and query strings: the first value of a query parameter, the body
 * checked against the very schema the `/v1` route uses (same limits, same text rule, same
 * messages), and the signed-in viewer of a page.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { SAFE_TEXT_RULE, unsafeTextReason } from '../../lib/text.js';
export { checkBody } from '../../http/validation.js';
import type { FormError } from '../../web/views/dashboard/collections.js';
import type { Viewer } from '../../web/views/dashboard/layout.js';
import { sessionOf, viewerOf as frameViewerOf } from './http.js';
import { type MultipartForm, parseMultipart, type UploadedFile } from './multipart.js';

/** One query parameter as text: the first value when repeated, undefined when absent. */
export function queryText(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}

/** A refusal to show on the form (4xx other than 404), or null for anything else. */
export function formErrorOf(error: unknown): (FormError & { status: number }) | null {
  if (!(error instanceof AppError) || error.status >= 500 || error.status === 404) return null;
  return { message: error.message, param: error.param ?? null, status: error.status };
}

/** The signed-in member with their organisation and role (pages behind a role always have one). */
export function viewerOf(request: FastifyRequest): Viewer {
  sessionOf(request);
  return frameViewerOf(request) as Viewer;
}

const FILES = Symbol('uploaded files');

/**
 * Reads `multipart/form-data` bodies in this plugin's routes: text fields land where `formField`
 * reads them (the form token included), the files beside them (`uploadedFile`).
 */
export function acceptMultipartForms(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit }, (request, body, done) => {
    try {
      const form = parseMultipart(body as Buffer, request.headers['content-type']);
      for (const [name, value] of Object.entries(form.fields)) {
        if (unsafeTextReason(name) !== null || unsafeTextReason(value) !== null) {
          throw new AppError(
            'parameter_invalid',
            `The field "${unsafeTextReason(name) === null ? name : 'form'}" ${SAFE_TEXT_RULE}.`,
          );
        }
      }
      done(null, { ...form.fields, [FILES]: form.files });
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** A file of a multipart form read by `acceptMultipartForms`, or undefined. */
export function uploadedFile(request: FastifyRequest, name: string): UploadedFile | undefined {
  const body = request.body as { [FILES]?: MultipartForm['files'] } | undefined;
  return body?.[FILES]?.[name];
}
