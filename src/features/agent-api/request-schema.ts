/**
 * The JSON Schema (2020-12) of `POST /api/entities/generate`, served at
 * `/schemas/entity-generation.schema.json` and compiled, as the very same object, by the validator.
 * It uses standard keywords only, so that agents can check a request before paying with any
 * 2020-12 validator in its strict default mode (Ajv refuses unknown keywords and formats). The few
 * rules JSON Schema cannot express are in SERVER_ONLY_RULES, stated in the schema's `$comment`
 * and applied by validation.ts after the schema.
 */
import { SAFE_MULTILINE_TEXT_PATTERN, SAFE_TEXT_PATTERN } from '../../lib/text.js';
import { URI_PATTERN, URI_REFERENCE_PATTERN } from '../../lib/uri-patterns.js';
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

const LANGUAGE_PATTERN = '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$';

export const SCHEMA_PATH = '/schemas/entity-generation.schema.json';
export const REQUIRED_FIELDS = ['name', 'entity_type', 'description', 'operator', 'visibility'] as const;

/** external_metadata limits: nesting depth, keys per object, items per array, serialized size. */
export const METADATA_LIMITS = { depth: 5, keys: 50, items: 50, stringLength: 1000, bytes: 8192 } as const;

/**
 * The one-line rule of each non-enum field, quoted in a 400's `invalid[].allowed` for it (the
 * schema's `x-rule` keyword before strict validators had to accept the schema).
 */
export function fieldRules(options: { allowHttpCallbacks: boolean }) {
  const urlRule = 'an https: URL or a path on this site, at most 2048 characters';
  return {
    name: 'a string of 1 to 100 characters with at least one letter or digit, not already taken or imitating a taken name',
    description: 'a string of 10 to 1000 characters',
    operator: 'a string of 1 to 200 characters',
    avatar_url: urlRule,
    source_url: urlRule,
    language: 'a BCP 47 language tag such as en-GB or fr',
    name_language: 'a BCP 47 language tag such as es, ga or zh-Hans',
    intro: 'a string of at most 500 characters',
    external_metadata:
      `a JSON object at most ${METADATA_LIMITS.depth} levels deep, ${METADATA_LIMITS.keys} keys per object, ` +
      `${METADATA_LIMITS.items} items per array, ${METADATA_LIMITS.bytes} bytes`,
    agent_id: 'a string of 1 to 200 characters',
    callback_url: options.allowHttpCallbacks
      ? 'an http(s) URL of at most 2048 characters'
      : 'a public https: URL of at most 2048 characters',
  } as const;
}
export type FieldRules = ReturnType<typeof fieldRules>;

/**
 * What the server checks beyond the schema because JSON Schema cannot say it (each is a 400 with
 * the field's rule, like a schema error), besides the name and URL checks of request-checks.ts.
 */
export const SERVER_ONLY_RULES = [
  '`name` is stored in Unicode NFC (composed), so names differing only in normalisation are the same name',
  `\`external_metadata\` is at most ${METADATA_LIMITS.bytes} bytes as compact JSON (UTF-8)`,
  '`name_language` is a well-formed BCP 47 tag (the pattern admits only its shape: "en-xx-yy" is refused)',
] as const;

/**
 * Values inside external_metadata: the object itself is level 1; containers may nest down to
 * level `depth`, and level `depth + 1` holds scalars only.
 */
