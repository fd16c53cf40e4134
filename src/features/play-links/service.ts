import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { withTransaction } from '../../db/transaction.js';
import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { isUuid, randomToken } from '../../lib/ids.js';
import { sha256Hex } from '../../lib/secrets.js';
import { brandStyleUrl } from '../collections/brand-color.js';
import { logoUrl, requireLiveCollection } from '../collections/service.js';
import { KeyBatcher, type ResolvedPlayLink, type UserLinkSummary } from './cache.js';
import {
  findActiveLinkOfUser,
  findResolvableLinks,
  findSettings,
  findUsersWithLinks,
  insertActiveLink,
  type ResolvedLinkRow,
  retireActiveLink,
  type UserLinkRow,
  upsertSettings,
} from './repo.js';
import { type BatchPlayLinkItem, MAX_BATCH_IDS, MAX_USER_ID_LENGTH, type PlayLink, type PlayLinkSettings } from './schemas.js';
import { invalidateAllPlayLinks, invalidatePlayLinkToken } from './invalidation.js';
import { playCountOf } from './play-counts.js';
import { embedHtmlOf, oembedUrlFor, playLinkUrl, playLinkUrls } from './urls.js';
import { isUniqueViolation } from '../../db/errors.js';

/** Token of a new play link: 12 random bytes (96 bits), 16 URL-safe characters. */
export const newPlayLinkToken = (): string => randomToken(12);
/** Shape of tokens we ever issue; anything else is answered 404 without touching the database. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{8,64}$/;

/** Whole seconds, rounded, and never 0 for a recording that exists (a 0.4 s name still plays). */
export const durationSeconds = (ms: number): number => Math.max(1, Math.round(ms / 1000));

/** The spec's seven-field Play link object. */
export function toPlayLink(
  baseUrl: string,
  link: { token: string; displayName: string; durationMs: number; recordedAt: string },
): PlayLink {
  const urls = playLinkUrls(baseUrl, link.token);
  return {
    play_link: urls.play_link,
    play_url: urls.play_url,
    embed_html: embedHtmlOf(baseUrl, link.token, link.displayName),
    display_name: link.displayName,
    duration_seconds: durationSeconds(link.durationMs),
    recorded_at: link.recordedAt,
    status: 'active',
  };
}

/**
 * Makes sure the user has an active play link and returns its token. Call inside the transaction
 * that stores a recording (first recording creates the link; later ones keep it). Safe against
 * races: a second active link for one user is refused by a unique index, and the loser re-reads.
 */
export async function ensureActivePlayLink(trx: Transaction<Database>, userId: string, at: string): Promise<string> {
  const existing = await findActiveLinkOfUser(trx, userId);
  if (existing) return existing.token;
  const token = newPlayLinkToken();
  await insertActiveLink(trx, { token, user_id: userId, created_at: at });
  return token;
}

async function userLinkRow(deps: Deps, collectionId: string, userId: string): Promise<UserLinkRow> {
  const [row] = isUuid(userId) ? await findUsersWithLinks(deps.db.kysely, [userId], deps.db.dialect) : [];
  // A user of another collection is as unknown as one that never existed.
  if (!row || row.collection_id !== collectionId) throw notFound('user', 'user_id');
  return row;
}

const noRecording = () =>
  new AppError('recording_missing', 'This user has not recorded their name yet, so there is no play link.', {
    param: 'user_id',
  });

/** A link for a row with a recording; creates the active link if the recording has none yet. */
async function linkFromRow(deps: Deps, row: UserLinkRow): Promise<PlayLink> {
  if (row.duration_ms === null || row.recorded_at === null) throw noRecording();
  const token = row.token ?? (await withTransaction(deps, ({ trx }) => ensureActiveLinkSafely(trx, row.user_id, deps)));
  return toPlayLink(deps.config.baseUrl, {
    token,
    displayName: row.display_name,
    durationMs: Number(row.duration_ms),
    recordedAt: row.recorded_at,
  });
}

