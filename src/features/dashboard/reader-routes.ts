/**
 * The ceremony reader (`/dashboard/collections/:id/reader`): the collection in reading order,
 * one person at a time with `reader.ts`, printable as the whole script. `?order=` chooses import
 * order, `display_name`, `last_name`, or `custom:<key>` for one of the collection's custom
 * fields; without it, the collection's line-up order (stage-routes.ts). Each person carries their
 * place in every order, so `reader.ts` re-orders the one page (and its one kept copy) itself.
 * `reader-sync.ts` brings up whoever the stage scanner shows.
 * Beside it, per collection: its web app manifest (installable) and its service worker
 * (`reader-sw.ts`), which keeps the page, its assets and its audio on the device so a reload,
 * a change of order or a dropped network never stops a ceremony.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { contentSecurityPolicy } from '../../http/security-headers.js';
import type { SafeHtml } from '../../web/html.js';
import { READER_PAGE_VERSION_HEADER, type ReaderPerson, readerEntries, readerPage } from '../../web/views/dashboard/reader.js';
import { getCollection } from '../collections/service.js';
import { getLineupOrder, lineupOptions, parseLineupOrder } from '../stage/service.js';
import { listPeopleForReader, READER_MAX_PEOPLE } from '../users/people-service.js';
import { queryText, viewerOf } from './forms.js';
import { requireSession, sendReaderPage, sessionOf } from './http.js';
import { displayValue, guideAudioPath, optionalText } from './person-routes.js';
import type { User } from '../users/schemas.js';

/**
 * The service worker's own policy (a worker's CSP comes from its script's response): no
 * sub-resources, only `fetch` back to us, to answer the reader's requests when online.
 */
const SERVICE_WORKER_CSP = contentSecurityPolicy(["default-src 'none'", "connect-src 'self'"]);

/**
 * What the reader plays for a person: their voice, else the computer voice they approved, else
 * the computer's guess. A recording an organiser rejected (`needs_rerecord`) is never played, nor,
 * where the collection requires review, one nobody approved yet: the guide stands in for it.
 * `version` changes whenever the audio may have, so the device's copy is replaced then.
 */
function readerSource(collectionId: string, user: User, reviewRequired: boolean): Pick<ReaderPerson, 'source' | 'withheld'> {
  const person = `/dashboard/collections/${collectionId}/people/${user.id}`;
  const status = user.recording_status;
  const withheld = status === 'needs_rerecord' ? 'rejected' : status === 'recorded' && reviewRequired ? 'unreviewed' : null;
  if (status !== 'none' && withheld === null) {
    return { withheld, source: { kind: 'recording', url: `${person}/audio`, version: user.updated_at } };
  }
  const version = user.pronunciation.updated_at ?? '';
  const approved = guideAudioPath(user.pronunciation.audio_url);
  if (approved) return { withheld, source: { kind: 'approved_voice', url: approved, version } };
  if (user.pronunciation.ipa) return { withheld, source: { kind: 'unchecked_guess', url: `${person}/guide.mp3`, version } };
  return { withheld, source: null };
}

/** People rendered between two turns of the event loop: 5,000 at once held it for 25-50 ms. */
const RENDER_SLICE = 500;

/** Every person's entry, a slice at a time, so a 5,000-name reader never blocks other requests for long. */
async function renderEntries(people: ReaderPerson[]): Promise<SafeHtml[]> {
  const slices: SafeHtml[] = [];
  for (let from = 0; from < people.length; from += RENDER_SLICE) {
    if (from > 0) await setImmediate();
    slices.push(readerEntries(people, from, from + RENDER_SLICE));
  }
  return slices;
}

