/**
 * Dropping cached play links after a commit that changed them. These only touch this process's
 * cache, so any feature may call them (collections does, and play-links/service depends on
 * collections: keeping these apart from the service keeps the imports acyclic).
 */
import type { PlayLinkRuntime } from './cache.js';

type CacheDeps = { playLinks: PlayLinkRuntime };

/** Call after a change to one token (rotation). */
export function invalidatePlayLinkToken(deps: CacheDeps, token: string): void {
  deps.playLinks.cache.invalidateToken(token);
}

/**
 * Call after committing any change to a user's recording or the user itself: re-record (new
 * audio, duration, recorded_at), recording deleted, user deleted, display name or phonetic
 * spelling changed.
 */
export function invalidatePlayLinksOfUser(deps: CacheDeps, userId: string): void {
  deps.playLinks.cache.invalidateUser(userId);
}

/** Call after changes that touch many links at once (a collection archived, settings changed). */
export function invalidateAllPlayLinks(deps: CacheDeps): void {
  deps.playLinks.cache.invalidateAll();
}
