import { Paginator } from '../pagination.js';
import { type ApiClient, asIs, callOptions, type RequestOptions, unwrap } from '../request.js';
import type {
  Collection,
  CollectionCreateParams,
  CollectionListParams,
  CollectionUpdateParams,
  DeletedCollection,
  PlayLinkSettings,
  PlayLinkSettingsUpdateParams,
} from '../types.js';
import { contentTypeOf, type FileSource, replayableBody } from '../uploads.js';

/** `/v1/collections`: groups of people whose names are recorded. */
export class Collections {
  constructor(private readonly api: ApiClient) {}

  create(params: CollectionCreateParams, options?: RequestOptions): Promise<Collection> {
    return unwrap(this.api.POST('/v1/collections', { body: params, ...callOptions(options) }));
  }

  /** Newest first; archived collections are left out. Iterate it, or `.page()` for one page. */
  list(params: CollectionListParams = {}, options?: RequestOptions): Paginator<Collection> {
    return new Paginator(
      (cursor) => unwrap(this.api.GET('/v1/collections', { params: { query: { ...params, cursor } }, ...callOptions(options) })),
      params.cursor,
    );
  }

  get(collectionId: string, options?: RequestOptions): Promise<Collection> {
    const path = { collection_id: collectionId };
    return unwrap(this.api.GET('/v1/collections/{collection_id}', { params: { path }, ...callOptions(options) }));
  }

  update(collectionId: string, params: CollectionUpdateParams, options?: RequestOptions): Promise<Collection> {
    const path = { collection_id: collectionId };
    return unwrap(this.api.PATCH('/v1/collections/{collection_id}', { params: { path }, body: params, ...callOptions(options) }));
  }

  /** Soft delete (restorable within the retention period); `{ erase: true }` erases it for good at once. */
  archive(collectionId: string, params: { erase?: boolean } = {}, options?: RequestOptions): Promise<DeletedCollection> {
    const path = { collection_id: collectionId };
    const query = params.erase ? { erase: true } : {};
    return unwrap(this.api.DELETE('/v1/collections/{collection_id}', { params: { path, query }, ...callOptions(options) }));
  }

  restore(collectionId: string, options?: RequestOptions): Promise<Collection> {
    const path = { collection_id: collectionId };
    return unwrap(this.api.POST('/v1/collections/{collection_id}/restore', { params: { path }, ...callOptions(options) }));
  }

  /** A PNG, JPEG or WebP logo (at most 1 MB), shown on the record and player pages and in mail. */
  async setLogo(collectionId: string, image: FileSource, contentType?: string, options?: RequestOptions): Promise<Collection> {
    const { headers, ...rest } = callOptions(options);
    return unwrap(
      this.api.PUT('/v1/collections/{collection_id}/logo', {
        params: { path: { collection_id: collectionId } },
        body: (await replayableBody(image)) as never,
        bodySerializer: asIs,
        headers: { ...headers, 'Content-Type': contentTypeOf(image, contentType, 'application/octet-stream') },
        ...rest,
      }),
    );
  }

  removeLogo(collectionId: string, options?: RequestOptions): Promise<Collection> {
    const path = { collection_id: collectionId };
    return unwrap(this.api.DELETE('/v1/collections/{collection_id}/logo', { params: { path }, ...callOptions(options) }));
  }

  /**
   * The people as CSV, or their recordings as a ZIP, streamed. `csv` chooses the CSV's separator
   * (`semicolon` for Excel where the decimal mark is a comma) and whether it starts with a UTF-8 BOM.
   */
  async export(
    collectionId: string,
    format: 'csv' | 'zip',
    options?: RequestOptions & { csv?: { separator?: 'comma' | 'semicolon'; bom?: boolean } },
  ): Promise<ReadableStream<Uint8Array>> {
    const params = { path: { collection_id: collectionId }, query: { format, ...options?.csv } };
    const stream = await unwrap(
      this.api.GET('/v1/collections/{collection_id}/export', { params, parseAs: 'stream', ...callOptions(options) }),
    );
    return stream as ReadableStream<Uint8Array>;
  }

  getPlayLinkSettings(collectionId: string, options?: RequestOptions): Promise<PlayLinkSettings> {
    const path = { collection_id: collectionId };
    return unwrap(
      this.api.GET('/v1/collections/{collection_id}/play-link-settings', { params: { path }, ...callOptions(options) }),
    );
  }

  updatePlayLinkSettings(
    collectionId: string,
    params: PlayLinkSettingsUpdateParams,
    options?: RequestOptions,
  ): Promise<PlayLinkSettings> {
    const path = { collection_id: collectionId };
    return unwrap(
      this.api.PATCH('/v1/collections/{collection_id}/play-link-settings', {
        params: { path },
        body: params,
        ...callOptions(options),
      }),
    );
  }
}
