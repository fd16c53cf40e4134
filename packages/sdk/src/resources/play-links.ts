import { type ApiClient, callOptions, type RequestOptions, unwrap } from '../request.js';
import type { PlayLink, PlayLinkBatchItem } from '../types.js';

/** The API resolves at most this many user ids per batch request. */
export const MAX_BATCH_USER_IDS = 100;

/** Play links: the public player page, `.mp3`, embed and metadata URLs of a recorded name. */
export class PlayLinks {
  constructor(private readonly api: ApiClient) {}

  /** Throws `NotFoundError` with code `recording_missing` while the person has not recorded. */
  get(collectionId: string, userId: string, options?: RequestOptions): Promise<PlayLink> {
    const path = { collection_id: collectionId, user_id: userId };
    return unwrap(
      this.api.GET('/v1/collections/{collection_id}/users/{user_id}/play-link', { params: { path }, ...callOptions(options) }),
    );
  }

  /** A new token: the old URLs stop working at once. */
  rotate(collectionId: string, userId: string, options?: RequestOptions): Promise<PlayLink> {
    const path = { collection_id: collectionId, user_id: userId };
    return unwrap(
      this.api.POST('/v1/collections/{collection_id}/users/{user_id}/play-link/rotate', {
        params: { path },
        ...callOptions(options),
      }),
    );
  }

  /** One item per id, in order (`has_recording: false` and `play_link: null` for people without one); up to 100 ids. */
  async batch(collectionId: string, userIds: readonly string[], options?: RequestOptions): Promise<PlayLinkBatchItem[]> {
    if (userIds.length > MAX_BATCH_USER_IDS) {
      throw new RangeError(`playLinks.batch takes at most ${MAX_BATCH_USER_IDS} user ids; got ${userIds.length}.`);
    }
    const query = { collection_id: collectionId, user_ids: userIds.join(',') };
    const answer = await unwrap(this.api.GET('/v1/play-links/batch', { params: { query }, ...callOptions(options) }));
    return answer.data;
  }
}
