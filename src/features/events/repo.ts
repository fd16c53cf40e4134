import type { Kysely } from 'kysely';
import type { Database, EventsTable } from '../../db/schema.js';

export const insertEvent = (trx: Kysely<Database>, row: EventsTable) => trx.insertInto('events').values(row).execute();
