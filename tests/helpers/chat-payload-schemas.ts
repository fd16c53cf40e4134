/**
 * What Slack and Microsoft Teams accept, as JSON Schemas checked with Ajv, so the chat
 * destinations' tests hold each body to the platforms' own rules rather than to our output.
 *
 * Slack (no published JSON Schema): the rules of the Block Kit reference, encoded here
 * (api.slack.com/reference/block-kit/blocks, …/block-elements#button,
 * …/composition-objects#text, and incoming webhooks' `text` + `blocks` body):
 * at most 50 blocks; a section's text object is `plain_text` or `mrkdwn`, 1–3000 characters;
 * an actions block has 1–25 elements; a button's text is `plain_text`, at most 75 characters,
 * its `url` at most 3000 characters; `block_id` and `action_id` at most 255.
 *
 * Teams: the essentials of Microsoft's Adaptive Card schema
 * (http://adaptivecards.io/schemas/adaptive-card.json, version 1.4 and later): `type`
 * "AdaptiveCard", `version` "major.minor", `body` items each with a `type`, a TextBlock's
 * required `text`, an Action.OpenUrl's required `url`; wrapped as the Workflows trigger "When a
 * Teams webhook request is received" documents: `{"type": "message", "attachments":
 * [{"contentType": "application/vnd.microsoft.card.adaptive", "content": <card>}]}`.
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

const ajv = new Ajv({ allErrors: true, strict: false });
(addFormats as unknown as (ajv: Ajv) => void)(ajv);

const plainText = (maxLength: number) => ({
  type: 'object',
  required: ['type', 'text'],
  properties: {
    type: { const: 'plain_text' },
    text: { type: 'string', minLength: 1, maxLength },
    emoji: { type: 'boolean' },
  },
  additionalProperties: false,
});

const slackSchema = {
  type: 'object',
  required: ['text', 'blocks'],
  properties: {
    text: { type: 'string', minLength: 1, maxLength: 40000 },
    blocks: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: {
        type: 'object',
        required: ['type'],
        properties: { block_id: { type: 'string', maxLength: 255 } },
        oneOf: [
          {
            properties: {
              type: { const: 'section' },
              block_id: true,
              text: {
                type: 'object',
                required: ['type', 'text'],
                properties: {
                  type: { enum: ['plain_text', 'mrkdwn'] },
                  text: { type: 'string', minLength: 1, maxLength: 3000 },
                  verbatim: { type: 'boolean' },
                  emoji: { type: 'boolean' },
                },
                additionalProperties: false,
              },
            },
            required: ['type', 'text'],
            additionalProperties: false,
          },
          {
            properties: {
              type: { const: 'actions' },
              block_id: true,
              elements: {
                type: 'array',
                minItems: 1,
                maxItems: 25,
                items: {
                  type: 'object',
                  required: ['type', 'text'],
                  properties: {
                    type: { const: 'button' },
                    text: plainText(75),
                    url: { type: 'string', format: 'uri', maxLength: 3000 },
                    action_id: { type: 'string', maxLength: 255 },
                    value: { type: 'string', maxLength: 2000 },
                    style: { enum: ['primary', 'danger'] },
                  },
                  additionalProperties: false,
                },
              },
            },
            required: ['type', 'elements'],
            additionalProperties: false,
          },
        ],
      },
    },
  },
};

const cardElement = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', minLength: 1 } },
  allOf: [
    {
      if: { properties: { type: { const: 'TextBlock' } } },
      then: { required: ['text'], properties: { text: { type: 'string', minLength: 1 }, wrap: { type: 'boolean' } } },
    },
  ],
};

const cardAction = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { enum: ['Action.OpenUrl', 'Action.Submit', 'Action.ShowCard', 'Action.ToggleVisibility', 'Action.Execute'] },
  },
  allOf: [
    {
      if: { properties: { type: { const: 'Action.OpenUrl' } } },
      then: { required: ['url'], properties: { url: { type: 'string', format: 'uri-reference' }, title: { type: 'string' } } },
    },
  ],
};

const teamsSchema = {
  type: 'object',
  required: ['type', 'attachments'],
  properties: {
    type: { const: 'message' },
    attachments: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['contentType', 'content'],
        properties: {
          contentType: { const: 'application/vnd.microsoft.card.adaptive' },
          contentUrl: { type: ['string', 'null'] },
          content: {
            type: 'object',
            required: ['type', 'version', 'body'],
            properties: {
              type: { const: 'AdaptiveCard' },
              $schema: { type: 'string', format: 'uri' },
              // 1.4 or later: Workflows render 1.4 and up.
              version: { type: 'string', pattern: '^(1\\.([4-9]|\\d{2,})|[2-9]\\.\\d+)$' },
              lang: { type: 'string' },
              body: { type: 'array', minItems: 1, items: cardElement },
              actions: { type: 'array', items: cardAction },
            },
          },
        },
      },
    },
  },
};

const validateSlackSchema = ajv.compile(slackSchema);
const validateTeamsSchema = ajv.compile(teamsSchema);

/** Ajv's errors for a body, as text; empty when the platform would accept it. */
function errorsOf(validate: typeof validateSlackSchema, body: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return ['not JSON'];
  }
  return validate(parsed) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

export const slackPayloadErrors = (body: string) => errorsOf(validateSlackSchema, body);
export const teamsPayloadErrors = (body: string) => errorsOf(validateTeamsSchema, body);
