import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/schemas.js';
import { PageQuery } from '../../lib/pagination.js';

export const Erasure = Type.Object(
  {
    id: Type.String({ description: 'Identifier of the erasure record (`era_…`).' }),
    kind: Type.Literal('collection'),
    subject_id: Type.String({ description: 'The erased collection’s id.' }),
    actor: Type.Object({
      type: Type.Enum(['api_key', 'member', 'retention'] as const, {
        description: '`retention`: the archived collection’s retention window closed (ARCHIVE_RETENTION_DAYS).',
      }),
      id: Nullable(Type.String({ description: 'The API key or dashboard member that asked; null for retention.' })),
    }),
    counts: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description: 'How many objects went: users, recordings, play_links, events, deliveries, stored_responses.',
    }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Erasure', additionalProperties: false, description: 'Proof of an erasure, free of personal data.' },
);
export type Erasure = Static<typeof Erasure>;

export const ErasureList = Type.Object(
  {
    data: Type.Array(Erasure),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  },
  { title: 'ErasureList' },
);

export const ListErasuresQuery = Type.Object(
  { limit: Type.Optional(PageQuery.limit), cursor: Type.Optional(PageQuery.cursor) },
  { additionalProperties: false },
);
