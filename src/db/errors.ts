/**
 * Database errors in dialect-neutral terms: how SQLite (better-sqlite3) and PostgreSQL (pg)
 * report a broken unique constraint, so features never test driver error codes themselves.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** The constraint or index named in a unique violation (PostgreSQL) or its message (SQLite lists the columns). */
export function uniqueViolationDetail(error: unknown): string {
  const e = error as { constraint?: string; message?: string } | null;
  return `${e?.constraint ?? ''} ${e?.message ?? ''}`;
}
