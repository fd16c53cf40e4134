import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { accountOf } from '../../http/auth.js';
import { ErrorResponse } from '../../http/schemas.js';
import { BatchQuery, BatchResponse, CollectionOnlyParams, PlayLink, PlayLinkSettings, UserPlayLinkParams } from './schemas.js';
import { batchPlayLinks, getPlayLink, getPlayLinkSettings, rotatePlayLink, updatePlayLinkSettings } from './service.js';

/** The /v1 play-link API (registered inside the authenticated /v1 scope). */
export const playLinksRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['Play links'];
    const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

    app.get(
      '/collections/:collection_id/users/:user_id/play-link',
      {
        schema: {
          tags,
          operationId: 'playLinks.get',
          summary: "Fetch a user's play link",
          description:
            "The public links of the user's recorded name. 404 `recording_missing` when the user has not recorded yet.",
          params: UserPlayLinkParams,
          response: { 200: PlayLink, ...errors },
        },
      },
      async (request) => getPlayLink(deps, accountOf(request), request.params.collection_id, request.params.user_id),
    );

    app.post(
      '/collections/:collection_id/users/:user_id/play-link/rotate',
      {
        config: { audit: 'play_link.rotated' },
        schema: {
          tags,
          operationId: 'playLinks.rotate',
          summary: "Rotate a user's play link",
          description:
            'Issues a new token; the old play link, .mp3, embed and meta URLs answer 404 from now on. Returns the new play link.',
          params: UserPlayLinkParams,
          response: { 200: PlayLink, ...errors },
        },
      },
      async (request) => rotatePlayLink(deps, accountOf(request), request.params.collection_id, request.params.user_id),
    );

    app.get(
      '/play-links/batch',
      {
        schema: {
          tags,
          operationId: 'playLinks.batch',
          summary: 'Resolve up to 100 play links',
          description:
            'One item per requested id, in request order. Ids that are not users of the collection give `has_recording: false`.',
          querystring: BatchQuery,
          response: { 200: BatchResponse, ...errors },
        },
      },
      async (request, reply) => {
        const batch = await batchPlayLinks(deps, accountOf(request), request.query);
        // batchPlayLinks builds every item field by field, so nothing beyond the schema can leak,
        // and V8's JSON.stringify writes 100 flat items in half the time of the schema's compiled
        // serialiser (same bytes: same field order). Errors, thrown above, keep the schema's.
        return reply.type('application/json; charset=utf-8').serializer(JSON.stringify).send(batch);
      },
    );

    app.get(
      '/collections/:collection_id/play-link-settings',
      {
        schema: {
          tags,
          operationId: 'playLinks.getSettings',
          summary: "Fetch a collection's play-link page settings",
          description: "Whether the collection's player pages may be indexed by search engines.",
          params: CollectionOnlyParams,
          response: { 200: PlayLinkSettings, ...errors },
        },
      },
      async (request) => getPlayLinkSettings(deps, accountOf(request), request.params.collection_id),
    );

    app.patch(
      '/collections/:collection_id/play-link-settings',
      {
        config: { audit: 'play_link_settings.updated' },
        schema: {
          tags,
          operationId: 'playLinks.updateSettings',
          summary: "Change a collection's play-link page settings",
          description: '`allow_indexing: true` lets search engines index the player pages (default: `noindex`).',
          params: CollectionOnlyParams,
          body: Type.Partial(PlayLinkSettings),
          response: { 200: PlayLinkSettings, ...errors },
        },
      },
      async (request) => updatePlayLinkSettings(deps, accountOf(request), request.params.collection_id, request.body),
    );
  };
