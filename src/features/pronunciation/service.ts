/**
 * Pronunciation guides: made for every person from their name (dictionary first, spelling rules
 * second: src/pronunciation), written over by the organiser (a suggestion) or the person, and
 * approved by the person alone, which stores the computer voice saying it.
 *
 * Who wrote a guide decides who may replace it: a `generated` guide follows the name (a changed
 * name or language makes it again); an organiser's or the person's text is never replaced by a
 * generated one; and a guide the person wrote or approved is replaced by an organiser only with
 * `overwrite_person_edits` (409 `person_edited` without it), which withdraws the approval.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import type { RecordingStatus } from '../../db/schema.js';
import { type TransactionScope, withTransaction } from '../../db/transaction.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { randomToken } from '../../lib/ids.js';
import { nameOrderOf } from '../../lib/name-order.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { PageCursor } from '../../lib/pagination.js';
import { suggestLanguage } from '../../pronunciation/guide.js';
import { ipaToRespelling, RespellingError, respellingToIpa } from '../../pronunciation/respelling-key.js';
import { normalizeIpa } from '../../speech/espeak-phonemes.js';
import { UnknownPhonemesError } from '../../speech/synthesizer.js';
import { recordEvent } from '../events/service.js';
import { invalidatePlayLinksOfUser } from '../play-links/invalidation.js';
import { deleteAudioLater, recordingBlobPrefix } from '../recordings/service.js';
import { coverageOf, toPronunciation } from './present.js';
import {
  countCoverageWindow,
  coverageWindowEnd,
  findGuide,
  findGuideByAudioToken,
  findGuides,
  type GuideRow,
  saveGuide,
} from './repo.js';
import type { Coverage, PronunciationInput } from './schemas.js';

export type PronunciationDeps = Pick<Deps, 'db' | 'clock' | 'blobs' | 'speech' | 'logger' | 'jobsWakeup' | 'playLinks'> & {
  notifications?: Deps['notifications'];
  config: { baseUrl: string; playLinks: { cacheTtlMs: number; audioPublicBaseUrl: string | null } };
};

export type GuideWriter = 'organiser' | 'person';

/** The person a guide belongs to, as the guide needs them. */
export interface GuidePerson {
  id: string;
  collection_id: string;
  account_id: string;
  external_id: string | null;
  first_name: string;
  last_name: string;
  display_name: string;
  name_language: string | null;
  given_name_language: string | null;
  family_name_language: string | null;
  recording_status: RecordingStatus;
}

/** The person's fields a generated guide is made from (the display name for the order of the names). */
export const GUIDE_FIELDS = [
  'first_name',
  'last_name',
  'display_name',
  'name_language',
  'given_name_language',
  'family_name_language',
] as const;

/** The guides of these people, by person id. */
export async function guidesOf(deps: Pick<Deps, 'db'>, userIds: readonly string[]): Promise<Map<string, GuideRow>> {
  return new Map((await findGuides(deps.db.kysely, userIds)).map((guide) => [guide.user_id, guide]));
}

/** How many of a collection's people have each coverage state (`coverageOf`), for its progress. */
export async function countCoverageStates(deps: Pick<Deps, 'db'>, collectionId: string): Promise<Record<Coverage, number>> {
  const counts: Record<Coverage, number> = { recording: 0, computer_voice: 0, guide: 0, none: 0 };
  let after: PageCursor | null = null;
  for (;;) {
    let counted = 0;
    for (const group of await countCoverageWindow(deps.db.kysely, collectionId, after, COVERAGE_PAGE)) {
      const guide = group.guided ? { approved_at: group.approved ? 'approved' : null } : null;
      counts[coverageOf(group.recording_status, guide)] += group.n;
      counted += group.n;
    }
    if (counted < COVERAGE_PAGE) return counts;
    const end = await coverageWindowEnd(deps.db.kysely, collectionId, after, COVERAGE_PAGE);
    if (!end) return counts;
    after = { createdAt: end.created_at, id: end.id };
    // A turn of the loop between windows: other requests go first.
    await nextTurn();
  }
}

