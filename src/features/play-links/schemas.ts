import { type Static, Type } from 'typebox';
import { Nullable, SafeText } from '../../http/schemas.js';

/** The spec's Play link object: exactly these seven fields. */
export const PlayLink = Type.Object(
  {
    play_link: Type.String({ format: 'uri', description: '`{BASE_URL}/p/<token>`: the player page.' }),
    play_url: Type.String({ format: 'uri', description: '`{BASE_URL}/p/<token>.mp3`: 302 to the audio.' }),
    embed_html: Type.String({
      description:
        'An iframe of the 200x40 widget: `<iframe src="{BASE_URL}/p/<token>/embed" width="200" height="40" frameborder="0"></iframe>`.',
    }),
    display_name: Type.String(),
    duration_seconds: Type.Integer({
      minimum: 0,
      description: 'Length of the recording, rounded to whole seconds (at least 1).',
    }),
    recorded_at: Type.String({ format: 'date-time' }),
    status: Type.String({ description: 'Always `active`: a link that is not active is not returned.' }),
  },
  { title: 'PlayLink', additionalProperties: false },
);
export type PlayLink = Static<typeof PlayLink>;

export const BatchPlayLinkItem = Type.Object(
  {
    user_id: Type.String({ description: 'The requested id, echoed (after trimming whitespace).' }),
    display_name: Type.String({ description: 'Empty string when the id is not a user of the collection.' }),
    has_recording: Type.Boolean(),
    play_link: Nullable(Type.String({ format: 'uri' }), { description: 'Null when has_recording is false.' }),
  },
  { title: 'BatchPlayLinkItem', additionalProperties: false },
);
export type BatchPlayLinkItem = Static<typeof BatchPlayLinkItem>;

export const MAX_BATCH_IDS = 100;
export const MAX_USER_ID_LENGTH = 100;

export const BatchQuery = Type.Object(
  {
    collection_id: SafeText({ minLength: 1, maxLength: 64, description: 'The collection the users belong to.' }),
    user_ids: SafeText({
      maxLength: MAX_BATCH_IDS * (MAX_USER_ID_LENGTH + 4),
      description:
        'Comma-separated user ids, at most 100. Whitespace around ids is ignored, empty entries are skipped, ' +
        'duplicates give duplicate items; an empty list gives `data: []`.',
    }),
  },
  { additionalProperties: false },
);

export const BatchResponse = Type.Object(
  { data: Type.Array(BatchPlayLinkItem) },
  { title: 'PlayLinkBatch', additionalProperties: false },
);

export const UserPlayLinkParams = Type.Object({
  collection_id: Type.String({ maxLength: 64 }),
  user_id: Type.String({ maxLength: 64 }),
});

export const CollectionOnlyParams = Type.Object({ collection_id: Type.String({ maxLength: 64 }) });

export const PlayLinkSettings = Type.Object(
  {
    allow_indexing: Type.Boolean({
      description: 'When true, player pages may be indexed by search engines; by default they send `noindex`.',
    }),
  },
  { title: 'PlayLinkSettings', additionalProperties: false },
);
export type PlayLinkSettings = Static<typeof PlayLinkSettings>;
