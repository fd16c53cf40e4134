/**
 * The JSON Schema (2020-12) of `POST /api/entities/generate`, served at
 * `/schemas/entity-generation.schema.json` and used, as the very same object, by the validator.
 * `x-rule` on each property is the short rule quoted in a 400's `invalid[].allowed` for that field.
 */
import { NFC_KEYWORD, SAFE_MULTILINE_TEXT_FORMAT, SAFE_TEXT_FORMAT } from '../../lib/text.js';
import { VOICE_STYLE_NAMES } from '../../speech/synthesizer.js';

export const ENTITY_TYPES = [
  'ai_agent',
  'bot',
  'humanoid_robot',
  'voice_assistant',
  'avatar',
  'meeting_assistant',
  'digital_receptionist',
  'brand_mascot',
] as const;
export const VISIBILITIES = ['public', 'unlisted'] as const;

/**
 * The format of `name_language`: a tag `Intl` can canonicalise (src/lib/languages.ts), which the
 * pattern alone does not promise ("en-xx-yy" has the pattern's shape).
 */
export const LANGUAGE_TAG_FORMAT = 'bcp47';
const LANGUAGE_PATTERN = '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$';

export const SCHEMA_PATH = '/schemas/entity-generation.schema.json';
export const REQUIRED_FIELDS = ['name', 'entity_type', 'description', 'operator', 'visibility'] as const;

/** external_metadata limits: nesting depth, keys per object, items per array, serialized size. */
export const METADATA_LIMITS = { depth: 5, keys: 50, items: 50, stringLength: 1000, bytes: 8192 } as const;

/**
 * Values inside external_metadata: the object itself is level 1; containers may nest down to
 * level `depth`, and level `depth + 1` holds scalars only.
 */
function metadataDefs(): Record<string, object> {
  const defs: Record<string, object> = {};
  const scalar = [
    { type: 'string', format: SAFE_MULTILINE_TEXT_FORMAT, maxLength: METADATA_LIMITS.stringLength },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'null' },
  ];
  const last = METADATA_LIMITS.depth + 1;
  for (let level = last; level >= 2; level--) {
    const child = level === last ? null : { $ref: `#/$defs/metadata_value_${level + 1}` };
    defs[`metadata_value_${level}`] = child
      ? {
          anyOf: [
            ...scalar,
            { type: 'object', maxProperties: METADATA_LIMITS.keys, additionalProperties: child },
            { type: 'array', maxItems: METADATA_LIMITS.items, items: child },
          ],
        }
      : { anyOf: scalar };
  }
  return defs;
}

