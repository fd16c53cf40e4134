/**
 * Making guides from names: the background job's work (`pronunciation.generate`, the sweep),
 * and the record page's choice of the name's language. A guide someone wrote is never replaced
 * by a generated one (see service.ts).
 */
import { withTransaction } from '../../db/transaction.js';
import { Semaphore } from '../../lib/semaphore.js';
import { timeSlices } from '../../lib/time-slices.js';
import { generateGuide, suggestLanguage } from '../../pronunciation/guide.js';
import { findGuide, findGuides, findPeopleForGuides, type GuideRow, saveGuide } from './repo.js';
import { type GuidePerson, guideFingerprint, guideNameOrder, type PronunciationDeps, recordGuideEvent } from './service.js';

/**
 * Makes (or makes again) the generated guides of these people: one whose guide is missing, or
 * generated from a name or language that has since changed. Guides someone wrote are left alone.
 * Returns how many guides were written. Runs in the background (the `pronunciation.generate` job).
 */
export async function generateGuides(deps: PronunciationDeps, userIds: readonly string[]): Promise<number> {
  // One batch at a time per engine: the engine is one thread, and batches side by side would
  // each take their slice of the loop in the same turn (the worker runs 10 jobs at once).
  let turns = generating.get(deps.speech);
  if (!turns) generating.set(deps.speech, (turns = new Semaphore(1)));
  return turns.run(() => generateGuidesNow(deps, userIds));
}

const generating = new WeakMap<PronunciationDeps['speech'], Semaphore>();

async function generateGuidesNow(deps: PronunciationDeps, userIds: readonly string[]): Promise<number> {
  const people = await findPeopleForGuides(deps.db.kysely, userIds);
  const existing = new Map((await findGuides(deps.db.kysely, userIds)).map((guide) => [guide.user_id, guide]));
  const made: Array<{ person: GuidePerson; guide: GuideRow }> = [];
  // Dictionary lookups and SQLite are synchronous: without pauses the whole batch (and the
  // next job's) would run as one chain of microtasks, holding the loop for seconds.
  const pause = timeSlices();
  for (const person of people) {
    await pause();
    const before = existing.get(person.id);
    const fingerprint = guideFingerprint(person);
    if (before && (before.source !== 'generated' || before.generated_from === fingerprint)) continue;
    const generated = await generateGuide(
      deps.speech,
      { given: person.first_name, family: person.last_name },
      { name: person.name_language, given: person.given_name_language, family: person.family_name_language },
      { familyFirst: guideNameOrder(person) === 'family_first' },
    );
    const methods = new Set(generated.parts.map((part) => part.method));
    const now = deps.clock.now().toISOString();
    made.push({
      person,
      guide: {
        user_id: person.id,
        ipa: generated.ipa,
        respelling: generated.respelling,
        not_like: before?.not_like ?? null,
        language: generated.language,
        language_suggested:
          !person.name_language &&
          !person.given_name_language &&
          !person.family_name_language &&
          suggestLanguage(person.display_name)
            ? 1
            : 0,
        source: 'generated',
        method: methods.size === 1 ? [...methods][0]! : 'mixed',
        generated_from: fingerprint,
        approved_at: null,
        audio_token: null,
        audio_key: null,
        audio_duration_ms: null,
        created_at: before?.created_at ?? now,
        updated_at: now,
      },
    });
  }
  // One transaction per 50 guides: short write locks between the engine's work.
  for (let i = 0; i < made.length; i += 50) {
    await pause();
    await withTransaction(deps, async (tx) => {
      for (const { person, guide } of made.slice(i, i + 50)) {
        // Written meanwhile by someone: theirs stays.
        const now = await findGuide(tx.trx, person.id);
        if (now && now.source !== 'generated') continue;
        await saveGuide(tx.trx, guide);
        await recordGuideEvent(tx, deps, person, guide);
      }
    });
  }
  return made.length;
}

/**
 * The person chose their name's language (already stored on them): a generated guide is made
 * again in it at once; a guide someone wrote keeps its text and is spoken in the new language.
 * An approved guide is left alone (the record page asks for the approval to be withdrawn first:
 * the person approved the sounds of one voice).
 */
export async function applyNameLanguage(deps: PronunciationDeps, person: GuidePerson): Promise<void> {
  const before = await findGuide(deps.db.kysely, person.id);
  if (!before || before.source === 'generated') {
    await generateGuides(deps, [person.id]);
    return;
  }
  if (before.approved_at || !person.name_language || before.language === person.name_language) return;
  const guide: GuideRow = {
    ...before,
    language: person.name_language,
    language_suggested: 0,
    updated_at: deps.clock.now().toISOString(),
  };
  await withTransaction(deps, async (tx) => {
    await saveGuide(tx.trx, guide);
    await recordGuideEvent(tx, deps, person, guide);
  });
}
