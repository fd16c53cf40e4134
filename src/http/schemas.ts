import { type Static, type TSchema, Type } from 'typebox';
import { NFC_KEYWORD, SAFE_MULTILINE_TEXT_PATTERN, SAFE_TEXT_PATTERN } from '../lib/text.js';

/** The /v1 error envelope. */
export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      type: Type.String({
        description: 'Broad class: invalid_request_error, authentication_error, idempotency_error, rate_limit_error, api_error.',
      }),
      code: Type.String({ description: 'Stable, specific error code.' }),
      message: Type.String({ description: 'Human-readable explanation.' }),
      param: Type.Optional(Type.String({ description: 'The field or parameter at fault.' })),
      request_id: Type.String({ description: 'Same as the X-Request-Id header.' }),
      errors: Type.Optional(
        Type.Array(
          Type.Object({
            index: Type.Integer({ description: 'Position of the item in the batch (0 = first user or first CSV data row).' }),
            field: Type.String(),
            code: Type.String(),
            message: Type.String(),
          }),
          { description: 'Batch requests only: every problem found, per item.' },
        ),
      ),
    }),
  },
  { title: 'Error' },
);

/**
 * `T | null` as `{"type": [T, "null"]}` rather than `anyOf`: the same JSON Schema meaning, but
 * Fastify's serializer handles it natively instead of validating each value with Ajv.
 */
export const Nullable = <T extends TSchema & { type: string }>(schema: T, options: { description?: string } = {}) =>
  Type.Unsafe<Static<T> | null>({ ...schema, ...options, type: [schema.type, 'null'] });

export interface SafeTextOptions {
  minLength?: number;
  maxLength?: number;
  /** Tab and line breaks allowed (descriptions, free notes); other controls never are. */
  multiline?: boolean;
  /** A name: stored in Unicode NFC, so "é" typed decomposed and composed is the same name. */
  name?: boolean;
  description?: string;
}

/**
 * Every free-text string the API accepts: the shared text rule (no control characters, unpaired
 * surrogates or bidi overrides; src/lib/text.ts) as a standard `pattern`, so a client validating
 * with the OpenAPI document refuses what the server refuses. A name's NFC is the server's own
 * keyword: the document drops it and says it in the field's description.
 */
export const SafeText = ({ multiline = false, name = false, ...options }: SafeTextOptions = {}) =>
  Type.String({
    ...options,
    pattern: multiline ? SAFE_MULTILINE_TEXT_PATTERN : SAFE_TEXT_PATTERN,
    ...(name ? { [NFC_KEYWORD]: true } : {}),
  });
