/**
 * Validates a generation request with Ajv (JSON Schema 2020-12) against the schema document we
 * serve, and turns Ajv's errors into the spec's 400 lists: `missing` (required fields absent) and
 * `invalid` (one entry per offending field, `allowed` = the enum values, or the field's one-line
 * rule from `x-rule`).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isLanguageTag } from '../../lib/languages.js';
import { addTextRules, SAFE_MULTILINE_TEXT_FORMAT, SAFE_TEXT_FORMAT } from '../../lib/text.js';
import { LANGUAGE_TAG_FORMAT, type RequestSchema } from './request-schema.js';

export interface InvalidField {
  field: string;
  received: unknown;
  allowed: unknown[];
}

export interface ValidationProblems {
  missing: string[];
  invalid: InvalidField[];
}

/** What `received` shows: scalars as sent (long strings cut), objects and arrays by type name. */
export function summarizeReceived(value: unknown): unknown {
  if (typeof value === 'string') return [...value].length > 200 ? `${[...value].slice(0, 200).join('')}…` : value;
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function createRequestValidator(schema: RequestSchema) {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, unicodeRegExp: true });
  addFormats.default(ajv);
  addTextRules(ajv);
  ajv.addFormat(LANGUAGE_TAG_FORMAT, { type: 'string', validate: isLanguageTag });
  ajv.addKeyword({ keyword: 'x-rule', schemaType: 'string' });
  ajv.addKeyword({
    keyword: 'x-max-json-bytes',
    schemaType: 'number',
    errors: false,
    validate: (max: number, data: unknown) => Buffer.byteLength(JSON.stringify(data) ?? '') <= max,
  });
  const validate = ajv.compile(schema);
  const properties = schema.properties as Record<string, { enum?: readonly string[]; 'x-rule'?: string }>;
  const order = Object.keys(properties);

  const allowedFor = (field: string, badText: boolean): unknown[] => {
    const property = properties[field];
    if (!property) return ['not a field of this request'];
    if (property.enum) return [...property.enum];
    const rule = property['x-rule'];
    // A refused character is named in the one rule, since the length rule alone would not explain it.
    if (rule && badText) return [`${rule}, without ${TEXT_RULE}`];
    return rule ? [rule] : [];
  };

  /** Null when the body is valid; otherwise the spec's `missing` and `invalid` lists. */
  return function check(body: unknown): ValidationProblems | null {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return { missing: [], invalid: [{ field: 'body', received: summarizeReceived(body), allowed: ['a JSON object'] }] };
    }
    if (validate(body)) return null;
    const record = body as Record<string, unknown>;
    const missing = new Set<string>();
    const fields = new Set<string>();
    const badText = new Set<string>();
    for (const error of validate.errors ?? []) {
      const topField = decodeURIComponent(error.instancePath.split('/')[1] ?? '')
        .replace(/~1/g, '/')
        .replace(/~0/g, '~');
      if (error.keyword === 'format' && TEXT_FORMATS.has(String(error.params.format))) badText.add(topField);
      const params = error.params as Record<string, string>;
      if (error.instancePath === '' && error.keyword === 'required') missing.add(params.missingProperty as string);
      else if (error.instancePath === '' && error.keyword === 'additionalProperties')
        fields.add(params.additionalProperty as string);
      else fields.add(topField);
    }
    const rank = (field: string) => (order.includes(field) ? order.indexOf(field) : order.length);
    const invalid = [...fields]
      .filter((field) => field !== '')
      .sort((a, b) => rank(a) - rank(b))
      .map((field) => ({ field, received: summarizeReceived(record[field]), allowed: allowedFor(field, badText.has(field)) }));
    return {
      missing: order.filter((field) => missing.has(field)),
      invalid,
    };
  };
}

const TEXT_FORMATS = new Set<string>([SAFE_TEXT_FORMAT, SAFE_MULTILINE_TEXT_FORMAT]);
const TEXT_RULE = 'control characters, unpaired surrogates or bidirectional overrides';

export type RequestValidator = ReturnType<typeof createRequestValidator>;

/** One sentence naming every problem, for the 400's `message`. */
export function describeProblems(problems: ValidationProblems, enums: Set<string> = ENUM_FIELDS): string {
  const parts: string[] = [];
  if (problems.missing.length > 0) parts.push(`missing required field(s): ${problems.missing.join(', ')}`);
  for (const item of problems.invalid) {
    if (item.field === 'body') parts.push('the body must be a JSON object');
    else if (enums.has(item.field)) parts.push(`${item.field} must be one of ${item.allowed.join(', ')}`);
    else if (item.allowed[0] === 'not a field of this request') parts.push(`${item.field} is not a field of this request`);
    else parts.push(`${item.field} must be ${item.allowed[0]}`);
  }
  return `The request is invalid: ${parts.join('; ')}.`;
}

const ENUM_FIELDS = new Set(['entity_type', 'visibility', 'voice_style']);
