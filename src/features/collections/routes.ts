import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { accountOf } from '../../http/auth.js';
import { ErrorResponse } from '../../http/schemas.js';
import {
  Collection,
  CollectionList,
  CollectionParams,
  CreateCollectionBody,
  DeletedCollection,
  ListCollectionsQuery,
  UpdateCollectionBody,
} from './schemas.js';
import { archiveCollection, createCollection, getCollection, listCollections, updateCollection } from './service.js';

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
          summary: 'Archive a collection',
          description: 'Soft delete: the data is kept, but the collection no longer appears in the API.',
          params: CollectionParams,
          response: { 200: DeletedCollection, ...errors },
        },
      },
      async (request) => archiveCollection(deps, accountOf(request), request.params.collection_id),
    );
  };
