/**
 * Who wrote a person's fields. Every write to a person says who it is for: `organiser` (the
 * dashboard, the API, an import), `person` (their own record page) or `integration` (a roster
 * sync). Each changed field remembers its last writer and when, so that a bulk write (an
 * import; later a roster sync) never silently replaces what the person corrected themselves:
 * a field whose last writer is the person was set after the organiser's last change to it,
 * and only an explicit single edit, or an import the organiser marks "overwrite", replaces it.
 */
import { STANDARD_FIELDS, type StandardField } from './csv-columns.js';
import type { FieldSource, FieldSources } from './schemas.js';

export type { FieldSource, FieldSources };

/** The fields whose writer is tracked, besides custom fields (`custom_fields.<key>`): every standard field. */
export const TRACKED_FIELDS = STANDARD_FIELDS;
export type TrackedField = StandardField;

/** Which fields a person may correct on their own record page. */
export const PERSON_EDITABLE_FIELDS = ['display_name', 'preferred_name', 'pronouns', 'phonetic_spelling'] as const;

export const customFieldKey = (key: string) => `custom_fields.${key}`;

/** The stored JSON as an object (`{}` for people stored before writers were tracked). */
export function parseSources(json: string | null | undefined): FieldSources {
  if (!json) return {};
  const value = JSON.parse(json) as unknown;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as FieldSources) : {};
}

/** `sources` with `fields` written by `source` at `at` (a new object; the input is unchanged). */
export function stampSources(sources: FieldSources, fields: Iterable<string>, source: FieldSource, at: string): FieldSources {
  const next: FieldSources = { ...sources };
  for (const field of fields) next[field] = { source, at };
  return next;
}

/** Whether the person wrote this field last (so a bulk write must keep it unless told otherwise). */
export const writtenByPerson = (sources: FieldSources, field: string): boolean => sources[field]?.source === 'person';

/**
 * The writer of the row's latest change: the field with the latest `at` (null when nothing is
 * recorded). Ties go to the person, whose edits are the ones a reader most needs to notice.
 */
export function latestWriter(sources: FieldSources): FieldSource | null {
  let latest: { source: FieldSource; at: string } | null = null;
  for (const entry of Object.values(sources)) {
    if (!latest || entry.at > latest.at || (entry.at === latest.at && entry.source === 'person')) latest = entry;
  }
  return latest?.source ?? null;
}