async function ensureActiveLinkSafely(trx: Transaction<Database>, userId: string, deps: Deps): Promise<string> {
  try {
    return await ensureActivePlayLink(trx, userId, isoNow(deps.clock));
  } catch (err) {
    // Another request created it first (unique index on the active link): use theirs.
    const winner = await findActiveLinkOfUser(deps.db.kysely, userId);
    if (winner) return winner.token;
    throw err;
  }
}

/**
 * The play link of a user of one of the account's live collections. 404 `resource_missing` for an
 * unknown, archived or foreign collection or a user not in it; 404 `recording_missing` when the
 * user exists but has no recording.
 */
export async function getPlayLink(deps: Deps, accountId: string, collectionId: string, userId: string): Promise<PlayLink> {
  await requireLiveCollection(deps, accountId, collectionId);
  return linkFromRow(deps, await userLinkRow(deps, collectionId, userId));
}

/**
 * Issues a new token for the user's play link and retires the old one at once (its public URLs
 * answer 404 from now on, in this process immediately and in others within the cache TTL). The
 * play count carries over. Needs a recording, like the link itself.
 */
export async function rotatePlayLink(deps: Deps, accountId: string, collectionId: string, userId: string): Promise<PlayLink> {
  await requireLiveCollection(deps, accountId, collectionId);
  const row = await userLinkRow(deps, collectionId, userId);
  if (row.duration_ms === null || row.recorded_at === null) throw noRecording();
  const now = isoNow(deps.clock);
  const token = newPlayLinkToken();
  try {
    await withTransaction(deps, async ({ trx, afterCommit }) => {
      const old = await retireActiveLink(trx, userId, now);
      await insertActiveLink(trx, { token, user_id: userId, created_at: now, play_count: Number(old?.play_count ?? 0) });
      if (!old) return;
      afterCommit(() => {
        // Plays of the old token not flushed yet count for the new one; its cached resolution goes.
        deps.playLinks.counter.move(old.token, token);
        invalidatePlayLinkToken(deps, old.token);
      });
    });
  } catch (err) {
    // Two rotations at once: the unique index on the active link lets one win.
    if (isUniqueViolation(err)) {
      throw new AppError('conflict', 'The play link was rotated by another request at the same time; fetch it or retry.', {
        cause: err,
      });
    }
    throw err;
  }
  return toPlayLink(deps.config.baseUrl, {
    token,
    displayName: row.display_name,
    durationMs: Number(row.duration_ms),
    recordedAt: row.recorded_at,
  });
}

/** Splits `a, b,,c` into trimmed, non-empty ids, in order, duplicates kept (one pass: no array per step). */
export function parseUserIds(raw: string): string[] {
  const ids: string[] = [];
  let tooLong = false;
  for (const part of raw.split(',')) {
    const id = part.trim();
    if (id === '') continue;
    tooLong ||= id.length > MAX_USER_ID_LENGTH;
    ids.push(id);
  }
  // Too many ids is reported first, whatever else is wrong.
  if (ids.length > MAX_BATCH_IDS) {
    const message = `Invalid query parameter "user_ids": at most ${MAX_BATCH_IDS} ids, got ${ids.length}.`;
    throw new AppError('parameter_invalid', message, { param: 'user_ids' });
  }
  if (tooLong) {
    const message = `Invalid query parameter "user_ids": ids are at most ${MAX_USER_ID_LENGTH} characters.`;
    throw new AppError('parameter_invalid', message, { param: 'user_ids' });
  }
  return ids;
}

/**
 * Up to 100 play links of one collection in one query: one item per requested id, in request
 * order. Ids that are not users of this collection (unknown, malformed, or another collection's)
 * get `display_name: ""`, `has_recording: false`, `play_link: null`: nothing of anyone else leaks.
 */
export async function batchPlayLinks(
  deps: Deps,
  accountId: string,
  query: { collection_id: string; user_ids: string },
): Promise<{ data: BatchPlayLinkItem[] }> {
  await requireLiveCollection(deps, accountId, query.collection_id);
  const ids = parseUserIds(query.user_ids);
  const summaries = await userSummaries(deps, ids);
  const { baseUrl } = deps.config;
  // One item object per id and nothing else: this runs 100 times per request.
  const data: BatchPlayLinkItem[] = [];
  for (const [index, id] of ids.entries()) {
    const summary = summaries[index];
    // Never another collection's data: a user elsewhere answers like an unknown id.
    const mine = summary !== undefined && summary.collectionId === query.collection_id ? summary : undefined;
    const token = mine?.token ?? null;
    data.push({
      user_id: id,
      display_name: mine?.displayName ?? '',
      has_recording: token !== null,
      play_link: token ? playLinkUrl(baseUrl, token) : null,
    });
  }
  return { data };
}

