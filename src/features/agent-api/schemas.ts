/**
 * TypeBox shapes of the entity API for the OpenAPI document. The request itself is validated
 * with the served JSON Schema (request-schema.ts), not with these.
 */
import { Type } from 'typebox';
import { VOICE_STYLE_NAMES } from '../../speech/synthesizer.js';
import { ENTITY_TYPES, VISIBILITIES } from './request-schema.js';

export const GenerateBody = Type.Object(
  {
    name: Type.String({ maxLength: 100 }),
    entity_type: Type.Union(ENTITY_TYPES.map((value) => Type.Literal(value))),
    description: Type.String({ minLength: 10, maxLength: 1000 }),
    operator: Type.String({ minLength: 1, maxLength: 200 }),
    visibility: Type.Union(VISIBILITIES.map((value) => Type.Literal(value))),
    avatar_url: Type.Optional(Type.String({ maxLength: 2048 })),
    source_url: Type.Optional(Type.String({ maxLength: 2048 })),
    voice_style: Type.Optional(Type.Union(VOICE_STYLE_NAMES.map((value) => Type.Literal(value)))),
    language: Type.Optional(Type.String({ maxLength: 35 })),
    name_language: Type.Optional(Type.String({ maxLength: 35 })),
    intro: Type.Optional(Type.String({ maxLength: 500 })),
    external_metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    agent_id: Type.Optional(Type.String({ maxLength: 200 })),
    callback_url: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  {
    title: 'EntityGenerationRequest',
    additionalProperties: false,
    description: 'Validated against /schemas/entity-generation.schema.json (the authoritative rules).',
  },
);

export const InvalidRequestResponse = Type.Object(
  {
    status: Type.Literal('invalid_request'),
    missing: Type.Array(Type.String()),
    invalid: Type.Array(Type.Object({ field: Type.String(), received: Type.Unknown(), allowed: Type.Array(Type.Unknown()) })),
    message: Type.String(),
    schema_url: Type.String(),
    docs_url: Type.String(),
  },
  { title: 'AgentInvalidRequest' },
);

export const PaymentRequiredResponse = Type.Object(
  {
    status: Type.Literal('payment_required'),
    message: Type.String(),
    mpp_instruction: Type.Object({
      amount: Type.Literal('1.00'),
      currency: Type.Literal('AUD'),
      address: Type.String({ description: 'Client secret of the payment intent.' }),
      reference: Type.String({ description: 'Payment intent id; send it back in Payment-Authorization.' }),
      expires_at: Type.String(),
      processor: Type.String(),
      publishable_key: Type.Optional(Type.String()),
      confirm_url: Type.Optional(Type.String({ description: 'Sandbox processor only.' })),
    }),
  },
  { title: 'PaymentRequired' },
);

export const PublishedResponse = Type.Object(
  {
    status: Type.Literal('published'),
    payment_status: Type.Literal('paid'),
    entity: Type.Object(
      {
        name: Type.String(),
        entity_type: Type.String(),
        profile_url: Type.String(),
        machine_readable_url: Type.String(),
        audio_url: Type.String(),
        avatar_url: Type.String(),
        intro: Type.String(),
        visibility: Type.String(),
        created_via: Type.Literal('agent_api'),
      },
      { title: 'Entity' },
    ),
    receipt: Type.Object(
      {
        amount: Type.String(),
        currency: Type.String(),
        method: Type.String(),
        transaction_id: Type.String(),
        deletion_token: Type.String({ format: 'uuid' }),
      },
      { title: 'Receipt' },
    ),
  },
  { title: 'EntityPublished' },
);

export const StatusResponse = Type.Object(
  { status: Type.String(), message: Type.String() },
  { title: 'AgentStatus', additionalProperties: true },
);

export const SlugParams = Type.Object({ slug: Type.String({ maxLength: 200 }) });
