import { type Static, Type } from 'typebox';
import { Nullable, SafeText } from '../../http/schemas.js';

/**
 * How a person's name will be said on the day, best source first: their own `recording`
 * (approved or not), a `computer_voice` the person approved, a `guide` nobody approved (a
 * computer guess), or `none` (no guide yet).
 */
export const COVERAGE_STATES = ['recording', 'computer_voice', 'guide', 'none'] as const;
export type Coverage = (typeof COVERAGE_STATES)[number];
export const CoverageSchema = Type.Enum(COVERAGE_STATES, {
  description:
    'How the name will be said: `recording` (their own voice), `computer_voice` (a computer voice the person approved), `guide` (a generated or suggested guide the person has not approved), `none` (no guide yet).',
});

export const GUIDE_SOURCES = ['generated', 'organiser', 'person'] as const;

export const MAX_RESPELLING_LENGTH = 120;
export const MAX_IPA_LENGTH = 160;
export const MAX_NOT_LIKE_LENGTH = 120;

export const Pronunciation = Type.Object(
  {
    coverage: CoverageSchema,
    language: Nullable(Type.String(), {
      description:
        "The language the guide was made for (BCP 47): the person's `name_language`, or a suggestion from the name's script.",
    }),
    language_suggested: Type.Boolean({
      description:
        'true when nobody set the language and it was suggested from the script of the name (never from Latin spellings).',
    }),
    ipa: Nullable(Type.String(), { description: 'The guide in the International Phonetic Alphabet; null until one is made.' }),
    respelling: Nullable(Type.String(), {
      description: 'The guide in the respelling key (English-reader style, stressed syllable in capitals, e.g. "shiv-AWN").',
    }),
    not_like: Nullable(Type.String(), {
      description: 'A common wrong way to say the name, shown to readers; null when not given.',
    }),
    source: Type.Unsafe<(typeof GUIDE_SOURCES)[number] | null>({
      type: ['string', 'null'],
      enum: [...GUIDE_SOURCES, null],
      description:
        'Who wrote the guide: `generated` (dictionary and spelling rules), `organiser` (a suggestion), `person` (the person); null without a guide.',
    }),
    approved_at: Nullable(Type.String({ format: 'date-time' }), {
      description:
        'When the person approved the computer voice saying this guide; null: not approved. Only the person can approve.',
    }),
    audio_url: Nullable(Type.String(), { description: 'The approved computer voice as MP3; null unless approved.' }),
    updated_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'Pronunciation', additionalProperties: false },
);
export type Pronunciation = Static<typeof Pronunciation>;

const Respelling = SafeText({
  minLength: 1,
  maxLength: MAX_RESPELLING_LENGTH,
  description: 'The guide in the respelling key, e.g. "shiv-AWN"; its IPA is derived from it (docs/pronunciation.md).',
});
const Ipa = SafeText({
  minLength: 1,
  maxLength: MAX_IPA_LENGTH,
  description: 'The guide in IPA; its respelling is derived from it.',
});
const NotLike = SafeText({ maxLength: MAX_NOT_LIKE_LENGTH, description: 'A common wrong way to say it; null or "" removes it.' });

/** What an organiser (PATCH user) or the person (record page) may write. */
export const PronunciationInput = Type.Object(
  {
    respelling: Type.Optional(Respelling),
    ipa: Type.Optional(Ipa),
    not_like: Type.Optional(Nullable(NotLike)),
    overwrite_person_edits: Type.Optional(
      Type.Boolean({
        description:
          'Organisers only: replace a guide the person wrote or approved (their approval is withdrawn). Without it such a change is refused with 409 `person_edited`.',
      }),
    ),
  },
  { title: 'PronunciationInput', additionalProperties: false },
);
export type PronunciationInput = Static<typeof PronunciationInput>;

/** The record page's "Hear it": the respelling being edited, alone or in a sentence. */
export const HearDraftBody = Type.Object(
  {
    respelling: Respelling,
    sentence: Type.Optional(Type.Boolean({ description: 'Say it inside "Please welcome …", in the page\'s language.' })),
  },
  { additionalProperties: false },
);
export type HearDraftBody = Static<typeof HearDraftBody>;
