/**
 * The keyset condition of every newest-first list: rows strictly older than the cursor's
 * `(created_at, id)`. Written as a row-value comparison, which SQLite and PostgreSQL both answer
 * with a range scan of the `(…, created_at, id)` index; the equivalent
 * `created_at < ? OR (created_at = ? AND id < ?)` is applied as a filter after reading every
 * newer row, so page 10,000 would cost 10,000 times page 1.
 */
import { type SqlBool, sql } from 'kysely';
import type { PageCursor } from '../lib/pagination.js';

export const olderThanCursor = (createdAtColumn: string, idColumn: string, cursor: PageCursor) =>
  sql<SqlBool>`(${sql.ref(createdAtColumn)}, ${sql.ref(idColumn)}) < (${cursor.createdAt}, ${cursor.id})`;
