/**
 * Validates a generation request with Ajv (JSON Schema 2020-12, strict, no custom keywords or
 * formats) against the schema document we serve, then applies the rules JSON Schema cannot
 * express (SERVER_ONLY_RULES: NFC, metadata bytes, language tag grammar), and turns the problems
 * into the spec's 400 lists: `missing` (required fields absent) and `invalid` (one entry per
 * offending field, `allowed` = the enum values, or the field's one-line rule from `fieldRules`).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { isLanguageTag } from '../../lib/languages.js';
import { SAFE_MULTILINE_TEXT_PATTERN, SAFE_TEXT_PATTERN } from '../../lib/text.js';
import { type FieldRules, METADATA_LIMITS, type RequestSchema } from './request-schema.js';

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

/** The fields the schema's rules leave to the server (SERVER_ONLY_RULES), as field -> refused. */
function serverOnlyProblems(record: Record<string, unknown>): string[] {
  const fields: string[] = [];
  const metadata = record.external_metadata;
  if (metadata !== undefined && Buffer.byteLength(JSON.stringify(metadata) ?? '') > METADATA_LIMITS.bytes) {
    fields.push('external_metadata');
  }
  if (typeof record.name_language === 'string' && !isLanguageTag(record.name_language)) fields.push('name_language');
  return fields;
}

export function createRequestValidator(schema: RequestSchema, rules: FieldRules) {
  const ajv = new Ajv2020({ allErrors: true, strict: true, unicodeRegExp: true });
  const validate = ajv.compile(schema);
  const properties = schema.properties as Record<string, { enum?: readonly string[] }>;
  const order = Object.keys(properties);

  const allowedFor = (field: string, badText: boolean): unknown[] => {
    const property = properties[field];
    if (!property) return ['not a field of this request'];
    if (property.enum) return [...property.enum];
    const rule = (rules as Record<string, string | undefined>)[field];
    // A refused character is named in the one rule, since the length rule alone would not explain it.
    if (rule && badText) return [`${rule}, without ${TEXT_RULE}`];
    return rule ? [rule] : [];
  };

  /** Null when the body is valid; otherwise the spec's `missing` and `invalid` lists. */
  return function check(body: unknown): ValidationProblems | null {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return { missing: [], invalid: [{ field: 'body', received: summarizeReceived(body), allowed: ['a JSON object'] }] };
    }
    const record = body as Record<string, unknown>;
    const valid = validate(body);
    // Names are stored composed: the handler and the 400's `received` see the NFC form.
    if (typeof record.name === 'string') record.name = record.name.normalize('NFC');
    const serverOnly = serverOnlyProblems(record);
    if (valid && serverOnly.length === 0) return null;
    const missing = new Set<string>();
    const fields = new Set<string>(serverOnly);
    const badText = new Set<string>();
    for (const error of validate.errors ?? []) {
      const topField = decodeURIComponent(error.instancePath.split('/')[1] ?? '')
        .replace(/~1/g, '/')
        .replace(/~0/g, '~');
      if (error.keyword === 'pattern' && TEXT_PATTERNS.has(String(error.params.pattern))) badText.add(topField);
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

const TEXT_PATTERNS = new Set<string>([SAFE_TEXT_PATTERN, SAFE_MULTILINE_TEXT_PATTERN]);
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
