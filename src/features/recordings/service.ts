/**
 * Recordings: an upload becomes a clean MP3 (see src/audio), stored content-addressed at
 * `recordings/<user_id>/<sha256>.mp3`. The blob is written first and the database committed
 * second, so a crash leaves at most an unreferenced blob (removed by the orphan sweep), never a
 * row without audio. A recording, its play link, the counters and the `recording.completed`
 * event all change in one transaction.
 */
import type { Logger } from 'pino';
import { AudioBusyError, type AudioProcessor, AudioRejectedError, type ProcessedAudio } from '../../audio/pipeline.js';
import type { BlobStore } from '../../blobs/index.js';
import type { Db } from '../../db/index.js';
import type { Deps } from '../../deps.js';
import type { UsersTable } from '../../db/schema.js';
import { type TransactionScope, withTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../errors.js';
import { enqueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import { WaitCancelledError } from '../../lib/fair-scheduler.js';
import { isUuid } from '../../lib/ids.js';
import { sha256Hex } from '../../lib/secrets.js';
import { countRecordingStatusChange, requireLiveCollection } from '../collections/service.js';
import { recordEvent } from '../events/service.js';
import { audioDeleteDelayMs, deleteAudioJob } from './audio-delete-job.js';
import { ensureActivePlayLink, invalidatePlayLinksOfUser, type PlayLink, toPlayLink } from '../play-links/index.js';
import { playLinkUrls } from '../play-links/urls.js';
import { parseSources, stampSources } from '../users/provenance.js';
import {
  deleteRecordingRow,
  findActivePlayLink,
  findRecording,
  findReferencedBlobKeys,
  findUserByRecordToken,
  insertRecording,
  lockRecordingUser,
  type RecordingRow,
  replaceRecording,
  setPhoneticSpelling,
  setRecordingStatus,
  userIsInCollection,
} from './repo.js';

export type RecordingsDeps = {
  db: Db;
  clock: Clock;
  blobs: BlobStore;
  audio: AudioProcessor;
  logger: Logger;
  config: { baseUrl: string; playLinks: { cacheTtlMs: number; audioPublicBaseUrl: string | null } };
  playLinks: Deps['playLinks'];
  jobsWakeup: Deps['jobsWakeup'];
};

export const RECORDINGS_PREFIX = 'recordings/';
export const recordingBlobPrefix = (userId: string) => `${RECORDINGS_PREFIX}${userId}/`;
export const recordingBlobKey = (userId: string, mp3: Buffer) => `${recordingBlobPrefix(userId)}${sha256Hex(mp3)}.mp3`;
export const RECORDING_MIME_TYPE = 'audio/mpeg';

export type PlayLinkObject = PlayLink;

/** How the caller's connection is watched: aborted when the client goes away before the answer. */
export interface UploadOptions {
  signal?: AbortSignal;
}

/**
 * Audio refusals as API errors (codes documented in docs/recordings.md). The ffmpeg slots are
 * shared fairly per account: the one that owns the collection, whether the API or the public
 * recorder sent the upload.
 */
async function processUpload(
  audio: AudioProcessor,
  accountId: string,
  upload: Buffer,
  options: UploadOptions,
): Promise<ProcessedAudio> {
  try {
    return await audio.process(upload, { sender: `account:${accountId}`, ...options });
  } catch (error) {
    if (error instanceof AudioRejectedError) throw new AppError(error.reason, error.message);
    if (error instanceof AudioBusyError) {
      // The account's own burst is its rate to slow; a full line is the server's state.
      throw new AppError(error.scope === 'sender' ? 'rate_limited' : 'audio_busy', error.message, {
        headers: { 'retry-after': String(error.retryAfterSeconds) },
      });
    }
    // The client went away while waiting: nobody reads this answer, and it is no server fault.
    if (error instanceof WaitCancelledError) throw new AppError('request_cancelled', error.message, { status: 499 });
    throw error;
  }
}

type EventUser = Pick<UsersTable, 'id' | 'collection_id' | 'email' | 'first_name' | 'last_name'>;

function eventData(baseUrl: string, user: EventUser, token: string | null, recordedAt: string) {
  return {
    collection_id: user.collection_id,
    user_id: user.id,
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    play_link: token === null ? null : playLinkUrls(baseUrl, token).play_link,
    recorded_at: recordedAt,
  };
}

/**
 * Stores `processed` as the user's recording (first or re-recording). In one transaction:
 * the row is upserted, the user gets an active play link if they have none (its token is kept
 * on re-recording), their status becomes `recorded` (clearing a review note), `recorded_count`
 * follows that status change, and `recording.completed` is recorded. The previous audio file is deleted after the commit.
 */
async function saveRecording(
  deps: RecordingsDeps,
  target: { accountId: string; collectionId: string; userId: string; phoneticSpelling?: string | null },
  processed: ProcessedAudio,
): Promise<PlayLinkObject> {
  const key = recordingBlobKey(target.userId, processed.mp3);
  await deps.blobs.put(key, processed.mp3, RECORDING_MIME_TYPE);
  const at = deps.clock.now();
  const recordedAt = at.toISOString();
  try {
    return await withTransaction(deps, async (tx) => {
      const { trx } = tx;
      // Resolved tokens cached by this process must not redirect to the old audio.
      tx.afterCommit(() => invalidatePlayLinksOfUser(deps, target.userId));
      const user = await lockRecordingUser(trx, target.collectionId, target.userId, recordedAt);
      if (!user) throw notFound('user', 'user_id');
      // Only the person's own record page sends a spelling with the recording: it is theirs.
      if (target.phoneticSpelling !== undefined && target.phoneticSpelling !== user.phonetic_spelling) {
        const sources = stampSources(parseSources(user.field_sources), ['phonetic_spelling'], 'person', recordedAt);
        await setPhoneticSpelling(trx, user.id, target.phoneticSpelling, JSON.stringify(sources));
      }
      const row: RecordingRow = {
        user_id: user.id,
        blob_key: key,
        mime_type: RECORDING_MIME_TYPE,
        byte_size: processed.mp3.length,
        duration_ms: processed.durationMs,
        recorded_at: recordedAt,
      };
      const existing = await findRecording(trx, user.id);
      if (existing) await replaceRecording(trx, row);
      else await insertRecording(trx, row);
      // A new take awaits review again, and the organiser's note has been answered.
      await setRecordingStatus(trx, user.id, 'recorded', null);
      await countRecordingStatusChange(trx, user.collection_id, user.recording_status, 'recorded');
      // The token is created once and kept on every re-recording.
      const token = await ensureActivePlayLink(trx, user.id, recordedAt);
      await recordEvent(tx, {
        accountId: target.accountId,
        type: 'recording.completed',
        data: eventData(deps.config.baseUrl, user, token, recordedAt),
        at,
      });
      const previousKey = existing?.blob_key;
      if (previousKey !== undefined && previousKey !== key) await deleteAudioLater(tx, deps, { key: previousKey });
      return toPlayLink(deps.config.baseUrl, {
        token,
        displayName: user.display_name,
        durationMs: processed.durationMs,
        recordedAt,
      });
    });
  } catch (error) {
    // Nothing committed: remove the new file unless a committed row uses the same content.
    const referenced = await findReferencedBlobKeys(deps.db.kysely, [key]).catch(() => new Set([key]));
    if (!referenced.has(key)) await deleteBlobQuietly(deps, key);
    throw error;
  }
}

async function deleteBlobQuietly(deps: RecordingsDeps, key: string): Promise<void> {
  try {
    await deps.blobs.delete(key);
    logCdnPurge(deps, [key]);
  } catch (err) {
    deps.logger.warn({ err, key }, 'could not delete audio file; the orphan sweep will retry');
  }
}

type PurgeDeps = { logger: Logger; config: { baseUrl: string; playLinks?: { audioPublicBaseUrl: string | null } } };

/**
 * With a CDN in front of the audio (`AUDIO_PUBLIC_BASE_URL`), its cached copies of deleted audio
 * outlive the deletion: each deletion logs the URLs (or URL prefixes, ending in `/`) to purge
 * there, for the operator's purge automation. Without a CDN there is nothing to purge.
 */
export function logCdnPurge(deps: PurgeDeps, keysOrPrefixes: string[]): void {
  const base = deps.config.playLinks?.audioPublicBaseUrl;
  if (!base || keysOrPrefixes.length === 0) return;
  deps.logger.info(
    { purge: keysOrPrefixes.map((key) => `${base.replace(/\/$/, '')}/${key}`) },
    'deleted audio: purge these from the CDN',
  );
}

/** PUT …/users/{user_id}/recording: processes the upload synchronously and answers the play-link object. */
export async function recordForUser(
  deps: RecordingsDeps,
  accountId: string,
  collectionId: string,
  userId: string,
  upload: Buffer,
  options: UploadOptions = {},
): Promise<PlayLinkObject> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  if (!isUuid(userId) || !(await userIsInCollection(deps.db.kysely, collection.id, userId))) throw notFound('user', 'user_id');
  const processed = await processUpload(deps.audio, accountId, upload, options);
  return saveRecording(deps, { accountId, collectionId: collection.id, userId }, processed);
}

/** The recorder page's user for a token, or 404 (unknown, rotated, or the collection is archived). */
export async function requireRecorderUser(deps: { db: Db }, token: string) {
  const user = /^[A-Za-z0-9_-]{20,64}$/.test(token) ? await findUserByRecordToken(deps.db.kysely, token) : undefined;
  if (!user) throw new AppError('resource_missing', 'This recording link is not valid any more; ask for a new one.');
  return user;
}

/** Whether the user has a recording (the recorder page offers a re-take then). */
export const userHasRecording = async (deps: { db: Db }, userId: string): Promise<boolean> =>
  (await findRecording(deps.db.kysely, userId)) !== undefined;

/** POST /r/<token>/recording: the public recorder's upload, with an optional phonetic spelling. */
export async function recordWithToken(
  deps: RecordingsDeps,
  token: string,
  upload: Buffer,
  phoneticSpelling?: string,
  options: UploadOptions = {},
): Promise<PlayLinkObject> {
  const user = await requireRecorderUser(deps, token);
  if (phoneticSpelling !== undefined && phoneticSpelling.length > 100) {
    throw new AppError('parameter_invalid', 'The phonetic spelling must be at most 100 characters.', {
      param: 'phonetic_spelling',
    });
  }
  const processed = await processUpload(deps.audio, user.account_id, upload, options);
  return saveRecording(
    deps,
    {
      accountId: user.account_id,
      collectionId: user.collection_id,
      userId: user.id,
      ...(phoneticSpelling === undefined ? {} : { phoneticSpelling: phoneticSpelling.trim() || null }),
    },
    processed,
  );
}

/**
 * Inside a user-deletion or recording-deletion transaction: records `recording.deleted` when
 * the user has a recording and returns whether they had one. The caller deletes the row(s).
 */
export async function recordRecordingDeleted(
  tx: TransactionScope,
  deps: { config: { baseUrl: string } },
  input: { accountId: string; user: EventUser; at: Date },
): Promise<boolean> {
  const recording = await findRecording(tx.trx, input.user.id);
  if (!recording) return false;
  const link = await findActivePlayLink(tx.trx, input.user.id);
  await recordEvent(tx, {
    accountId: input.accountId,
    type: 'recording.deleted',
    data: eventData(deps.config.baseUrl, input.user, link?.token ?? null, recording.recorded_at),
    at: input.at,
  });
  return true;
}

/** DELETE …/recording: removes the recording and its audio; the play link token is kept for a new take. */
export async function deleteRecording(deps: RecordingsDeps, accountId: string, collectionId: string, userId: string) {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  if (!isUuid(userId)) throw notFound('user', 'user_id');
  const at = deps.clock.now();
  await withTransaction(deps, async (tx) => {
    tx.afterCommit(() => invalidatePlayLinksOfUser(deps, userId));
    const user = await lockRecordingUser(tx.trx, collection.id, userId, at.toISOString());
    if (!user) throw notFound('user', 'user_id');
    const recording = await findRecording(tx.trx, user.id);
    if (!recording) throw new AppError('resource_missing', 'This user has no recording.', { param: 'user_id' });
    await recordRecordingDeleted(tx, deps, { accountId: collection.account_id, user, at });
    await deleteRecordingRow(tx.trx, user.id);
    await setRecordingStatus(tx.trx, user.id, 'none', null);
    await countRecordingStatusChange(tx.trx, collection.id, user.recording_status, 'none');
    await deleteAudioLater(tx, deps, { key: recording.blob_key });
  });
  return { deleted: true as const, user_id: userId };
}

/**
 * Schedules the deletion of audio that a committed change stopped using (audio-delete-job.ts):
 * not now, since other processes' caches may still redirect to it for a few seconds.
 */
export async function deleteAudioLater(
  tx: TransactionScope,
  deps: Pick<RecordingsDeps, 'config'>,
  target: { key: string } | { prefix: string },
): Promise<void> {
  const runAt = new Date(tx.clock.now().getTime() + audioDeleteDelayMs(deps.config.playLinks.cacheTtlMs));
  await enqueue(tx, deleteAudioJob, target, { runAt });
}

/** The job's work: the file (or every file under the prefix) that no recording uses any more. */
export async function deleteUnreferencedAudio(deps: RecordingsDeps, target: { key: string } | { prefix: string }) {
  // Content-addressed keys: the same take uploaded again since then uses the same file.
  const keys = 'key' in target ? [target.key] : await deps.blobs.list(target.prefix);
  const referenced = await findReferencedBlobKeys(deps.db.kysely, keys);
  const unused = keys.filter((key) => !referenced.has(key));
  for (const key of unused) await deps.blobs.delete(key);
  // A whole person's audio is purged from a CDN by its prefix, a single file by its key.
  if (unused.length > 0) logCdnPurge(deps, 'key' in target ? unused : [target.prefix]);
}

/**
 * Deletes audio files no recording row points at, older than `minAgeMs` (younger ones may
 * belong to an upload whose transaction has not committed yet). Returns how many went.
 */
export async function sweepOrphanBlobs(deps: RecordingsDeps, minAgeMs = 60 * 60 * 1000): Promise<number> {
  const cutoff = deps.clock.now().getTime() - minAgeMs;
  const old = (await deps.blobs.listWithTimes(RECORDINGS_PREFIX)).filter((b) => b.modifiedAt.getTime() < cutoff);
  const referenced = await findReferencedBlobKeys(
    deps.db.kysely,
    old.map((b) => b.key),
  );
  let deleted = 0;
  for (const blob of old) {
    if (referenced.has(blob.key)) continue;
    await deleteBlobQuietly(deps, blob.key);
    deleted++;
  }
  return deleted;
}
