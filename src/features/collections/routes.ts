import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { accountOf } from '../../http/auth.js';
import { ErrorResponse } from '../../http/schemas.js';
import {
  Collection,
  CollectionList,
  CollectionParams,
  CreateCollectionBody,
  DeleteCollectionQuery,
  DeletedCollection,
  ListCollectionsQuery,
  UpdateCollectionBody,
} from './schemas.js';
import { eraseCollectionNow } from '../erasure/service.js';
import { removeCollectionLogo, setCollectionLogo } from './logo-service.js';
import { LOGO_CONTENT_TYPES, MAX_LOGO_BYTES } from '../../images/logo.js';
import {
  archiveCollection,
  createCollection,
  getCollection,
  listCollections,
  restoreCollection,
  updateCollection,
} from './service.js';

export const collectionsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['Collections'];
    const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

    app.post(
      '/collections',
      {
        config: { audit: 'collection.created' },
        schema: { tags, summary: 'Create a collection', body: CreateCollectionBody, response: { 201: Collection, ...errors } },
      },
      async (request, reply) => reply.code(201).send(await createCollection(deps, accountOf(request), request.body)),
    );

    app.get(
      '/collections',
      {
        schema: {
          tags,
          summary: 'List collections',
          querystring: ListCollectionsQuery,
          response: { 200: CollectionList, ...errors },
        },
      },
      async (request) => listCollections(deps, accountOf(request), request.query),
    );

    app.get(
      '/collections/:collection_id',
      { schema: { tags, summary: 'Fetch a collection', params: CollectionParams, response: { 200: Collection, ...errors } } },
      async (request) => getCollection(deps, accountOf(request), request.params.collection_id),
    );

    app.patch(
      '/collections/:collection_id',
      {
        config: { audit: 'collection.updated' },
        schema: {
          tags,
          summary: 'Update a collection',
          params: CollectionParams,
          body: UpdateCollectionBody,
          response: { 200: Collection, ...errors },
        },
      },
      async (request) => updateCollection(deps, accountOf(request), request.params.collection_id, request.body),
    );

    app.delete(
      '/collections/:collection_id',
      {
        config: { audit: 'collection.archived' },
        schema: {
          tags,
          summary: 'Archive a collection (or erase it with ?erase=true)',
          description:
            'Soft delete: the data is kept for ARCHIVE_RETENTION_DAYS (restore it with POST …/restore), then erased for good. ' +
            'With `?erase=true` it is erased at once.',
          params: CollectionParams,
          querystring: DeleteCollectionQuery,
          response: { 200: DeletedCollection, ...errors },
        },
      },
      async (request) => {
        const accountId = accountOf(request);
        const id = request.params.collection_id;
        if (request.query.erase !== true) return archiveCollection(deps, accountId, id);
        const actor = { type: 'api_key' as const, id: request.auth?.apiKeyId ?? 'unknown' };
        const erasure = await eraseCollectionNow(deps, accountId, id, actor);
        return { deleted: true as const, id, erased: true as const, erasure_id: erasure.id };
      },
    );

    app.post(
      '/collections/:collection_id/restore',
      {
        config: { audit: 'collection.restored' },
        schema: {
          tags,
          summary: 'Restore an archived collection',
          description:
            'Within ARCHIVE_RETENTION_DAYS of archiving: the collection, its people, recordings and play links come back. ' +
            'A live collection is answered as it is; an erased one is 404.',
          params: CollectionParams,
          response: { 200: Collection, ...errors },
        },
      },
      async (request) => restoreCollection(deps, accountOf(request), request.params.collection_id),
    );

    await app.register(async (logos) => {
      logos.addContentTypeParser(
        [...LOGO_CONTENT_TYPES],
        { parseAs: 'buffer', bodyLimit: MAX_LOGO_BYTES },
        (_request, body, done) => done(null, body),
      );
      logos.put(
        '/collections/:collection_id/logo',
        {
          config: { audit: 'collection.logo_set' },
          bodyLimit: MAX_LOGO_BYTES,
          schema: {
            tags,
            summary: "Set the collection's logo",
            description:
              'The raw image as the body (`Content-Type: image/png`, `image/jpeg` or `image/webp`, at most 1 MB; SVG is not ' +
              'accepted). It is re-encoded as a PNG of at most 512x512 without metadata and served from `branding.logo_url`, ' +
              'a content-addressed URL. Shown on the record page, the player page and in mail. 413 over 1 MB, 415 ' +
              '`image_unsupported_format` for anything but PNG, JPEG or WebP (judged by its bytes), 422 `image_corrupt` ' +
              'when it cannot be decoded.',
            params: CollectionParams,
            body: {
              content: Object.fromEntries(
                // No `type`: it would make the validator refuse the raw bytes; the schema only documents them.
                LOGO_CONTENT_TYPES.map((type) => [type, { schema: { contentMediaType: type } }]),
              ),
            } as never,
            response: { 200: Collection, 413: ErrorResponse, 415: ErrorResponse, 422: ErrorResponse, ...errors },
          },
        },
        async (request) => {
          const { collection_id } = request.params as { collection_id: string };
          return setCollectionLogo(deps, accountOf(request), collection_id, request.body as Buffer);
        },
      );
    });

    app.delete(
      '/collections/:collection_id/logo',
      {
        config: { audit: 'collection.logo_removed' },
        schema: {
          tags,
          summary: "Remove the collection's logo",
          params: CollectionParams,
          response: { 200: Collection, ...errors },
        },
      },
      async (request) => removeCollectionLogo(deps, accountOf(request), request.params.collection_id),
    );
  };
