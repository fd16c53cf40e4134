/**
 * The public play-link routes in the API document. They are not /v1 routes (no key, their own
 * caching and CORS), so Fastify does not describe them; these entries do, with the same schemas.
 */
import { Type } from 'typebox';
import { ErrorResponse, Nullable } from '../../http/schemas.js';
import { PlayLink } from './schemas.js';

export const PlayLinkMeta = Type.Object(
  {
    ...PlayLink.properties,
    token: Type.String({ description: 'The token in the play link URLs.' }),
    preferred_name: Nullable(Type.String()),
    pronouns: Nullable(Type.String()),
    phonetic_spelling: Nullable(Type.String()),
    audio_mime_type: Type.String({ description: 'Always `audio/mpeg`.' }),
    embed_url: Type.String({ format: 'uri', description: '`{BASE_URL}/p/<token>/embed`: the 200x40 widget.' }),
    oembed_url: Type.String({ format: 'uri' }),
    play_count: Type.Integer({ minimum: 0, description: 'Plays started so far (counted in batches: a few seconds behind).' }),
    pronunciation: Nullable(
      Type.Object(
        {
          respelling: Type.String({
            description: 'The English-reader respelling (docs/pronunciation.md, "The respelling key").',
          }),
          ipa: Type.String({ description: 'The same sounds in the International Phonetic Alphabet.' }),
          not_like: Nullable(Type.String({ description: 'A common wrong way to say the name.' })),
          language: Type.String({ description: 'The language (BCP 47) the guide is in.' }),
          approved: Type.Boolean({
            description: "The person approved this guide; false: a generated guess or an organiser's suggestion.",
          }),
        },
        { additionalProperties: false },
      ),
      { description: "The name's pronunciation guide; null when the person has none yet." },
    ),
  },
  { title: 'PlayLinkMeta', additionalProperties: false },
);

export const OEmbed = Type.Object(
  {
    version: Type.Literal('1.0'),
    type: Type.Literal('rich'),
    title: Type.String(),
    provider_name: Type.String(),
    provider_url: Type.String({ format: 'uri' }),
    cache_age: Type.Integer(),
    html: Type.String({ description: 'The 200x40 iframe.' }),
    width: Type.Literal(200),
    height: Type.Literal(40),
  },
  { title: 'OEmbed', additionalProperties: false },
);

const token = {
  name: 'token',
  in: 'path',
  required: true,
  description: 'The play link token.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{8,64}$' },
};
const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });
const cors = { 'Access-Control-Allow-Origin': { description: '`*`', schema: { type: 'string' } } };

export const playLinkPublicPaths = () => ({
  '/p/{token}/meta': {
    get: {
      operationId: 'playLinks.meta',
      tags: ['Play links'],
      summary: "A play link's public metadata",
      description: 'No key needed: anyone holding the link may read it. CORS-enabled, cached for 15 s.',
      security: [],
      parameters: [token],
      responses: {
        200: { description: 'The metadata.', headers: cors, content: { 'application/json': { schema: PlayLinkMeta } } },
        404: {
          description: 'No active play link with this token.',
          content: { 'application/json': { schema: ErrorResponse } },
        },
        410: { description: 'The person was erased.', content: { 'application/json': { schema: ErrorResponse } } },
      },
    },
  },
  '/p/{token}.mp3': {
    get: {
      operationId: 'playLinks.audio',
      tags: ['Play links'],
      summary: 'The audio of a play link',
      description:
        'A 302 to the current MP3 (served by this service or by the CDN). The redirect is cached for a few seconds, ' +
        'the audio itself for a year under a content-addressed URL, so a re-recording changes the target.',
      security: [],
      parameters: [token],
      responses: {
        302: {
          description: 'Redirect to the MP3.',
          headers: { Location: { description: 'The MP3 URL.', schema: { type: 'string', format: 'uri' } } },
        },
        // What a client that follows the redirect (as fetch and generated clients do) ends up with.
        200: {
          description: 'The MP3, at the end of the redirect.',
          content: { 'audio/mpeg': { schema: { type: 'string', format: 'binary', contentMediaType: 'audio/mpeg' } } },
        },
        404: text('No active play link with this token.'),
        410: text('The person was erased.'),
        // Its success is the spec's 302, not a 2xx: what else it can answer is the unexpected failure.
        default: {
          description: 'Something failed on our side (500), in the error envelope.',
          content: { 'application/json': { schema: ErrorResponse } },
        },
      },
    },
  },
  '/oembed': {
    get: {
      operationId: 'playLinks.oembed',
      tags: ['Play links'],
      summary: 'oEmbed for a play link URL',
      description: 'oEmbed 1.0 (`rich`): the 200x40 widget. CORS-enabled.',
      security: [],
      parameters: [
        { name: 'url', in: 'query', required: true, description: 'A play link URL.', schema: { type: 'string' } },
        { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json'] } },
        { name: 'maxwidth', in: 'query', required: false, schema: { type: 'integer' } },
        { name: 'maxheight', in: 'query', required: false, schema: { type: 'integer' } },
      ],
      responses: {
        200: { description: 'The oEmbed response.', headers: cors, content: { 'application/json': { schema: OEmbed } } },
        400: text('No `url`.'),
        404: text('Not a play link of ours, or the widget does not fit maxwidth/maxheight.'),
        410: text('The person was erased.'),
        501: text('A format other than json.'),
      },
    },
  },
});