/**
 * People counted per statement: a few milliseconds each. The database counts them (rows of
 * 5,000 people read into the process took 5-25 ms of the people page at 5,000 people).
 */
const COVERAGE_PAGE = 5_000;

/** What a generated guide is made from: when it changes, the guide is made again. */
export const guideFingerprint = (person: GuidePerson) =>
  JSON.stringify([
    person.first_name,
    person.last_name,
    person.name_language,
    person.given_name_language,
    person.family_name_language,
    // Only a family-first order is marked, so guides made before orders were read stay current.
    ...(guideNameOrder(person) === 'family_first' ? ['family_first'] : []),
  ]);

/** The order the guide says the names in: the display name's (`Zhang Wei`, 张伟 say the family name first). */
export const guideNameOrder = (person: Pick<GuidePerson, 'display_name' | 'first_name' | 'last_name'>) =>
  nameOrderOf(person.display_name, person.first_name, person.last_name);

/** The language a guide is made in when a person writes one: theirs, else the guide's, else a suggestion. */
function languageFor(person: GuidePerson, before: GuideRow | undefined): { language: string; suggested: boolean } {
  if (person.name_language) return { language: person.name_language, suggested: false };
  if (before) return { language: before.language, suggested: before.language_suggested === 1 };
  const suggested = suggestLanguage(person.display_name);
  return suggested ? { language: suggested, suggested: true } : { language: 'en', suggested: false };
}

/** Every change of a guide: its event, and the person's cached play link (its `/meta` shows the guide) dropped after the commit. */
export async function recordGuideEvent(tx: TransactionScope, deps: PronunciationDeps, person: GuidePerson, guide: GuideRow) {
  tx.afterCommit(() => invalidatePlayLinksOfUser(deps, person.id));
  await recordEvent(tx, {
    accountId: person.account_id,
    type: 'pronunciation.updated',
    data: {
      collection_id: person.collection_id,
      user_id: person.id,
      external_id: person.external_id,
      pronunciation: toPronunciation(deps.config.baseUrl, person.recording_status, guide),
    },
    at: tx.clock.now(),
  });
}

/** The IPA and respelling of what was written: either one, the other derived (400 when it cannot be). */
function guideText(
  input: PronunciationInput,
  before: GuideRow | undefined,
  language: string,
): { ipa: string; respelling: string } | null {
  try {
    if (input.respelling !== undefined) {
      const respelling = input.respelling.trim();
      return { ipa: input.ipa !== undefined ? normalizeIpa(input.ipa) : respellingToIpa(respelling, language), respelling };
    }
    if (input.ipa !== undefined) {
      const ipa = normalizeIpa(input.ipa);
      return { ipa, respelling: ipaToRespelling(ipa, language) };
    }
  } catch (error) {
    if (error instanceof RespellingError) {
      throw new AppError('pronunciation_invalid', error.message, {
        param: input.respelling !== undefined ? 'respelling' : 'ipa',
      });
    }
    throw error;
  }
  return before ? { ipa: before.ipa, respelling: before.respelling } : null;
}

/**
 * The organiser's or the person's guide: text (respelling or IPA) and "not like this". A changed
 * text withdraws an approval (it approved other sounds). Records `pronunciation.updated`.
 */
