/**
 * The file between the import form's two steps (preview, then confirm). It is kept in the blob
 * store, which every API process shares (disk on one machine, S3 on many), so the confirmation
 * may reach another process than the upload did. Its key is a SHA-256 of the session, the
 * collection and a random token: only the browser that uploaded it, for that collection, can
 * name it again. A file lives 30 minutes; each upload removes the expired ones, and importing
 * removes its own.
 */
import { createHash } from 'node:crypto';
import type { BlobStore } from '../../blobs/index.js';
import { newBrowserSecret } from './service.js';

export const UPLOAD_TTL_MS = 30 * 60 * 1000;
const PREFIX = 'import-uploads/';

/** Ages are measured against the store's own modification times, so with the wall clock. */
type UploadDeps = { blobs: BlobStore };

export interface UploadOwner {
  sessionId: string;
  collectionId: string;
}

const keyOf = (owner: UploadOwner, token: string) =>
  `${PREFIX}${createHash('sha256').update(`${owner.sessionId}\n${owner.collectionId}\n${token}`).digest('hex')}.csv`;

/** Keeps the file for the confirmation step and answers its token (43 URL-safe characters). */
export async function holdUpload(deps: UploadDeps, owner: UploadOwner, bytes: Buffer): Promise<string> {
  await removeExpiredUploads(deps);
  const token = newBrowserSecret();
  await deps.blobs.put(keyOf(owner, token), bytes, 'text/csv');
  return token;
}

/** The held file, or null when the token is malformed, not this session's, or expired. */
export async function readUpload(deps: UploadDeps, owner: UploadOwner, token: string): Promise<Buffer | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const key = keyOf(owner, token);
  const [found] = await deps.blobs.listWithTimes(key);
  if (!found || found.key !== key) return null;
  if (Date.now() - found.modifiedAt.getTime() > UPLOAD_TTL_MS) {
    await deps.blobs.delete(key);
    return null;
  }
  return deps.blobs.get(key);
}

export async function dropUpload(deps: UploadDeps, owner: UploadOwner, token: string): Promise<void> {
  if (/^[A-Za-z0-9_-]{43}$/.test(token)) await deps.blobs.delete(keyOf(owner, token));
}

/** Deletes held files older than 30 minutes; answers how many. */
export async function removeExpiredUploads(deps: UploadDeps): Promise<number> {
  const cutoff = Date.now() - UPLOAD_TTL_MS;
  const expired = (await deps.blobs.listWithTimes(PREFIX)).filter((blob) => blob.modifiedAt.getTime() < cutoff);
  for (const blob of expired) await deps.blobs.delete(blob.key);
  return expired.length;
}
