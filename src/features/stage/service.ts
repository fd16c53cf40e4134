/**
 * Stage sync: the ceremony's line-up order (the reader and the name cards follow it), each
 * person's card code, and the scanner at the stage stairs that brings the person whose card it
 * reads up on every open reader of the collection. The scanner's message travels through the
 * cross-process notifications (LISTEN/NOTIFY on PostgreSQL), so readers connected to any API
 * process hear it; a lost message costs one scan, which the scanner can repeat.
 */
import { randomInt } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { Deps as AppDeps } from '../../deps.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, notFound } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import type { Collection } from '../collections/schemas.js';
import { getCollection } from '../collections/service.js';
import { guidesOf } from '../pronunciation/service.js';
import { READER_MAX_PEOPLE, type ReaderOrder, sortForReader } from '../users/people-service.js';
import type { User } from '../users/schemas.js';
import { toUser } from '../users/service.js';
import { type QrPath, qrPath } from './qr.js';
import {
  findLineupOrder,
  findPeopleWithCodes,
  findPeopleWithoutCode,
  findPersonByCode,
  insertStageCodes,
  listLineupKeys,
  updateLineupOrder,
} from './repo.js';

type StageDeps = AppDeps;

export interface LineupOption {
  /** `import`, `display_name`, `last_name` or `custom:<field key>`: the reader's `?order=` too. */
  value: string;
  label: string;
}

export const DEFAULT_LINEUP = 'import';

export const lineupOptions = (collection: Pick<Collection, 'custom_fields'>): LineupOption[] => [
  { value: 'import', label: 'As imported' },
  { value: 'display_name', label: 'Alphabetical' },
  { value: 'last_name', label: 'Last name' },
  ...collection.custom_fields.map((f) => ({ value: `custom:${f.key}`, label: f.label })),
];

/** An order's value as the reader sorts by it; a value that is not one of the collection's options is a 400. */
export function parseLineupOrder(value: string, collection: Pick<Collection, 'custom_fields'>): ReaderOrder {
  const options = lineupOptions(collection);
  if (!options.some((o) => o.value === value)) {
    throw new AppError('parameter_invalid', `Choose an order: ${options.map((o) => o.label).join(', ')}.`, { param: 'order' });
  }
  if (value === 'import' || value === 'display_name' || value === 'last_name') return { by: value };
  return { by: 'custom_field', key: value.slice('custom:'.length) };
}

/**
 * The collection's line-up order. One that names a custom field removed since is the import
 * order again (removing a field must not break the reader).
 */
export async function getLineupOrder(deps: StageDeps, accountId: string, collectionId: string): Promise<string> {
  const collection = await getCollection(deps, accountId, collectionId);
  const stored = (await findLineupOrder(deps.db.kysely, collection.id)) ?? DEFAULT_LINEUP;
  return lineupOptions(collection).some((o) => o.value === stored) ? stored : DEFAULT_LINEUP;
}

export async function setLineupOrder(deps: StageDeps, accountId: string, collectionId: string, order: string): Promise<void> {
  const collection = await getCollection(deps, accountId, collectionId);
  parseLineupOrder(order, collection);
  await updateLineupOrder(deps.db.kysely, collection.id, order, isoNow(deps.clock));
}

/** Crockford's base 32: no I, L, O or U, so a code read aloud or typed from paper is not misread. */
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 10 characters, 50 random bits: unguessable among a collection's people, short enough to type on a phone. */
const CODE_LENGTH = 10;
const INSERT_BATCH = 500;

const newCode = (): string => Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');

/** `ABCDE-FGHJK`: how a card prints its code and its QR code carries it. */
export const formatStageCode = (code: string): string => `${code.slice(0, 5)}-${code.slice(5)}`;

/** A typed or scanned code as stored: case, spaces and dashes ignored, O read as 0 and I or L as 1; null if it cannot be one. */
export function parseStageCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  return code.length === CODE_LENGTH && [...code].every((c) => CODE_ALPHABET.includes(c)) ? code : null;
}

/**
 * Gives every person of the collection who has none yet a card code (people printed for the
 * first time). The caller has checked the collection is the account's.
 */
async function makeMissingStageCodes(deps: StageDeps, collectionId: string): Promise<void> {
  const missing = await findPeopleWithoutCode(deps.db.kysely, collectionId);
  const createdAt = isoNow(deps.clock);
  for (let start = 0; start < missing.length; start += INSERT_BATCH) {
    const batch = missing.slice(start, start + INSERT_BATCH);
    // A clash with an existing code (one in 10^15 per pair) fails the batch: draw it again.
    for (let attempt = 1; ; attempt++) {
      try {
        await insertStageCodes(
          deps.db.kysely,
          batch.map((id) => ({ user_id: id, collection_id: collectionId, code: newCode(), created_at: createdAt })),
        );
        break;
      } catch (err) {
        if (!isUniqueViolation(err) || attempt === 3) throw err;
      }
    }
  }
}

