/**
 * What the owner of a claimed agent profile manages from the dashboard: its description, intro,
 * avatar and homepage (checked by the very rules of the generation request), its audio (spoken
 * again in another voice style) and the profile itself (deleted as the agent's receipt would).
 * Only the claiming account may; every other profile is 404 `resource_missing`.
 */
import { withTransaction } from '../../db/transaction.js';
import { AppError } from '../../errors.js';
import { outboundRefusal } from '../../integrations/outbound-http.js';
import type { VoiceStyle } from '../../speech/synthesizer.js';
import type { Deps } from '../../deps.js';
import { describeProblems } from '../agent-api/validation.js';
import { deleteProfile, type EntityRow, storeNameAudio } from '../profiles/service.js';
import { updateOwnedEntity } from './repo.js';
import { findOwnedEntity } from './service.js';

export interface ProfileDetails {
  description: string;
  intro: string | null;
  avatar_url: string | null;
  source_url: string | null;
}

export type OwnedEntity = EntityRow;

/** The generation request the profile would be, with `changes`: checked by the published schema. */
function asRequest(entity: EntityRow, changes: Partial<ProfileDetails> & { voice_style?: string }): Record<string, unknown> {
  const merged = {
    name: entity.name,
    entity_type: entity.entity_type,
    description: entity.description,
    operator: entity.operator,
    visibility: entity.visibility,
    intro: entity.intro,
    avatar_url: entity.avatar_url,
    source_url: entity.source_url,
    voice_style: entity.voice_style,
    ...changes,
  };
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== null && value !== undefined));
}

/** Changes the description, intro, avatar and homepage; an empty optional field removes it. */
export async function updateProfileDetails(
  deps: Deps,
  accountId: string,
  slug: string,
  details: ProfileDetails,
): Promise<EntityRow> {
  const entity = await findOwnedEntity(deps, accountId, slug);
  const problems = deps.agentApi.validate(asRequest(entity, details));
  if (problems)
    throw new AppError('parameter_invalid', describeProblems(problems), { param: problems.invalid[0]?.field ?? 'body' });
  if (details.avatar_url?.startsWith('https:')) {
    const refusal = await outboundRefusal(details.avatar_url, {
      allowPrivate: deps.config.webhooks.allowPrivateUrls,
      resolve: false,
    });
    if (refusal) throw new AppError('parameter_invalid', `avatar_url: ${refusal.message}`, { param: 'avatar_url' });
  }
  await updateOwnedEntity(deps.db.kysely, { id: entity.id, accountId, changes: details });
  return findOwnedEntity(deps, accountId, slug);
}

/** Speaks the name again in `voiceStyle` (in a voice of its script); the old audio is deleted after the change. */
export async function regenerateProfileAudio(
  deps: Deps,
  accountId: string,
  slug: string,
  voiceStyle: string,
): Promise<EntityRow> {
  const entity = await findOwnedEntity(deps, accountId, slug);
  const problems = deps.agentApi.validate(asRequest(entity, { voice_style: voiceStyle }));
  if (problems) throw new AppError('parameter_invalid', describeProblems(problems), { param: 'voice_style' });
  const { blobKey, byteSize, durationMs } = await storeNameAudio(deps, {
    entityId: entity.id,
    name: entity.name,
    voiceStyle: voiceStyle as VoiceStyle,
    language: entity.language,
  });
  const previous = entity.audio_blob_key;
  await withTransaction(deps, async (tx) => {
    await updateOwnedEntity(tx.trx, {
      id: entity.id,
      accountId,
      changes: {
        voice_style: voiceStyle,
        audio_blob_key: blobKey,
        audio_byte_size: byteSize,
        audio_duration_ms: durationMs,
      },
    });
    if (previous && previous !== blobKey) tx.afterCommit(() => deps.blobs.delete(previous));
  });
  return findOwnedEntity(deps, accountId, slug);
}

/** Deletes the profile as its receipt's deletion token would: its URLs answer 410, the slug stays reserved. */
export async function deleteOwnedProfile(deps: Deps, accountId: string, slug: string): Promise<void> {
  const entity = await findOwnedEntity(deps, accountId, slug);
  // Deleted meanwhile: the same 404 as for any profile not theirs.
  if (!(await deleteProfile(deps, entity))) await findOwnedEntity(deps, accountId, slug);
}
