/**
 * What other features use from play links:
 * - recordings, in the transaction that stores a recording: `ensureActivePlayLink(trx, userId, at)`
 *   (the first recording creates the link; re-records keep the token), and `toPlayLink` for the
 *   upload response;
 * - after a commit that changed a recording, a user's name or phonetic spelling, or deleted either:
 *   `invalidatePlayLinksOfUser(deps, userId)`; after archiving a collection:
 *   `invalidateAllPlayLinks(deps)`. Collections imports these from `./invalidation.js` directly,
 *   because the play-links service itself depends on collections.
 */

export type { PlayLink } from './schemas.js';
export { ensureActivePlayLink, toPlayLink } from './service.js';
export { invalidateAllPlayLinks, invalidatePlayLinksOfUser } from './invalidation.js';
export { playLinkUrls } from './urls.js';