interface StageMessage {
  collection_id: string;
  user_id: string;
}

/**
 * Brings the person whose card carries `typed` up on every open reader of the collection.
 * A code that is not a code is a 400; one that names nobody in this collection a 404.
 */
export async function showPersonOnStage(
  deps: StageDeps,
  accountId: string,
  collectionId: string,
  typed: string,
): Promise<{ id: string; display_name: string }> {
  const collection = await getCollection(deps, accountId, collectionId);
  const code = parseStageCode(typed);
  if (code === null) {
    throw new AppError('parameter_invalid', 'A card code is 10 letters and digits, such as ABCDE-12345.', { param: 'code' });
  }
  const person = await findPersonByCode(deps.db.kysely, collection.id, code);
  if (!person) throw notFound('card in this collection', 'code');
  const message: StageMessage = { collection_id: collection.id, user_id: person.id };
  deps.notifications.publish('stage', JSON.stringify(message));
  return person;
}

/** Calls `onShow(personId)` whenever a scanner, in any process, shows someone of this collection; returns the unsubscribe. */
export function watchStage(deps: Pick<AppDeps, 'notifications'>, collectionId: string, onShow: (personId: string) => void) {
  return deps.notifications.subscribe('stage', (payload) => {
    const message = JSON.parse(payload) as StageMessage;
    if (message.collection_id === collectionId) onShow(message.user_id);
  });
}

export interface NameCardPerson {
  user: User;
  /** Formatted (`ABCDE-FGHJK`): the text printed on the card and carried by its QR code. */
  code: string;
  qr: QrPath;
}

/**
 * Cards on one page: 25 printed sheets, a print job a registrar can check before the next. A
 * page's time then stays that of its own cards whatever the collection's size (400 a page took
 * 170-270 ms at 5,000 people, their QR codes mostly; 5,000 on one page were 10 MB of markup).
 */
export const CARDS_PER_PAGE = 100;
/** QR codes drawn between two turns of the event loop (a few milliseconds of work when none is cached). */
const QR_BATCH = 25;

const parseFields = (json: string): User['custom_fields'] => JSON.parse(json) as User['custom_fields'];

/**
 * One page (from 1) of the collection's name cards in its line-up order, each with its code and
 * QR code; `people` is null past READER_MAX_PEOPLE, as for the reader. A page past the last is
 * the last (the collection may have shrunk since the link was made). The order is read from a
 * few columns of everyone; only the page's people are loaded whole.
 */
export async function nameCardsOf(deps: StageDeps, accountId: string, collectionId: string, page: number) {
  const collection = await getCollection(deps, accountId, collectionId);
  const lineup = await getLineupOrder(deps, accountId, collection.id);
  const order = parseLineupOrder(lineup, collection);
  const base = { collection, lineup, order, maxPeople: READER_MAX_PEOPLE };
  const tooMany = { ...base, page: 1, pages: 1, first: 0, total: 0, people: null };
  if (collection.member_count > READER_MAX_PEOPLE) return tooMany;
  const keys = await listLineupKeys(deps.db.kysely, collection.id, READER_MAX_PEOPLE + 1);
  // The counter may lag a concurrent import by a moment; the limit holds regardless.
  if (keys.length > READER_MAX_PEOPLE) return tooMany;
  const byField = order.by === 'custom_field';
  const lined = sortForReader(
    keys.map((key) => ({ ...key, custom_fields: byField ? parseFields(key.custom_fields) : {} })),
    order,
  );
  const pages = Math.max(1, Math.ceil(lined.length / CARDS_PER_PAGE));
  const current = Math.min(page, pages);
  const first = (current - 1) * CARDS_PER_PAGE;
  const ids = lined.slice(first, first + CARDS_PER_PAGE).map((key) => key.id);
  // Codes are made for everyone at once, on the first visit of any page: one statement per 500 people.
  await makeMissingStageCodes(deps, collection.id);
  const rows = new Map((await findPeopleWithCodes(deps.db.kysely, collection.id, ids)).map((row) => [row.id, row]));
  const guides = await guidesOf(deps, ids);
  const people: NameCardPerson[] = [];
  for (const [i, id] of ids.entries()) {
    if (i > 0 && i % QR_BATCH === 0) await setImmediate();
    const row = rows.get(id);
    // Someone removed meanwhile has no card; someone added after the codes were made gets theirs on the next visit.
    if (!row?.code) continue;
    const { code: stored, ...user } = row;
    const code = formatStageCode(stored);
    people.push({
      user: toUser(deps.config.baseUrl, user, user.recording_status !== 'none', guides.get(id) ?? null),
      code,
      qr: qrPath(code),
    });
  }
  return { ...base, page: current, pages, first, total: lined.length, people };
}