/**
 * The summary of each of `ids` (same order; undefined for ids that are not users): from the
 * per-process cache where fresh, the rest in one query (then cached, unless an invalidation ran
 * meanwhile). A recorded user without an active link gets one here, as on every other read. The
 * warm path allocates one array: no map or set per request.
 */
async function userSummaries(deps: Deps, ids: string[]): Promise<(UserLinkSummary | undefined)[]> {
  const { cache } = deps.playLinks;
  const summaries = ids.map((id) => cache.peekUser(id));
  // Only ids that can be users are looked up (the cache holds existing users only).
  const missing = ids.filter((id, index) => summaries[index] === undefined && isUuid(id));
  if (missing.length === 0) return summaries;
  const generation = cache.currentGeneration;
  const rows = await findUsersWithLinks(deps.db.kysely, [...new Set(missing)], deps.db.dialect);
  const loaded = new Map<string, UserLinkSummary>();
  for (const row of rows) {
    let token = row.token;
    if (token === null && row.duration_ms !== null) {
      token = await withTransaction(deps, ({ trx }) => ensureActiveLinkSafely(trx, row.user_id, deps));
    }
    loaded.set(row.user_id, {
      userId: row.user_id,
      collectionId: row.collection_id,
      displayName: row.display_name,
      token: row.duration_ms === null ? null : token,
    });
  }
  cache.storeUsers([...loaded.values()], generation);
  return summaries.map((summary, index) => summary ?? loaded.get(ids[index] as string));
}

/** The collection's play-link page settings (defaults when never set). */
export async function getPlayLinkSettings(deps: Deps, accountId: string, collectionId: string): Promise<PlayLinkSettings> {
  await requireLiveCollection(deps, accountId, collectionId);
  const row = await findSettings(deps.db.kysely, collectionId);
  return { allow_indexing: row?.allow_indexing === 1 };
}

/** Changes the collection's play-link page settings; public pages follow at once in this process. */
export async function updatePlayLinkSettings(
  deps: Deps,
  accountId: string,
  collectionId: string,
  input: Partial<PlayLinkSettings>,
): Promise<PlayLinkSettings> {
  const current = await getPlayLinkSettings(deps, accountId, collectionId);
  const next = { ...current, ...input };
  await upsertSettings(deps.db.kysely, {
    collection_id: collectionId,
    allow_indexing: next.allow_indexing ? 1 : 0,
    updated_at: isoNow(deps.clock),
  });
  invalidateAllPlayLinks(deps);
  return next;
}

// ---- Public URLs: resolution, counts, invalidation ----

function contentHashOf(row: ResolvedLinkRow): string {
  const base = row.blob_key.split('/').pop() ?? '';
  const named = /^([0-9a-f]{64})\.[a-z0-9]+$/.exec(base);
  return named?.[1] ?? sha256Hex(`${row.blob_key}\n${row.byte_size}\n${row.recorded_at}`);
}

/** Path of the app-served, immutable audio of a link (disk storage). */
export const appAudioPath = (token: string, contentHash: string, blobKey: string): string =>
  `/p/${token}/audio/${contentHash.slice(0, 32)}.${blobKey.split('.').pop() ?? 'mp3'}`;

