/**
 * What other features use from play links. The recordings, users and collections features
 * call these:
 * - in the transaction that stores a recording: `ensureActivePlayLink(trx, userId, at)` (first
 *   recording creates the link; re-records keep the token);
 * - after that transaction commits, and after deleting a recording or a user, or changing a user's
 *   display name or phonetic spelling: `invalidatePlayLinksOfUser(deps, userId)`;
 * - for an upload response that shows the link: `playLinkForUser(deps, userId)`;
 * - after archiving a collection: `invalidateAllPlayLinks(deps)`.
 */

export type { PlayLink } from './schemas.js';
export {
  ensureActivePlayLink,
  flushPlayCounts,
  invalidateAllPlayLinks,
  invalidatePlayLinksOfUser,
  invalidatePlayLinkToken,
  newPlayLinkToken,
  playLinkForUser,
  toPlayLink,
} from './service.js';
export { playLinkUrls } from './urls.js';
