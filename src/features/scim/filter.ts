/**
 * SCIM `filter` parameters (RFC 7644 §3.4.2.2), parsed by scim2-parse-filter and translated into
 * conditions on indexed columns: `eq` on userName (case-insensitive, as RFC 7643 defines it),
 * externalId, id and e-mail for Users, on displayName, externalId and id for Groups, joined by
 * `and` / `or`. Anything else is a 400 `invalidFilter` saying what is supported, never a scan.
 */
import { type Filter, parse } from 'scim2-parse-filter';
import type { GroupCondition, UserCondition } from './repo.js';
import { invalidFilter, invalidValue } from './errors.js';

const MAX_FILTER_LENGTH = 1000;
const USER_SUPPORTED = 'userName eq, externalId eq, id eq, emails eq and emails[value eq "…"], joined by and/or';
const GROUP_SUPPORTED = 'displayName eq, externalId eq, id eq, joined by and/or';

function parsed(text: string): Filter {
  if (text.length > MAX_FILTER_LENGTH) throw invalidFilter(`The filter is longer than ${MAX_FILTER_LENGTH} characters.`);
  try {
    return parse(text);
  } catch {
    throw invalidFilter(`The filter "${text}" is not valid SCIM filter syntax.`);
  }
}

const bare = (attrPath: string) => attrPath.replace(/^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i, '').toLowerCase();

function comparedText(filter: Filter, supported: string): { attr: string; value: string } {
  if (filter.op !== 'eq' || !('compValue' in filter))
    throw invalidFilter(`Unsupported filter operator "${filter.op}"; supported: ${supported}.`);
  if (typeof filter.compValue !== 'string') throw invalidFilter(`Compare ${filter.attrPath} with a quoted string.`);
  return { attr: bare(filter.attrPath), value: filter.compValue };
}

function userCondition(filter: Filter): UserCondition {
  if (filter.op === 'and' || filter.op === 'or') {
    const parts = (filter as { filters: Filter[] }).filters.map(userCondition);
    return filter.op === 'and' ? { all: parts } : { any: parts };
  }
  if (filter.op === '[]' && 'valFilter' in filter) {
    const inner = filter.valFilter;
    if (
      bare(filter.attrPath) === 'emails' &&
      inner.op === 'eq' &&
      'attrPath' in inner &&
      inner.attrPath.toLowerCase() === 'value'
    ) {
      return { column: 'email', value: comparedText(inner, USER_SUPPORTED).value.toLowerCase() };
    }
    throw invalidFilter(`Unsupported filter on "${filter.attrPath}"; supported: ${USER_SUPPORTED}.`);
  }
  if (!('attrPath' in filter)) throw invalidFilter(`Unsupported filter operator "${filter.op}"; supported: ${USER_SUPPORTED}.`);
  const { attr, value } = comparedText(filter, USER_SUPPORTED);
  switch (attr) {
    case 'username':
      return { column: 'user_name_key', value: value.toLowerCase() };
    case 'externalid':
      return { column: 'external_id', value };
    case 'id':
      return { column: 'id', value };
    case 'emails':
    case 'emails.value':
      return { column: 'email', value: value.toLowerCase() };
    default:
      throw invalidFilter(`Filtering on "${filter.attrPath}" is not supported; supported: ${USER_SUPPORTED}.`);
  }
}

function groupCondition(filter: Filter): GroupCondition {
  if (filter.op === 'and' || filter.op === 'or') {
    const parts = (filter as { filters: Filter[] }).filters.map(groupCondition);
    return filter.op === 'and' ? { all: parts } : { any: parts };
  }
  if (!('attrPath' in filter) || filter.op === '[]') {
    throw invalidFilter(`Unsupported filter operator "${filter.op}"; supported: ${GROUP_SUPPORTED}.`);
  }
  const { attr, value } = comparedText(filter, GROUP_SUPPORTED);
  switch (attr) {
    case 'displayname':
      return { column: 'display_name_key', value: value.toLowerCase() };
    case 'externalid':
      return { column: 'external_id', value };
    case 'id':
      return { column: 'id', value };
    default:
      throw invalidFilter(`Filtering on "${filter.attrPath}" is not supported; supported: ${GROUP_SUPPORTED}.`);
  }
}

export const userFilter = (text: string | undefined): UserCondition | null =>
  text === undefined || text.trim() === '' ? null : userCondition(parsed(text));

export const groupFilter = (text: string | undefined): GroupCondition | null =>
  text === undefined || text.trim() === '' ? null : groupCondition(parsed(text));

/** The largest page (ServiceProviderConfig's `filter.maxResults`). */
export const MAX_COUNT = 100;

/** `startIndex` (1-based; below 1 means 1) and `count` (negative means 0; capped at MAX_COUNT), RFC 7644 §3.4.2.4. */
export function pageOf(query: { startIndex?: string; count?: string }): { startIndex: number; offset: number; limit: number } {
  const integer = (value: string | undefined, name: string, fallback: number) => {
    if (value === undefined || value === '') return fallback;
    if (!/^-?\d{1,9}$/.test(value.trim())) throw invalidValueOf(name);
    return Number(value.trim());
  };
  const startIndex = Math.max(1, integer(query.startIndex, 'startIndex', 1));
  const limit = Math.min(MAX_COUNT, Math.max(0, integer(query.count, 'count', MAX_COUNT)));
  return { startIndex, offset: startIndex - 1, limit };
}

const invalidValueOf = (name: string) => invalidValue(`"${name}" must be an integer.`);