export async function writeGuide(
  deps: PronunciationDeps,
  person: GuidePerson,
  input: PronunciationInput,
  writer: GuideWriter,
): Promise<GuideRow | undefined> {
  const before = await findGuide(deps.db.kysely, person.id);
  const owned = before && (before.source === 'person' || before.approved_at !== null);
  if (writer === 'organiser' && owned && input.overwrite_person_edits !== true) {
    throw new AppError(
      'person_edited',
      'The person wrote or approved this pronunciation guide. Send "overwrite_person_edits": true to replace it (their approval is withdrawn), or ask them to change it.',
      { param: 'pronunciation' },
    );
  }
  const { language, suggested } = languageFor(person, before);
  const text = guideText(input, before, language);
  if (!text) {
    throw new AppError('guide_missing', 'There is no guide yet: send a respelling or IPA.', { param: 'respelling' });
  }
  const notLike = input.not_like !== undefined ? input.not_like?.trim() || null : (before?.not_like ?? null);
  const textChanged = !before || before.ipa !== text.ipa || before.respelling !== text.respelling;
  if (!textChanged && notLike === (before?.not_like ?? null)) return before;
  const withdraw = textChanged || writer === 'organiser';
  const now = deps.clock.now().toISOString();
  const guide: GuideRow = {
    user_id: person.id,
    ipa: text.ipa,
    respelling: text.respelling,
    not_like: notLike,
    language,
    language_suggested: suggested ? 1 : 0,
    // Whoever changes anything of it, text or "not like this", owns it from now on.
    source: writer,
    method: textChanged ? 'edited' : (before?.method ?? 'edited'),
    generated_from: before?.generated_from ?? guideFingerprint(person),
    approved_at: withdraw ? null : (before?.approved_at ?? null),
    audio_token: withdraw ? null : (before?.audio_token ?? null),
    audio_key: withdraw ? null : (before?.audio_key ?? null),
    audio_duration_ms: withdraw ? null : (before?.audio_duration_ms ?? null),
    created_at: before?.created_at ?? now,
    updated_at: now,
  };
  await withTransaction(deps, async (tx) => {
    await saveGuide(tx.trx, guide);
    if (withdraw && before?.audio_key) await deleteAudioLater(tx, deps, { key: before.audio_key });
    await recordGuideEvent(tx, deps, person, guide);
  });
  return guide;
}

/**
 * Speaks a guide (IPA as phonemes, never re-read as English text): 400 for sounds the voice lacks.
 * In a sentence ("Please welcome …"), the words are spoken as text by their own language's voice
 * (English unless the caller says: the record page's words are in the page's language) and the
 * name by the guide's: one voice cannot say both (the Korean voice has no French "œ"). The
 * engine's MP3s share one encoding (sample rate, channels, bit rate), so the pieces are joined
 * frame to frame into one stream.
 */
export async function speakGuide(
  deps: Pick<Deps, 'speech'>,
  guide: { ipa: string; language: string },
  options: { sentence?: { before: string; after?: string; language?: string } } = {},
) {
  try {
    const name = await speakName(deps, guide);
    if (!options.sentence) return name;
    const language = options.sentence.language ?? 'en';
    const before = await deps.speech.synthesize({ text: options.sentence.before, language });
    const after = options.sentence.after ? await deps.speech.synthesize({ text: options.sentence.after, language }) : null;
    const pieces = [before, name, ...(after ? [after] : [])];
    return {
      ...name,
      mp3: Buffer.concat(pieces.map((piece) => piece.mp3)),
      durationMs: pieces.reduce((total, piece) => total + piece.durationMs, 0),
    };
  } catch (error) {
    if (error instanceof UnknownPhonemesError) {
      throw new AppError('pronunciation_invalid', `The voice cannot say ${error.symbols.join(' ')}: change the guide.`, {
        param: 'ipa',
      });
    }
    throw error;
  }
}

/**
 * The name in its language's voice; when that voice lacks one of the guide's sounds (eSpeak's
 * Irish voice has long /iː/ but no short /i/), in the English voice, whose sounds are the
 * respelling key's own. Refused (400) only when neither can say it.
 */
async function speakName(deps: Pick<Deps, 'speech'>, guide: { ipa: string; language: string }) {
  try {
    return await deps.speech.synthesize({ phonemes: guide.ipa, language: guide.language });
  } catch (error) {
    if (!(error instanceof UnknownPhonemesError) || guide.language.split('-')[0] === 'en') throw error;
    return deps.speech.synthesize({ phonemes: guide.ipa, language: 'en' });
  }
}

/**
 * A person's guide as the computer says it, for the reader and the person page: kept beside the
 * person's recordings under a key of what was spoken (so erasing the person erases it, and a
 * changed guide is a new file), made once instead of on every play. The reader fetches every
 * guess of a collection ahead to work offline: 5,000 unapproved guides would otherwise be 5,000
 * syntheses per visit, on the engine agents' paid requests also wait for. The hourly orphan sweep
 * removes old ones (nothing references them); the next play makes the file again.
 */
