/**
 * Opaque keyset cursors for lists ordered newest first (`created_at` desc, `id` desc).
 * A cursor names the last row of a page; the next page starts strictly after it, so rows
 * created between page reads never shift the pages (nothing skipped, nothing repeated).
 */
import { Type } from 'typebox';
import { AppError } from '../errors.js';

export interface PageCursor {
  createdAt: string;
  id: string;
}

export const encodeCursor = (cursor: PageCursor): string =>
  Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function decodeCursor(raw: string | undefined): PageCursor | null {
  if (raw === undefined) return null;
  const bad = new AppError('invalid_cursor', 'The cursor is invalid; pass the next_cursor of a previous page.', {
    param: 'cursor',
  });
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) throw bad;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw bad;
  }
  if (!Array.isArray(value) || value.length !== 2) throw bad;
  const [createdAt, id] = value;
  if (typeof createdAt !== 'string' || !ISO.test(createdAt) || typeof id !== 'string' || id.length > 64) throw bad;
  return { createdAt, id };
}

/** Query parameters every list endpoint accepts. */
export const PageQuery = {
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Page size, 1 to 100.' }),
  cursor: Type.String({ maxLength: 200, description: 'The `next_cursor` of the previous page.' }),
};

/** Fetches `limit + 1` rows to learn whether another page exists, and builds the page. */
export function toPage<Row extends { created_at: string; id: string }, Item>(
  rows: Row[],
  limit: number,
  map: (row: Row) => Item,
) {
  const pageRows = rows.slice(0, limit);
  const last = pageRows[pageRows.length - 1];
  const hasMore = rows.length > limit;
  return {
    data: pageRows.map(map),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
  };
}
