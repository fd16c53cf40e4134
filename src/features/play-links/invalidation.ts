/**
 * Dropping cached play links after a commit that changed them, in this process at once and in
 * every other process sharing the database once the notification arrives (PostgreSQL
 * LISTEN/NOTIFY: milliseconds; the cache lifetime bounds it when a message is lost). Any feature
 * may call these (collections does, and play-links/service depends on collections: keeping these
 * apart from the service keeps the imports acyclic).
 */
import type { Notifications } from '../../db/notifications.js';
import type { PlayLinkRuntime } from './cache.js';

type CacheDeps = { playLinks: PlayLinkRuntime; notifications?: Notifications };

/** What one invalidation message says (JSON on the `play_links` topic). */
export type PlayLinkChange = { token: string } | { user: string } | { all: true };

/** Applies a change to this process's cache (also for changes other processes announce). */
export function applyPlayLinkChange(playLinks: PlayLinkRuntime, change: PlayLinkChange): void {
  if ('token' in change) playLinks.cache.invalidateToken(change.token);
  else if ('user' in change) playLinks.cache.invalidateUser(change.user);
  else playLinks.cache.invalidateAll();
}

function announce(deps: CacheDeps, change: PlayLinkChange): void {
  if (deps.notifications) deps.notifications.publish('play_links', JSON.stringify(change));
  applyPlayLinkChange(deps.playLinks, change);
}

/** Call after a change to one token (rotation). */
export function invalidatePlayLinkToken(deps: CacheDeps, token: string): void {
  announce(deps, { token });
}

/**
 * Call after committing any change to a user's recording or the user itself: re-record (new
 * audio, duration, recorded_at), recording deleted, user deleted, display name or phonetic
 * spelling changed.
 */
export function invalidatePlayLinksOfUser(deps: CacheDeps, userId: string): void {
  announce(deps, { user: userId });
}

/** Call after changes that touch many links at once (a collection archived, settings changed). */
export function invalidateAllPlayLinks(deps: CacheDeps): void {
  announce(deps, { all: true });
}
