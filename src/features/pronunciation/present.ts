/**
 * A person's pronunciation as the API, pages and exports show it. Pure: no queries, so the
 * users feature can put it on every `User` it returns.
 */
import type { RecordingStatus } from '../../db/schema.js';
import type { GuideRow } from './repo.js';

export type { GuideRow };
import type { Coverage, Pronunciation } from './schemas.js';

export const guideAudioUrl = (baseUrl: string, token: string) => `${baseUrl}/pronunciations/${token}.mp3`;

/** The best source the name has: the person's voice, then their approved computer voice, then a guess. */
export function coverageOf(recordingStatus: RecordingStatus, guide: Pick<GuideRow, 'approved_at'> | null | undefined): Coverage {
  if (recordingStatus !== 'none') return 'recording';
  if (guide?.approved_at) return 'computer_voice';
  return guide ? 'guide' : 'none';
}

export function toPronunciation(
  baseUrl: string,
  recordingStatus: RecordingStatus,
  guide: GuideRow | null | undefined,
): Pronunciation {
  return {
    coverage: coverageOf(recordingStatus, guide),
    language: guide?.language ?? null,
    language_suggested: guide ? guide.language_suggested === 1 : false,
    ipa: guide?.ipa ?? null,
    respelling: guide?.respelling ?? null,
    not_like: guide?.not_like ?? null,
    source: guide?.source ?? null,
    approved_at: guide?.approved_at ?? null,
    audio_url: guide?.approved_at && guide.audio_token ? guideAudioUrl(baseUrl, guide.audio_token) : null,
    updated_at: guide?.updated_at ?? null,
  };
}