async function toResolved(deps: Deps, row: ResolvedLinkRow): Promise<ResolvedPlayLink> {
  const contentHash = contentHashOf(row);
  const { audioPublicBaseUrl, audioUrlTtlSeconds } = deps.config.playLinks;
  const direct = audioPublicBaseUrl
    ? `${audioPublicBaseUrl}/${row.blob_key}`
    : await deps.blobs.presignedUrl(row.blob_key, audioUrlTtlSeconds); // S3 signs; disk answers null
  return {
    token: row.token,
    userId: row.user_id,
    collectionId: row.collection_id,
    displayName: row.display_name,
    preferredName: row.preferred_name,
    pronouns: row.pronouns,
    phoneticSpelling: row.phonetic_spelling,
    guide:
      row.guide_ipa !== null && row.guide_respelling !== null && row.guide_language !== null
        ? {
            respelling: row.guide_respelling,
            ipa: row.guide_ipa,
            notLike: row.guide_not_like,
            language: row.guide_language,
            approved: row.guide_approved_at !== null,
          }
        : null,
    blobKey: row.blob_key,
    mimeType: row.mime_type,
    byteSize: Number(row.byte_size),
    durationMs: Number(row.duration_ms),
    recordedAt: row.recorded_at,
    storedPlayCount: Number(row.play_count),
    allowIndexing: row.allow_indexing === 1,
    language: row.collection_language,
    organisation: row.organisation_name ?? row.collection_name,
    logoUrl: logoUrl(deps.config.baseUrl, row.logo_key),
    brandStyleUrl: brandStyleUrl(row.brand_color),
    contentHash,
    audioLocation: direct ?? `${deps.config.baseUrl}${appAudioPath(row.token, contentHash, row.blob_key)}`,
    // A presigned URL is signed again at half its lifetime, so a redirect never hands out one about to expire
    // (Date.now: the cache's clock).
    audioLocationRefreshAt: direct !== null && !audioPublicBaseUrl ? Date.now() + (audioUrlTtlSeconds * 1000) / 2 : null,
  };
}

type Resolution = Promise<ResolvedPlayLink | null> | ResolvedPlayLink | null;
const batchers = new WeakMap<Deps['playLinks'], KeyBatcher<ResolvedPlayLink>>();

/** Cache misses of one event-loop turn share one query (see KeyBatcher). */
function missLoader(deps: Deps): KeyBatcher<ResolvedPlayLink> {
  let batcher = batchers.get(deps.playLinks);
  if (!batcher) {
    batcher = new KeyBatcher(async (tokens) => {
      const rows = await findResolvableLinks(deps.db.kysely, deps.db.dialect, tokens);
      const links = await Promise.all(rows.map((row) => toResolved(deps, row)));
      return new Map(links.map((link) => [link.token, link]));
    });
    batchers.set(deps.playLinks, batcher);
  }
  return batcher;
}

/**
 * What a public token stands for, or null: unknown, retired (rotated), recording or user deleted,
 * collection archived all look the same. Served from the per-process cache (see cache.ts). `shapeChecked`:
 * the caller has already tested the token against TOKEN_SHAPE (the `.mp3` fast path), so it is not tested twice.
 */
export function resolvePlayLink(deps: Deps, token: string, shapeChecked = false): Resolution {
  if (!shapeChecked && !TOKEN_SHAPE.test(token)) return null;
  const { cache } = deps.playLinks;
  const cached = cache.peek(token);
  if (cached !== undefined) {
    cache.lookups.hits++;
    return cached;
  }
  cache.lookups.misses++;
  return cache.get(token, () => missLoader(deps).load(token));
}

/** The `/meta` document: the seven play-link fields and what integrations need besides, the name's guide among them. */
export function metaOf(deps: Deps, link: ResolvedPlayLink) {
  const base = deps.config.baseUrl;
  const urls = playLinkUrls(base, link.token);
  return {
    ...toPlayLink(base, link),
    token: link.token,
    preferred_name: link.preferredName,
    pronouns: link.pronouns,
    phonetic_spelling: link.phoneticSpelling,
    audio_mime_type: link.mimeType,
    embed_url: urls.embed_url,
    oembed_url: oembedUrlFor(base, urls.play_link),
    play_count: playCountOf(deps, link),
    // What the name's guide says, and whether the person approved it; not who wrote it, when, nor its audio.
    pronunciation: link.guide
      ? {
          respelling: link.guide.respelling,
          ipa: link.guide.ipa,
          not_like: link.guide.notLike,
          language: link.guide.language,
          approved: link.guide.approved,
        }
      : null,
  };
}