export function readerRoutes(deps: Deps, options: { styleUrl: string }) {
  const { styleUrl } = options;
  const readerStyleUrl = deps.assets.url('reader.css');
  const scriptUrl = deps.assets.url('reader.ts');
  const syncScriptUrl = deps.assets.url('reader-sync.ts');
  const serviceWorker = deps.assets.byName('reader-sw.ts');
  if (!serviceWorker) throw new Error('the reader service worker asset is missing');
  return async (app: FastifyInstance) => {
    app.get<{ Params: { id: string } }>('/collections/:id/reader', { preHandler: requireSession }, async (request, reply) => {
      const accountId = sessionOf(request).account.id;
      const collection = await getCollection(deps, accountId, request.params.id);
      const orders = lineupOptions(collection);
      // The line-up the organiser set is the default; the menu changes it for this page only.
      const lineup = await getLineupOrder(deps, accountId, collection.id);
      const order = queryText(request, 'order') ?? lineup;
      const readerOrder = parseLineupOrder(order, collection);
      const orderField =
        readerOrder.by === 'custom_field' ? collection.custom_fields.find((f) => f.key === readerOrder.key) : undefined;
      // Every order the menu offers is ranked: the page re-orders itself, offline too.
      const ranked = orders.map((option) => parseLineupOrder(option.value, collection));
      const list = await listPeopleForReader(deps, accountId, collection.id, readerOrder, ranked);
      const people: ReaderPerson[] | null =
        list.people?.map((user) => {
          const value = orderField ? user.custom_fields[orderField.key] : undefined;
          return {
            ranks: list.ranks.get(user.id) ?? [],
            order_values: ranked.map((option) => {
              const field = option.by === 'custom_field' ? user.custom_fields[option.key] : undefined;
              return field === undefined ? null : displayValue(field);
            }),
            id: user.id,
            display_name: user.display_name,
            preferred_name: optionalText(user, 'preferred_name'),
            pronouns: optionalText(user, 'pronouns'),
            phonetic_spelling: user.phonetic_spelling,
            order_value: orderField && value !== undefined ? { label: orderField.label, value: displayValue(value) } : null,
            guide: user.pronunciation,
            ...readerSource(collection.id, user, list.collection.review_required),
          };
        }) ?? null;
      // The page's version, in its markup and in a header the kept copy keeps: the script can tell
      // whether the device's copy is this page without fetching it again.
      const version = randomUUID();
      return sendReaderPage(
        reply.header(READER_PAGE_VERSION_HEADER, version),
        readerPage({
          version,
          lineup,
          styleUrl,
          readerStyleUrl,
          scriptUrl,
          syncScriptUrl,
          viewer: viewerOf(request),
          collection: list.collection,
          orders,
          order,
          people,
          entries: await renderEntries(people ?? []),
          maxPeople: READER_MAX_PEOPLE,
        }),
      );
    });

    // Installable: the reader opens from the home screen or dock as its own window.
    app.get<{ Params: { id: string } }>(
      '/collections/:id/reader.webmanifest',
      { preHandler: requireSession },
      async (request, reply) => {
        const collection = await getCollection(deps, sessionOf(request).account.id, request.params.id);
        const readerPath = `/dashboard/collections/${collection.id}/reader`;
        return reply.type('application/manifest+json; charset=utf-8').send({
          id: readerPath,
          name: `Reader · ${collection.name}`,
          short_name: 'Reader',
          description: `The ceremony reader of ${collection.name}: works without a network once loaded.`,
          start_url: readerPath,
          scope: readerPath,
          display: 'standalone',
          background_color: '#ffffff',
          theme_color: '#1f3a5f',
          icons: [{ src: '/favicon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
        });
      },
    );

    // One worker per collection, under the collection's path: its scope and its cache are that
    // collection's reader only, and another account's collection is a 404 here as everywhere.
    app.get<{ Params: { id: string } }>(
      '/collections/:id/reader-sw.js',
      { preHandler: requireSession },
      async (request, reply) => {
        await getCollection(deps, sessionOf(request).account.id, request.params.id);
        return reply
          .type(serviceWorker.contentType)
          .header('content-security-policy', SERVICE_WORKER_CSP)
          .send(serviceWorker.body);
      },
    );
  };
}
