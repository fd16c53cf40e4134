import { type Static, Type } from 'typebox';

export const InvitationsBody = Type.Object(
  {
    user_ids: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), {
        minItems: 1,
        maxItems: 1000,
        uniqueItems: true,
        description: 'The people to invite (1 to 1000). Give this, `filter` or `coverage`.',
      }),
    ),
    filter: Type.Optional(
      Type.Literal('not_recorded', {
        description:
          'Everyone who still has to record: no recording yet, or asked to record again. Give this, `user_ids` or `coverage`.',
      }),
    ),
    coverage: Type.Optional(
      Type.Array(Type.Enum(['guide', 'none']), {
        minItems: 1,
        uniqueItems: true,
        description:
          'People with no recording, by their pronunciation (the `coverage` of `User.pronunciation`): `guide` (a guide they have not approved), `none` (no guide yet); both: everyone whose name has neither their voice nor a computer voice they approved. Give this, `user_ids` or `filter`.',
      }),
    ),
    resend: Type.Optional(
      Type.Boolean({ default: false, description: 'Also invite people invited in the last 24 hours (skipped otherwise).' }),
    ),
    dry_run: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Answer the counts (who would get what, in which language) and send nothing: the confirmation before sending.',
      }),
    ),
  },
  { additionalProperties: false, title: 'CreateInvitations' },
);
export type InvitationsBody = Static<typeof InvitationsBody>;

export const InvitationsResult = Type.Object(
  {
    object: Type.Literal('invitation_batch'),
    collection_id: Type.String({ format: 'uuid' }),
    dry_run: Type.Boolean({ description: 'true: nothing was queued; the counts say what sending would do.' }),
    queued: Type.Integer({
      description: 'Messages queued (or, on a dry run, that would be): one e-mail per person, sent in the background.',
    }),
    reminders: Type.Integer({
      description:
        'Of `queued`, people invited before (whose last e-mail did not fail): they get the reminder text, not the invitation again.',
    }),
    by_language: Type.Record(Type.String(), Type.Integer(), {
      description:
        'Of `queued`, how many in each language (en, es, fr, de, zh-Hans, ar): the person’s `language`, else the collection’s.',
    }),
    skipped: Type.Object(
      {
        recently_invited: Type.Integer({ description: 'Invited in the last 24 hours (send again with `"resend": true`).' }),
        unsubscribed: Type.Integer({ description: 'Unsubscribed from this collection’s mail.' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'InvitationBatch' },
);
export type InvitationsResult = Static<typeof InvitationsResult>;
