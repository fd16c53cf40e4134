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
  MAX_CUSTOM_FIELDS,
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
        schema: {
          tags,
          operationId: 'collections.create',
          summary: 'Create a collection',
          // The limit is the schema's own, so this text cannot drift from what validation enforces.
          description: `New collections are active, with no people. \`custom_fields\` declares extra per-person fields (at most ${MAX_CUSTOM_FIELDS}).`,
          body: CreateCollectionBody,
          response: { 201: Collection, ...errors },
        },
      },
      async (request, reply) => {
        const collection = await createCollection(deps, accountOf(request), request.body);
        return reply.code(201).header('location', `${deps.config.baseUrl}/v1/collections/${collection.id}`).send(collection);
      },
    );

    app.get(
      '/collections',
      {
        schema: {
          tags,
          operationId: 'collections.list',
          summary: 'List collections',
          description:
            'Active collections, newest first, paged with `limit` (1 to 100, default 50) and the `next_cursor` of the previous page.',
          querystring: ListCollectionsQuery,
          response: { 200: CollectionList, ...errors },
        },
      },
      async (request) => listCollections(deps, accountOf(request), request.query),
    );

    app.get(
      '/collections/:collection_id',
      {
        schema: {
          tags,
          operationId: 'collections.get',
          summary: 'Fetch a collection',
          description: 'An active collection of your account, with its member and recording counts.',
          params: CollectionParams,
          response: { 200: Collection, ...errors },
        },
      },
      async (request) => getCollection(deps, accountOf(request), request.params.collection_id),
    );

    app.patch(
      '/collections/:collection_id',
      {
        config: { audit: 'collection.updated' },
        schema: {
          tags,
          operationId: 'collections.update',
          summary: 'Update a collection',
          description: 'Changes only the fields sent; `null` clears an optional one.',
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
          operationId: 'collections.delete',
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
          operationId: 'collections.restore',
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
            operationId: 'collections.setLogo',
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
                // A file (`format: binary`), so generated clients send the image's bytes as they are.
                LOGO_CONTENT_TYPES.map((type) => [
                  type,
                  { schema: { type: 'string', format: 'binary', contentMediaType: type, description: 'The image file.' } },
                ]),
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
          operationId: 'collections.removeLogo',
          summary: "Remove the collection's logo",
          description: "Pages and mail show the collection's name alone again.",
          params: CollectionParams,
          response: { 200: Collection, ...errors },
        },
      },
      async (request) => removeCollectionLogo(deps, accountOf(request), request.params.collection_id),
    );
  };