function metadataDefs(): Record<string, object> {
  const defs: Record<string, object> = {};
  const scalar = [
    { type: 'string', pattern: SAFE_MULTILINE_TEXT_PATTERN, maxLength: METADATA_LIMITS.stringLength },
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
  const rules = fieldRules(options);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${options.siteUrl}${SCHEMA_PATH}`,
    title: 'Entity generation request',
    description:
      'Body of POST /api/entities/generate. Price: 1.00 AUD per successful generation, paid through the 402 flow. ' +
      'Unknown fields are refused. Text must not contain control characters (tabs and line breaks are allowed in ' +
      'description, intro and metadata strings), unpaired surrogates or bidirectional overrides/isolates ' +
      '(U+202A–U+202E, U+2066–U+2069): the `pattern` of each text field. Names are stored in Unicode NFC.',
    $comment:
      'Standard 2020-12 keywords only (patterns are ECMA-262 regular expressions). Checked by the ' +
      `server beyond this schema, since JSON Schema cannot express them: ${SERVER_ONLY_RULES.join('; ')}; and the ` +
      "name's letters, script mix and availability and the URLs' hosts (see each field's description).",
    type: 'object',
    additionalProperties: false,
    required: [...REQUIRED_FIELDS],
    properties: {
      name: {
        type: 'string',
        pattern: SAFE_TEXT_PATTERN,
        minLength: 1,
        maxLength: 100,
        description:
          'Display name in any script; spoken in the audio (in a voice of its script unless `language` says otherwise) and ' +
          'turned into the profile slug (letters and digits of every script kept, Latin, Greek and Cyrillic accents folded ' +
          'and lower-cased, other characters to hyphens). Must contain a letter or digit, must not mix scripts into a ' +
          'look-alike (UTS #39 highly restrictive: one script, or Latin with Chinese, Japanese or Korean) and must not be ' +
          'taken already or look the same as a taken name (UTS #39 confusable skeleton). Stored in Unicode NFC: a ' +
          'decomposed spelling is the same name as the composed one.',
      },
      entity_type: { type: 'string', enum: [...ENTITY_TYPES] },
      description: {
        type: 'string',
        pattern: SAFE_MULTILINE_TEXT_PATTERN,
        minLength: 10,
        maxLength: 1000,
        description: `What the entity is and does: ${rules.description}; tabs and line breaks allowed.`,
      },
      operator: {
        type: 'string',
        pattern: SAFE_TEXT_PATTERN,
        minLength: 1,
        maxLength: 200,
        description: 'Name of the creator, brand or operator.',
      },
      visibility: {
        type: 'string',
        enum: [...VISIBILITIES],
        description: '`unlisted` profiles are reachable by URL but marked noindex and never linked publicly.',
      },
      avatar_url: {
        type: 'string',
        maxLength: 2048,
        pattern: httpsOrSitePath,
        allOf: [{ pattern: URI_REFERENCE_PATTERN, description: 'RFC 3986 syntax (a URI or a relative reference).' }],
        description: 'An https: image URL on a public host, or a path on this site. Omit for the default robot avatar.',
      },
      source_url: {
        type: 'string',
        maxLength: 2048,
        // http: only where outbound requests may reach private hosts (local development and tests).
        pattern: options.allowHttpCallbacks ? '^(https?://[^\\s]+|/(?![/\\\\])[^\\s]*)$' : httpsOrSitePath,
        allOf: [{ pattern: URI_REFERENCE_PATTERN, description: 'RFC 3986 syntax (a URI or a relative reference).' }],
        description: "Canonical link to the agent's homepage (https:).",
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
      },
      name_language: {
        type: 'string',
        maxLength: 35,
        pattern: LANGUAGE_PATTERN,
        description:
          'Optional, an addition to the specification: the language of the name (BCP 47, e.g. `es`, `ga`, `zh`), in which ' +
          'its pronunciation guide (IPA and an English-reader respelling, on the profile page and in service.json) is made. ' +
          "Default: the language the name's script suggests (Chinese for Han, Russian for Cyrillic, …), else English. " +
          'The spoken audio follows `language`, not this. Must be a well-formed tag (checked by the server: ' +
          '"en-xx-yy" has the shape but not the grammar).',
      },
      intro: {
        type: 'string',
        pattern: SAFE_MULTILINE_TEXT_PATTERN,
        maxLength: 500,
        description: `Optional introduction: ${rules.intro}; tabs and line breaks allowed.`,
      },
      external_metadata: {
        type: 'object',
        maxProperties: METADATA_LIMITS.keys,
        additionalProperties: { $ref: '#/$defs/metadata_value_2' },
        description:
          `Custom JSON object: at most ${METADATA_LIMITS.depth} levels deep, ${METADATA_LIMITS.keys} keys per object, ` +
          `${METADATA_LIMITS.items} items per array, strings of at most ${METADATA_LIMITS.stringLength} characters, ` +
          `${METADATA_LIMITS.bytes} bytes as compact JSON (the size is checked by the server).`,
      },
      agent_id: {
        type: 'string',
        pattern: SAFE_TEXT_PATTERN,
        minLength: 1,
        maxLength: 200,
        description: 'Your own identifier, echoed in the machine-readable profile and the callback.',
      },
      callback_url: {
        type: 'string',
        maxLength: 2048,
        pattern: options.allowHttpCallbacks ? '^https?://[^\\s]+$' : '^https://[^\\s]+$',
        allOf: [{ pattern: URI_PATTERN, description: 'RFC 3986 syntax (an absolute URI).' }],
        description: 'Receives a signed POST `entity.published` after publishing (public https: endpoints only).',
      },
    },
    $defs: metadataDefs(),
  } as const;
}

export type RequestSchema = ReturnType<typeof buildRequestSchema>;