export async function guessAudio(deps: Pick<Deps, 'speech' | 'blobs'>, userId: string, guide: { ipa: string; language: string }) {
  const key = `${recordingBlobPrefix(userId)}guess-${sha256Hex(`${guide.language}\n${guide.ipa}`).slice(0, 32)}.mp3`;
  const kept = await deps.blobs.get(key);
  if (kept) return kept;
  const spoken = await speakGuide(deps, guide);
  await deps.blobs.put(key, spoken.mp3, 'audio/mpeg');
  return spoken.mp3;
}

/** A respelling or IPA being edited, as a guide to speak (before it is saved). */
export function draftGuide(input: PronunciationInput, language: string): { ipa: string; language: string } {
  const text = guideText(input, undefined, language);
  if (!text) throw new AppError('parameter_missing', 'Send a respelling or IPA to hear.', { param: 'respelling' });
  return { ipa: text.ipa, language };
}

/**
 * What the person is typing on their record page, spoken before it is saved: the respelling in
 * the language their guide is (or would be) made in, alone or in a sentence.
 */
export async function speakDraft(
  deps: Pick<Deps, 'db' | 'speech'>,
  person: GuidePerson,
  respelling: string,
  options: { sentence?: { before: string; language: string } } = {},
) {
  const { language } = languageFor(person, await findGuide(deps.db.kysely, person.id));
  return speakGuide(deps, draftGuide({ respelling }, language), options);
}

/**
 * The person approves the computer voice saying their current guide: it is spoken and stored
 * (beside their recordings, so erasing them erases it), and the guide becomes theirs.
 */
export async function approveGuide(deps: PronunciationDeps, person: GuidePerson): Promise<GuideRow> {
  const before = await findGuide(deps.db.kysely, person.id);
  if (!before) throw new AppError('guide_missing', 'There is no guide to approve yet.', { param: 'pronunciation' });
  const spoken = await speakGuide(deps, before);
  const key = `${recordingBlobPrefix(person.id)}guide-${randomBytes(8).toString('hex')}.mp3`;
  await deps.blobs.put(key, spoken.mp3, 'audio/mpeg');
  const now = deps.clock.now().toISOString();
  const guide: GuideRow = {
    ...before,
    source: 'person',
    approved_at: now,
    audio_token: randomToken(24),
    audio_key: key,
    audio_duration_ms: spoken.durationMs,
    updated_at: now,
  };
  await withTransaction(deps, async (tx) => {
    await saveGuide(tx.trx, guide);
    if (before.audio_key) await deleteAudioLater(tx, deps, { key: before.audio_key });
    await recordGuideEvent(tx, deps, person, guide);
  });
  return guide;
}

/** The person takes their approval back: the guide stays (theirs), the computer voice is not used. */
export async function withdrawApproval(deps: PronunciationDeps, person: GuidePerson): Promise<GuideRow | undefined> {
  const before = await findGuide(deps.db.kysely, person.id);
  if (!before?.approved_at) return before;
  const guide: GuideRow = {
    ...before,
    approved_at: null,
    audio_token: null,
    audio_key: null,
    audio_duration_ms: null,
    updated_at: deps.clock.now().toISOString(),
  };
  await withTransaction(deps, async (tx) => {
    await saveGuide(tx.trx, guide);
    if (before.audio_key) await deleteAudioLater(tx, deps, { key: before.audio_key });
    await recordGuideEvent(tx, deps, person, guide);
  });
  return guide;
}

/** The approved computer voice of a guide, by its public token; null when there is none (404). */
export async function openGuideAudio(deps: Pick<Deps, 'db' | 'blobs'>, token: string): Promise<Buffer | null> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return null;
  const row = await findGuideByAudioToken(deps.db.kysely, token);
  if (!row?.approved_at || !row.audio_key) return null;
  return deps.blobs.get(row.audio_key);
}
