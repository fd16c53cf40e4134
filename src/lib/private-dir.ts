import fs from 'node:fs';

/**
 * Creates `dir` (and its parents) readable by this user only, and makes an existing one so:
 * DATA_DIR holds the SQLite file (webhook secrets inside), people's voices and the signing key.
 * Returns false when the directory belongs to someone else and its mode cannot be changed.
 */
export function ensurePrivateDir(dir: string): boolean {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    fs.chmodSync(dir, 0o700);
    return true;
  } catch {
    return false;
  }
}
