/**
 * Who wrote a person's fields. Every write to a person says who it is for: `organiser` (the
 * dashboard, the API, an import), `person` (their own record page) or `integration` (a roster
 * sync). Each changed field remembers its last writer and when, so that a bulk write (an
 * import; later a roster sync) never silently replaces what the person corrected themselves:
 * a field whose last writer is the person was set after the organiser's last change to it,
 * and only an explicit single edit, or an import the organiser marks "overwrite", replaces it.
 */
import { STANDARD_FIELDS, type StandardField } from './csv-columns.js';
import type { UserRow } from './repo.js';
import type { FieldSource, FieldSources, ImportFieldChange, ImportPersonEdit } from './schemas.js';
import type { CustomValues } from './validate.js';

export type { FieldSource, FieldSources };

export type TrackedField = Exclude<StandardField, 'name_order'>;
/** The fields whose writer is tracked, besides custom fields (`custom_fields.<key>`): every stored standard field. */
export const TRACKED_FIELDS = STANDARD_FIELDS.filter((field): field is TrackedField => field !== 'name_order');

/** Which fields a person may correct on their own record page. */
export const PERSON_EDITABLE_FIELDS = ['display_name', 'preferred_name', 'pronouns', 'phonetic_spelling'] as const;

const CUSTOM = 'custom_fields.';
const customFieldKey = (key: string) => `${CUSTOM}${key}`;

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

/**
 * The fields of `next` whose value differs from `before` (standard fields and custom values),
 * as provenance keys: what a write actually changed, so only those get a new writer. Without
 * `before` (a new person), the fields given a value.
 */
export function changedFields(before: UserRow | undefined, next: UserRow): string[] {
  const changed: string[] = TRACKED_FIELDS.filter((field) =>
    before ? before[field] !== next[field] : next[field] !== null && next[field] !== '',
  );
  const old = before ? (JSON.parse(before.custom_fields) as CustomValues) : {};
  const now = JSON.parse(next.custom_fields) as CustomValues;
  for (const key of new Set([...Object.keys(old), ...Object.keys(now)])) {
    if (old[key] !== now[key]) changed.push(customFieldKey(key));
  }
  return changed;
}

/** The `field_sources` JSON of a person created now by `writer`: every value given is theirs. */
export const newPersonSources = (row: UserRow, writer: FieldSource, at: string): string =>
  JSON.stringify(stampSources({}, changedFields(undefined, row), writer, at));

/** A field's value by provenance key (`custom_fields.<key>` reads the custom values). */
function fieldValue(user: UserRow, field: string): string | number | boolean | null {
  if (field.startsWith(CUSTOM)) return (JSON.parse(user.custom_fields) as CustomValues)[field.slice(CUSTOM.length)] ?? null;
  return user[field as TrackedField];
}

/** Puts `value` back into `next`'s field (a custom value into its JSON; null removes it). */
function restoreField(next: UserRow, field: string, value: string | number | boolean | null): void {
  if (!field.startsWith(CUSTOM)) {
    Object.assign(next, { [field]: value });
    return;
  }
  const values = JSON.parse(next.custom_fields) as CustomValues;
  if (value === null) delete values[field.slice(CUSTOM.length)];
  else values[field.slice(CUSTOM.length)] = value;
  next.custom_fields = JSON.stringify(values);
}

/**
 * A bulk write of `next` over `target` (an import row; later a roster sync). Each value the
 * person set themselves (after the organiser's last change to it) that the write would change
 * is kept in `next`, unless `overwrite`, and reported either way. Then the fields that still
 * change are stamped with `writer`. Answers what changes (before → after), what was kept, and
 * the person's values met.
 */
export function applyBulkWrite(
  target: UserRow,
  next: UserRow,
  options: { row: number; writer: FieldSource; overwrite: boolean },
): { changes: ImportFieldChange[]; kept: string[]; personEdits: ImportPersonEdit[] } {
  const sources = parseSources(target.field_sources);
  const personEdits: ImportPersonEdit[] = [];
  for (const field of changedFields(target, next)) {
    const source = sources[field];
    if (source?.source !== 'person') continue;
    const before = fieldValue(target, field);
    const after = fieldValue(next, field);
    personEdits.push({
      row: options.row,
      user_id: target.id,
      field,
      person_value: before === null ? null : String(before),
      file_value: after === null ? null : String(after),
      set_at: source.at,
      action: options.overwrite ? 'overwritten' : 'kept',
    });
    if (!options.overwrite) restoreField(next, field, before);
  }
  const changed = changedFields(target, next);
  next.field_sources = JSON.stringify(stampSources(sources, changed, options.writer, next.updated_at));
  return {
    changes: changed.map((field) => ({ field, before: fieldValue(target, field), after: fieldValue(next, field) })),
    kept: personEdits.filter((edit) => edit.action === 'kept').map((edit) => edit.field),
    personEdits,
  };
}

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
