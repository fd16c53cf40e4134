/**
 * Request validation. Bodies are validated strictly (no type coercion, unknown fields are an
 * error); query strings and path parameters are coerced from text, as they arrive as text.
 * Ajv errors are turned into one clear `AppError` naming the offending field.
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { AppError } from '../errors.js';
import { addNfcKeyword, SAFE_MULTILINE_TEXT_PATTERN, SAFE_TEXT_PATTERN, SAFE_TEXT_RULE } from '../lib/text.js';

const base: Options = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false };

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ ...base, ...options });
  addFormats.default(ajv);
  addNfcKeyword(ajv);
  return ajv;
}

const strictAjv = makeAjv({ coerceTypes: false });
const coercingAjv = makeAjv({ coerceTypes: 'array' });

/**
 * A file body (`type: string, format: binary`: audio, images, CSV files) is read as a Buffer by
 * its media type's parser; its schema says what generated clients should send, so the bytes
 * themselves are checked by the service, not by a string schema they could never match.
 */
const isFileSchema = (schema: object) =>
  (schema as { type?: unknown }).type === 'string' && (schema as { format?: unknown }).format === 'binary';
const acceptBytes = (data: unknown) => Buffer.isBuffer(data);

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  if (httpPart === 'body' && isFileSchema(schema)) return acceptBytes;
  return (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema);
};

const reportAllAjv = makeAjv({ coerceTypes: false, allErrors: true });

/** A strict body validator that reports every problem, not the first: imports list them all per row. */
export const compileReportingAll = (schema: object) => reportAllAjv.compile(schema);

/** `/custom_fields/0/key` → `custom_fields[0].key` */
export function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (child !== undefined) parts.push(child);
  return parts.map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

export function validationError(errors: ErrorObject[], context: string): AppError {
  const error = errors[0];
  const where = context === 'querystring' ? 'query parameter' : context === 'params' ? 'path parameter' : 'field';
  if (!error) return new AppError('validation_failed', 'The request is invalid.');
  const params = error.params;
  switch (error.keyword) {
    case 'required': {
      const param = fieldPath(error.instancePath, params.missingProperty);
      return new AppError('parameter_missing', `Missing required ${where} "${param}".`, { param });
    }
    case 'additionalProperties': {
      const param = fieldPath(error.instancePath, params.additionalProperty);
      return new AppError('parameter_unknown', `Unknown ${where} "${param}".`, { param });
    }
  }
  const param = fieldPath(error.instancePath) || context;
  return new AppError('parameter_invalid', `Invalid ${where} "${param}": ${describe(error)}.`, { param });
}

const TEXT_PATTERNS = new Set<string>([SAFE_TEXT_PATTERN, SAFE_MULTILINE_TEXT_PATTERN]);

function describe(error: ErrorObject): string {
  const params = error.params;
  switch (error.keyword) {
    case 'maxLength':
      return `must be at most ${params.limit} characters`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${params.limit} characters`;
    case 'maximum':
      return `must be at most ${params.limit}`;
    case 'minimum':
      return `must be at least ${params.limit}`;
    case 'maxItems':
      return `must have at most ${params.limit} items`;
    case 'minItems':
      return `must have at least ${params.limit} item${params.limit === 1 ? '' : 's'}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'type': {
      const names = String(params.type)
        .split(',')
        .map((type) => (type === 'integer' ? 'an integer' : type === 'null' ? 'null' : `a ${type}`));
      return `must be ${names.join(' or ')}`;
    }
    case 'format':
      return `must be a valid ${params.format}`;
    case 'pattern':
      return TEXT_PATTERNS.has(String(params.pattern)) ? SAFE_TEXT_RULE : 'has characters or a shape that is not allowed';
    default:
      return error.message ?? 'is invalid';
  }
}

const bodyValidators = new WeakMap<object, ReturnType<typeof validatorCompiler>>();

/**
 * `value` if it satisfies a `/v1` body schema, else the API's own 400 error for it: how pages
 * that post forms (dashboard, record page) check input by the very rules of the API.
 */
export function checkBody<T>(schema: object, value: unknown): T {
  let validate = bodyValidators.get(schema);
  if (!validate) {
    validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '' });
    bodyValidators.set(schema, validate);
  }
  const check = validate as ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
  if (!check(value)) throw validationError(check.errors ?? [], 'body');
  return value as T;
}
