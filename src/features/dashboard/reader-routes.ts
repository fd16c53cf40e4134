/**
 * The ceremony reader (`/dashboard/collections/:id/reader`): the collection in reading order,
 * one person at a time with `reader.ts`, printable as the whole script. `?order=` chooses import
 * order, `display_name`, `last_name`, or `custom:<key>` for one of the collection's custom
 * fields; without it, the collection's line-up order (stage-routes.ts). `reader-sync.ts` brings
 * up whoever the stage scanner shows.
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { type ReaderPerson, readerPage } from '../../web/views/dashboard/reader.js';
import { getCollection } from '../collections/service.js';
import { getLineupOrder, lineupOptions, parseLineupOrder } from '../stage/service.js';
import { listPeopleForReader, READER_MAX_PEOPLE } from '../users/people-service.js';
import { queryText, viewerOf } from './forms.js';
import { requireSession, sendMediaPage, sessionOf } from './http.js';
import { displayValue, guideAudioPath, optionalText } from './person-routes.js';
import type { User } from '../users/schemas.js';

/** What the reader plays for a person: their voice, else the computer voice they approved, else the computer's guess. */
function bestSource(collectionId: string, user: User): ReaderPerson['source'] {
  const person = `/dashboard/collections/${collectionId}/people/${user.id}`;
  if (user.has_recording) return { kind: 'recording', url: `${person}/audio` };
  const approved = guideAudioPath(user.pronunciation.audio_url);
  if (approved) return { kind: 'approved_voice', url: approved };
  if (user.pronunciation.ipa) return { kind: 'unchecked_guess', url: `${person}/guide.mp3` };
  return null;
}

export function readerRoutes(deps: Deps, options: { styleUrl: string }) {
  const { styleUrl } = options;
  const readerStyleUrl = deps.assets.url('reader.css');
  const scriptUrl = deps.assets.url('reader.ts');
  const syncScriptUrl = deps.assets.url('reader-sync.ts');
  return async (app: FastifyInstance) => {
    app.get<{ Params: { id: string } }>('/collections/:id/reader', { preHandler: requireSession }, async (request, reply) => {
      const accountId = sessionOf(request).account.id;
      const collection = await getCollection(deps, accountId, request.params.id);
      const orders = lineupOptions(collection);
      // The line-up the organiser set is the default; the menu changes it for this page only.
      const order = queryText(request, 'order') ?? (await getLineupOrder(deps, accountId, collection.id));
      const readerOrder = parseLineupOrder(order, collection);
      const orderField =
        readerOrder.by === 'custom_field' ? collection.custom_fields.find((f) => f.key === readerOrder.key) : undefined;
      const list = await listPeopleForReader(deps, accountId, collection.id, readerOrder);
      const people: ReaderPerson[] | null =
        list.people?.map((user) => {
          const value = orderField ? user.custom_fields[orderField.key] : undefined;
          return {
            id: user.id,
            display_name: user.display_name,
            preferred_name: optionalText(user, 'preferred_name'),
            pronouns: optionalText(user, 'pronouns'),
            phonetic_spelling: user.phonetic_spelling,
            order_value: orderField && value !== undefined ? { label: orderField.label, value: displayValue(value) } : null,
            guide: user.pronunciation,
            source: bestSource(collection.id, user),
          };
        }) ?? null;
      return sendMediaPage(
        reply,
        readerPage({
          styleUrl,
          readerStyleUrl,
          scriptUrl,
          syncScriptUrl,
          viewer: viewerOf(request),
          collection: list.collection,
          orders,
          order,
          people,
          maxPeople: READER_MAX_PEOPLE,
        }),
      );
    });
  };
}