export function buildRequestSchema(options: { siteUrl: string; allowHttpCallbacks: boolean }) {
  const httpsOrSitePath = '^(https://[^\\s]+|/(?![/\\\\])[^\\s]*)$';
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${options.siteUrl}${SCHEMA_PATH}`,
    title: 'Entity generation request',
    description:
      'Body of POST /api/entities/generate. Price: 1.00 AUD per successful generation, paid through the 402 flow. ' +
      'Unknown fields are refused. Text (format safe-text, or safe-text-multiline where tabs and line breaks are ' +
      'allowed) must not contain control characters, unpaired surrogates or bidirectional overrides/isolates ' +
      '(U+202A–U+202E, U+2066–U+2069); names are stored in Unicode NFC (x-nfc).',
    type: 'object',
    additionalProperties: false,
    required: [...REQUIRED_FIELDS],
    properties: {
      name: {
        type: 'string',
        format: SAFE_TEXT_FORMAT,
        [NFC_KEYWORD]: true,
        minLength: 1,
        maxLength: 100,
        description:
          'Display name in any script; spoken in the audio (in a voice of its script unless `language` says otherwise) and ' +
          'turned into the profile slug (letters and digits of every script kept, Latin, Greek and Cyrillic accents folded ' +
          'and lower-cased, other characters to hyphens). Must contain a letter or digit, must not mix scripts into a ' +
          'look-alike (UTS #39 highly restrictive: one script, or Latin with Chinese, Japanese or Korean) and must not be ' +
          'taken already or look the same as a taken name (UTS #39 confusable skeleton).',
        'x-rule':
          'a string of 1 to 100 characters with at least one letter or digit, not already taken or imitating a taken name',
      },
      entity_type: { type: 'string', enum: [...ENTITY_TYPES] },
      description: {
        type: 'string',
        format: SAFE_MULTILINE_TEXT_FORMAT,
        minLength: 10,
        maxLength: 1000,
        'x-rule': 'a string of 10 to 1000 characters',
      },
      operator: {
        type: 'string',
        format: SAFE_TEXT_FORMAT,
        minLength: 1,
        maxLength: 200,
        description: 'Name of the creator, brand or operator.',
        'x-rule': 'a string of 1 to 200 characters',
      },
      visibility: {
        type: 'string',
        enum: [...VISIBILITIES],
        description: '`unlisted` profiles are reachable by URL but marked noindex and never linked publicly.',
      },
      avatar_url: {
        type: 'string',
        maxLength: 2048,
        format: 'uri-reference',
        pattern: httpsOrSitePath,
        description: 'An https: image URL, or a path on this site. Omit for the default robot avatar.',
        'x-rule': 'an https: URL or a path on this site, at most 2048 characters',
      },
      source_url: {
        type: 'string',
        maxLength: 2048,
        format: 'uri-reference',
        // http: only where outbound requests may reach private hosts (local development and tests).
        pattern: options.allowHttpCallbacks ? '^(https?://[^\\s]+|/(?![/\\\\])[^\\s]*)$' : httpsOrSitePath,
        description: "Canonical link to the agent's homepage (https:).",
        'x-rule': 'an https: URL or a path on this site, at most 2048 characters',
      },
      voice_style: {
        type: 'string',
        enum: [...VOICE_STYLE_NAMES],
        description: 'Voice of the spoken name; default `neutral`. See the documentation for each style.',
      },
      language: {
        type: 'string',
        maxLength: 35,
        pattern: LANGUAGE_PATTERN,
        description: 'Optional BCP 47 language hint for pronouncing the name (e.g. `en-GB`, `fr`); default `en-US`.',
        'x-rule': 'a BCP 47 language tag such as en-GB or fr',
      },
      name_language: {
        type: 'string',
        maxLength: 35,
        pattern: LANGUAGE_PATTERN,
        format: LANGUAGE_TAG_FORMAT,
        description:
          'Optional, an addition to the specification: the language of the name (BCP 47, e.g. `es`, `ga`, `zh`), in which ' +
          'its pronunciation guide (IPA and an English-reader respelling, on the profile page and in service.json) is made. ' +
          "Default: the language the name's script suggests (Chinese for Han, Russian for Cyrillic, …), else English. " +
          'The spoken audio follows `language`, not this.',
        'x-rule': 'a BCP 47 language tag such as es, ga or zh-Hans',
      },
      intro: {
        type: 'string',
        format: SAFE_MULTILINE_TEXT_FORMAT,
        maxLength: 500,
        'x-rule': 'a string of at most 500 characters',
      },
      external_metadata: {
        type: 'object',
        maxProperties: METADATA_LIMITS.keys,
        additionalProperties: { $ref: '#/$defs/metadata_value_2' },
        'x-max-json-bytes': METADATA_LIMITS.bytes,
        description:
          `Custom JSON object: at most ${METADATA_LIMITS.depth} levels deep, ${METADATA_LIMITS.keys} keys per object, ` +
          `${METADATA_LIMITS.items} items per array, strings of at most ${METADATA_LIMITS.stringLength} characters, ` +
          `${METADATA_LIMITS.bytes} bytes as compact JSON.`,
        'x-rule':
          `a JSON object at most ${METADATA_LIMITS.depth} levels deep, ${METADATA_LIMITS.keys} keys per object, ` +
          `${METADATA_LIMITS.items} items per array, ${METADATA_LIMITS.bytes} bytes`,
      },
      agent_id: {
        type: 'string',
        format: SAFE_TEXT_FORMAT,
        minLength: 1,
        maxLength: 200,
        description: 'Your own identifier, echoed in the machine-readable profile and the callback.',
        'x-rule': 'a string of 1 to 200 characters',
      },
      callback_url: {
        type: 'string',
        maxLength: 2048,
        format: 'uri',
        pattern: options.allowHttpCallbacks ? '^https?://[^\\s]+$' : '^https://[^\\s]+$',
        description: 'Receives a signed POST `entity.published` after publishing (public https: endpoints only).',
        'x-rule': options.allowHttpCallbacks
          ? 'an http(s) URL of at most 2048 characters'
          : 'a public https: URL of at most 2048 characters',
      },
    },
    $defs: metadataDefs(),
  } as const;
}

export type RequestSchema = ReturnType<typeof buildRequestSchema>;
