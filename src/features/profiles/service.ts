/**
 * Published profiles: the lookups the pages and the other features use, the one path that speaks
 * a name and stores its audio (the agent API's publish and the owner's voice change both call it),
 * writing a new profile in the caller's transaction, and deletion (the slug stays reserved).
 */
import type { Deps } from '../../deps.js';
import type { TransactionScope } from '../../db/transaction.js';
import { isoNow } from '../../lib/clock.js';
import { canonicalLanguage } from '../../lib/languages.js';
import { generateGuide, suggestLanguage } from '../../pronunciation/guide.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import type { VoiceStyle } from '../../speech/synthesizer.js';
import { speechLanguageFor } from '../../lib/scripts.js';
import { type EntityRow, findEntityById, findEntityBySlug, insertEntity, markEntityDeleted, nameHolder } from './repo.js';
import { isSlug } from './slug.js';
import { profileUrls } from './urls.js';

export type { EntityRow } from './repo.js';

export type ProfileLookup = { kind: 'found'; entity: EntityRow } | { kind: 'gone' } | { kind: 'not_found' };

/** The live entity at `slug`, `gone` after deletion (the slug stays reserved), or `not_found`. */
export async function findProfile(deps: Pick<Deps, 'db'>, slug: string): Promise<ProfileLookup> {
  if (!isSlug(slug)) return { kind: 'not_found' };
  const entity = await findEntityBySlug(deps.db.kysely, slug);
  if (!entity) return { kind: 'not_found' };
  return entity.deleted_at ? { kind: 'gone' } : { kind: 'found', entity };
}

/** The entity with this id, deleted or not (deleted ones are tombstones). */
export const findProfileById = (deps: Pick<Deps, 'db'>, id: string): Promise<EntityRow | undefined> =>
  findEntityById(deps.db.kysely, id);

/**
 * The slug of the profile holding this name: the same slug, or one with the same confusable
 * skeleton (a look-alike); null when the name is free. Deleted profiles keep holding theirs.
 */
export const findNameHolder = (deps: Pick<Deps, 'db'>, slug: string): Promise<string | null> => nameHolder(deps.db.kysely, slug);

/** Whether `token` is the entity's receipt deletion token: compared by hash, in constant time (P12). */
export const deletionTokenMatches = (entity: EntityRow, token: string): boolean =>
  safeEqual(sha256Hex(token.trim().toLowerCase()), entity.deletion_token_hash);

export const avatarUrlOf = (deps: Pick<Deps, 'config' | 'assets'>, entity: Pick<EntityRow, 'avatar_url'>): string =>
  entity.avatar_url ?? profileUrls(deps).defaultAvatar();

export interface StoredNameAudio {
  blobKey: string;
  byteSize: number;
  durationMs: number;
}

/**
 * Speaks `name` and stores the MP3 under the entity's folder; the key embeds the content hash (the
 * audio route's ETag). Without a language the name is read in a voice of its own script, never
 * spelled out as English. The caller records the key, and deletes the file if recording fails.
 */
export async function storeNameAudio(
  deps: Pick<Deps, 'speech' | 'blobs'>,
  input: { entityId: string; name: string; voiceStyle: VoiceStyle | undefined; language: string | null | undefined },
): Promise<StoredNameAudio> {
  const speech = await deps.speech.synthesize({
    text: input.name,
    voiceStyle: input.voiceStyle,
    language: input.language ?? speechLanguageFor(input.name),
  });
  const blobKey = `entities/${input.entityId}/name-${sha256Hex(speech.mp3).slice(0, 12)}.mp3`;
  try {
    await deps.blobs.put(blobKey, speech.mp3, 'audio/mpeg');
  } catch (err) {
    // A store may have written part of it.
    await deps.blobs.delete(blobKey).catch(() => undefined);
    throw err;
  }
  return { blobKey, byteSize: speech.mp3.length, durationMs: speech.durationMs };
}

/** A profile's pronunciation guide, as stored with it (all null when there is none). */
export type NameGuide = Pick<EntityRow, 'guide_ipa' | 'guide_respelling' | 'guide_language' | 'guide_language_suggested'>;

const NO_GUIDE: NameGuide = { guide_ipa: null, guide_respelling: null, guide_language: null, guide_language_suggested: 0 };

/**
 * The pronunciation guide of an agent's name (src/pronunciation): read in `nameLanguage` when the
 * agent gave one, else each word in the language its script suggests, else as English. A name with
 * nothing to say (digits only) or an engine failure gives no guide: the profile is published
 * without one, never refused for it (the agent paid for the profile and its audio).
 */
export async function makeNameGuide(
  deps: Pick<Deps, 'speech' | 'logger'>,
  input: { name: string; nameLanguage: string | null | undefined },
): Promise<NameGuide> {
  const given = canonicalLanguage(input.nameLanguage);
  try {
    const guide = await generateGuide(deps.speech, { given: input.name, family: '' }, { name: given });
    return {
      guide_ipa: guide.ipa,
      guide_respelling: guide.respelling,
      guide_language: guide.language,
      guide_language_suggested: !given && suggestLanguage(input.name) ? 1 : 0,
    };
  } catch (err) {
    if (!(err instanceof RangeError)) deps.logger.warn({ err }, 'could not make the pronunciation guide of a profile name');
    return NO_GUIDE;
  }
}

/** Writes a new profile in the caller's transaction; a taken slug is the database's unique violation. */
export async function insertProfile(tx: TransactionScope, entity: EntityRow): Promise<void> {
  await insertEntity(tx.trx, entity);
}

/**
 * Deletes a live profile: a tombstone keeps the slug reserved (its URLs answer 410) and the rest is
 * wiped, then the audio file goes. False when it was already deleted (nothing is touched).
 */
export async function deleteProfile(deps: Pick<Deps, 'db' | 'clock' | 'blobs'>, entity: EntityRow): Promise<boolean> {
  if (!(await markEntityDeleted(deps.db.kysely, { id: entity.id, now: isoNow(deps.clock) }))) return false;
  if (entity.audio_blob_key) await deps.blobs.delete(entity.audio_blob_key);
  return true;
}
