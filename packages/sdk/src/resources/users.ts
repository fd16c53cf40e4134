import { Paginator } from '../pagination.js';
import { type ApiClient, asIs, callOptions, type RequestOptions, unwrap } from '../request.js';
import type {
  DeletedUser,
  ImportReport,
  ReviewParams,
  User,
  UserBatchParams,
  UserBatchResult,
  UserCreateParams,
  UserImportParams,
  UserListParams,
  UserUpdateParams,
} from '../types.js';
import { type FileSource, replayableBody } from '../uploads.js';

/** `/v1/collections/{collection_id}/users`: the people of a collection. */
export class Users {
  constructor(private readonly api: ApiClient) {}

  create(collectionId: string, params: UserCreateParams, options?: RequestOptions): Promise<User> {
    const path = { collection_id: collectionId };
    return unwrap(
      this.api.POST('/v1/collections/{collection_id}/users', { params: { path }, body: params, ...callOptions(options) }),
    );
  }

  /**
   * Up to 1,000 people at once, all or nothing: `{ users: [...] }`, or `{ csv }` (text with a header
   * row `email,first_name,…`). On any problem nothing is created and the error's `errors` lists each one.
   */
  batchCreate(
    collectionId: string,
    params: UserBatchParams | { csv: string },
    options?: RequestOptions,
  ): Promise<UserBatchResult> {
    const path = { collection_id: collectionId };
    const { headers, ...rest } = callOptions(options);
    if (!('csv' in params)) {
      return unwrap(
        this.api.POST('/v1/collections/{collection_id}/users/batch', { params: { path }, body: params, headers, ...rest }),
      );
    }
    return unwrap(
      this.api.POST('/v1/collections/{collection_id}/users/batch', {
        params: { path },
        body: params.csv as never,
        bodySerializer: asIs,
        headers: { ...headers, 'Content-Type': 'text/csv' },
        ...rest,
      }),
    );
  }

  /**
   * A spreadsheet's CSV (up to 10,000 people): updates people already there (by external_id, else
   * e-mail), creates the others, and reports every row's problems. `mode: 'valid_rows'` writes the
   * good rows even when others are wrong; `dry_run: true` writes nothing.
   */
  async import(
    collectionId: string,
    csv: string | FileSource,
    params: UserImportParams = {},
    options?: RequestOptions,
  ): Promise<ImportReport> {
    const { headers, ...rest } = callOptions(options);
    return unwrap(
      this.api.POST('/v1/collections/{collection_id}/users/import', {
        params: { path: { collection_id: collectionId }, query: params },
        body: (typeof csv === 'string' ? csv : await replayableBody(csv)) as never,
        bodySerializer: asIs,
        headers: { ...headers, 'Content-Type': 'text/csv' },
        ...rest,
      }),
    );
  }

  list(collectionId: string, params: UserListParams = {}, options?: RequestOptions): Paginator<User> {
    const path = { collection_id: collectionId };
    return new Paginator(
      (cursor) =>
        unwrap(
          this.api.GET('/v1/collections/{collection_id}/users', {
            params: { path, query: { ...params, cursor } },
            ...callOptions(options),
          }),
        ),
      params.cursor,
    );
  }

  get(collectionId: string, userId: string, options?: RequestOptions): Promise<User> {
    const path = { collection_id: collectionId, user_id: userId };
    return unwrap(this.api.GET('/v1/collections/{collection_id}/users/{user_id}', { params: { path }, ...callOptions(options) }));
  }

  update(collectionId: string, userId: string, params: UserUpdateParams, options?: RequestOptions): Promise<User> {
    const path = { collection_id: collectionId, user_id: userId };
    return unwrap(
      this.api.PATCH('/v1/collections/{collection_id}/users/{user_id}', {
        params: { path },
        body: params,
        ...callOptions(options),
      }),
    );
  }

  /** Deletes the person with their recording, play link and audio files. */
  delete(collectionId: string, userId: string, options?: RequestOptions): Promise<DeletedUser> {
    const path = { collection_id: collectionId, user_id: userId };
    return unwrap(
      this.api.DELETE('/v1/collections/{collection_id}/users/{user_id}', { params: { path }, ...callOptions(options) }),
    );
  }

  /** Issues a new `record_url`; the old one stops working at once. */
  recordLink(collectionId: string, userId: string, options?: RequestOptions): Promise<User> {
    const path = { collection_id: collectionId, user_id: userId };
    return unwrap(
      this.api.POST('/v1/collections/{collection_id}/users/{user_id}/record-link', { params: { path }, ...callOptions(options) }),
    );
  }

  /** `{ decision: 'approve' }`, or `{ decision: 'request_rerecord', note }` to ask for a new recording. */
  review(collectionId: string, userId: string, params: ReviewParams, options?: RequestOptions): Promise<User> {
    const path = { collection_id: collectionId, user_id: userId };
    return unwrap(
      this.api.POST('/v1/collections/{collection_id}/users/{user_id}/review', {
        params: { path },
        body: params,
        ...callOptions(options),
      }),
    );
  }

  /** One person's data as a ZIP (`person.json`, `recording.mp3`), for subject-access requests. */
  async export(collectionId: string, userId: string, options?: RequestOptions): Promise<ReadableStream<Uint8Array>> {
    const path = { collection_id: collectionId, user_id: userId };
    const stream = await unwrap(
      this.api.GET('/v1/collections/{collection_id}/users/{user_id}/export', {
        params: { path },
        parseAs: 'stream',
        ...callOptions(options),
      }),
    );
    return stream as ReadableStream<Uint8Array>;
  }
}
