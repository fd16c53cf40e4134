/**
 * Checks one user's fields beyond what the JSON schema says (blank names, custom field values
 * against the collection's definitions) and reports every problem as an item error, so the
 * batch import can list them all and the single create can throw the first.
 */
import { LOCALES, localeOfTag } from '../../i18n/index.js';
import { canonicalLanguage } from '../../lib/languages.js';
import type { ItemError } from '../../errors.js';
import { validatorCompiler } from '../../http/validation.js';
import { normalizeEmail } from '../accounts/service.js';
import type { CustomField } from '../collections/schemas.js';
import { CreateUserBody } from './schemas.js';

export type Issue = Omit<ItemError, 'index'>;
export type CustomValues = Record<string, string | number | boolean>;

const validateCreateShape = validatorCompiler({
  schema: CreateUserBody,
  httpPart: 'body',
  method: 'POST',
  url: '',
}) as ((value: unknown) => boolean) & { errors?: import('ajv').ErrorObject[] | null };

const EMAIL_LIKE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The JSON-schema check of one create body, as issues (the first schema error only, as the API does). */
export function shapeIssues(value: unknown, toIssue: (errors: import('ajv').ErrorObject[]) => Issue): Issue[] {
  if (validateCreateShape(value)) return [];
  return [toIssue(validateCreateShape.errors ?? [])];
}

export function notBlank(value: string, field: string): Issue | null {
  return value.trim() === ''
    ? { field, code: 'parameter_invalid', message: `Invalid field "${field}": must not be blank.` }
    : null;
}

/** An issue when the person's `language` is not one voicename's pages and mail are written in. */
export function personLanguageIssue(value: string | null | undefined): Issue | null {
  if (!value?.trim() || localeOfTag(value) !== null) return null;
  return {
    field: 'language',
    code: 'parameter_invalid',
    message: `Invalid field "language": "${value}" is not one of the languages of the record page and mail (${LOCALES.join(', ')}).`,
  };
}

/** The stored form of the person's `language`: its locale (`es-MX` → `es`), null when empty. */
export const personLanguageOf = (value: string | null | undefined): string | null => (value?.trim() ? localeOfTag(value) : null);

export const LANGUAGE_FIELDS = ['name_language', 'given_name_language', 'family_name_language'] as const;

/** An issue when a language field holds something that is not a BCP 47 tag. */
export function languageIssue(value: string | null | undefined, field: string): Issue | null {
  if (!value?.trim() || canonicalLanguage(value) !== null) return null;
  return {
    field,
    code: 'parameter_invalid',
    message: `Invalid field "${field}": "${value}" is not a BCP 47 language tag (e.g. "en", "ga", "es-MX").`,
  };
}

export function normalizeUserEmail(email: string): { ok: string } | { issue: Issue } {
  try {
    return { ok: normalizeEmail(email) };
  } catch {
    return {
      issue: {
        field: 'email',
        code: 'parameter_invalid',
        message: `Invalid field "email": "${email}" is not a valid e-mail address.`,
      },
    };
  }
}

/**
 * Applies `changes` (null removes a key) to `current` and checks the result against the
 * definitions: unknown keys, wrong types, options of select fields, and required fields.
 */
export function checkCustomValues(
  definitions: CustomField[],
  current: CustomValues,
  changes: Record<string, string | number | boolean | null> | undefined,
): { values: CustomValues; issues: Issue[] } {
  const issues: Issue[] = [];
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const values: CustomValues = { ...current };
  for (const [key, value] of Object.entries(changes ?? {})) {
    const field = `custom_fields.${key}`;
    const definition = byKey.get(key);
    if (!definition) {
      issues.push({
        field,
        code: 'parameter_unknown',
        message: `Unknown custom field "${key}"; the collection defines ${[...byKey.keys()].map((k) => `"${k}"`).join(', ') || 'none'}.`,
      });
      continue;
    }
    if (value === null) {
      delete values[key];
      continue;
    }
    const problem = checkValue(definition, value);
    if (problem) issues.push({ field, code: 'parameter_invalid', message: `Invalid custom field "${key}": ${problem}.` });
    else values[key] = typeof value === 'string' && definition.type === 'email' ? value.trim() : value;
  }
  for (const definition of definitions) {
    if (
      definition.required &&
      values[definition.key] === undefined &&
      !issues.some((i) => i.field === `custom_fields.${definition.key}`)
    ) {
      issues.push({
        field: `custom_fields.${definition.key}`,
        code: 'parameter_missing',
        message: `Missing required custom field "${definition.key}".`,
      });
    }
  }
  return { values, issues };
}

function checkValue(definition: CustomField, value: string | number | boolean): string | null {
  switch (definition.type) {
    case 'text':
      return typeof value === 'string' ? null : 'must be a string';
    case 'email':
      return typeof value === 'string' && value.length <= 254 && EMAIL_LIKE.test(value.trim())
        ? null
        : 'must be an e-mail address';
    case 'url': {
      if (typeof value !== 'string') return 'must be an http(s) URL';
      try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:' ? null : 'must be an http(s) URL';
      } catch {
        return 'must be an http(s) URL';
      }
    }
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'select':
      return typeof value === 'string' && (definition.options ?? []).includes(value)
        ? null
        : `must be one of ${(definition.options ?? []).map((o) => JSON.stringify(o)).join(', ')}`;
  }
  return 'has an unknown type';
}
