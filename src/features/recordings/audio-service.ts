/**
 * The stored audio of a recording, for the account's own pages (the dashboard's person page and
 * ceremony reader): read through the server with the account's session, so it never counts as
 * a play of the public link and works the same on disk and S3 storage.
 */
import type { Readable } from 'node:stream';
import type { BlobStore } from '../../blobs/index.js';
import type { Db } from '../../db/index.js';
import { AppError, notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { requireLiveCollection } from '../collections/service.js';
import { findRecording, userIsInCollection } from './repo.js';

export interface RecordingAudio {
  stream: Readable;
  mimeType: string;
  byteSize: number;
  /** Changes with every new take (the blob key is content-addressed). */
  etag: string;
}

const noRecording = () => new AppError('recording_missing', 'This person has not recorded their name yet.', { param: 'user_id' });

/**
 * The audio of a user of one of the account's live collections. 404 `resource_missing` for an
 * unknown, archived or foreign collection or user; 404 `recording_missing` without a recording.
 */
export async function openRecordingAudio(
  deps: { db: Db; blobs: BlobStore },
  accountId: string,
  collectionId: string,
  userId: string,
): Promise<RecordingAudio> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  if (!isUuid(userId) || !(await userIsInCollection(deps.db.kysely, collection.id, userId))) throw notFound('user', 'user_id');
  const recording = await findRecording(deps.db.kysely, userId);
  if (!recording) throw noRecording();
  const stream = await deps.blobs.stream(recording.blob_key);
  if (!stream) throw noRecording();
  const name = recording.blob_key.split('/').pop() ?? '';
  return {
    stream,
    mimeType: recording.mime_type,
    byteSize: Number(recording.byte_size),
    etag: `"${name.replace(/\.[a-z0-9]+$/, '').slice(0, 64)}"`,
  };
}
