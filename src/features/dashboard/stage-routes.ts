/**
 * Stage sync in the dashboard: the collection's line-up order, its printable name cards, the
 * stage scanner (a phone at the stage stairs) and the event stream every open reader of the
 * collection listens to (server-sent events; `reader-sync.ts`). Members of every role may scan:
 * a scan changes nothing stored, and the volunteer at the stairs is often a viewer.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { type NameCard, nameCardsPage, stageScannerPage } from '../../web/views/dashboard/stage.js';
import { getCollection } from '../collections/service.js';
import { CARDS_PER_PAGE, lineupOptions, nameCardsOf, setLineupOrder, showPersonOnStage, watchStage } from '../stage/service.js';
import { queryText, viewerOf } from './forms.js';
import { formField, redirect, requireSession, sendCameraPage, sendPage, sessionOf } from './http.js';
import { displayValue } from './person-routes.js';

const LINEUP_NOTICES: Record<string, string> = {
  'lineup-saved': 'The line-up order is saved. The reader and the name cards follow it.',
};
/** A reader's stream ends after this and its browser reconnects at once: a revoked session loses the stream within it. */
const STREAM_MAX_MS = 30 * 60_000;
/** A comment line this often keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 20_000;
/** How soon a browser reconnects after the stream drops (EventSource's `retry`). */
const RECONNECT_MS = 1_000;
/** The longest a new stream waits for this process to hear other processes (it starts listening at boot). */
const LISTENING_WAIT_MS = 5_000;

const accountOf = (request: FastifyRequest) => sessionOf(request).account.id;

export function stageRoutes(deps: Deps, options: { styleUrl: string }) {
  const { styleUrl } = options;
  const stageStyleUrl = deps.assets.url('stage.css');
  const scannerScriptUrl = deps.assets.url('stage-scanner.ts');
  const streams = new Set<FastifyReply>();

  return async (app: FastifyInstance) => {
    // Open streams would hold a closing server for ever: end them first (browsers reconnect elsewhere).
    app.addHook('preClose', async () => {
      for (const reply of streams) reply.raw.end();
    });

    app.get<{ Params: { id: string } }>('/collections/:id/cards', { preHandler: requireSession }, async (request, reply) => {
      const pageText = queryText(request, 'page') ?? '1';
      if (!/^[1-9]\d{0,5}$/.test(pageText))
        throw new AppError('parameter_invalid', 'The page is a whole number from 1.', { param: 'page' });
      const cards = await nameCardsOf(deps, accountOf(request), request.params.id, Number(pageText));
      const field =
        cards.order.by === 'custom_field'
          ? cards.collection.custom_fields.find((f) => f.key === (cards.order as { key: string }).key)
          : undefined;
      const notice = queryText(request, 'notice');
      return sendPage(
        reply,
        nameCardsPage({
          styleUrl,
          stageStyleUrl,
          viewer: viewerOf(request),
          collection: cards.collection,
          choices: lineupOptions(cards.collection),
          lineup: cards.lineup,
          notice: notice === undefined ? null : (LINEUP_NOTICES[notice] ?? null),
          maxPeople: cards.maxPeople,
          pages: { page: cards.page, pages: cards.pages, first: cards.first, total: cards.total, perPage: CARDS_PER_PAGE },
          cards:
            cards.people?.map(({ user, code, qr }): NameCard => {
              const value = field ? user.custom_fields[field.key] : undefined;
              return {
                id: user.id,
                display_name: user.display_name,
                phonetic_spelling: user.phonetic_spelling,
                guide: user.pronunciation,
                order_value: field && value !== undefined ? { label: field.label, value: displayValue(value) } : null,
                code,
                qr,
              };
            }) ?? null,
        }),
      );
    });

    app.post<{ Params: { id: string } }>(
      '/collections/:id/lineup',
      { preHandler: requireSession, config: { audit: 'collection.lineup_changed' } },
      async (request, reply) => {
        const collection = await getCollection(deps, accountOf(request), request.params.id);
        await setLineupOrder(deps, accountOf(request), collection.id, formField(request, 'order') ?? '');
        return redirect(reply, `/dashboard/collections/${collection.id}/cards?notice=lineup-saved`);
      },
    );

    app.get<{ Params: { id: string } }>('/collections/:id/stage', { preHandler: requireSession }, async (request, reply) => {
      const collection = await getCollection(deps, accountOf(request), request.params.id);
      const page = { styleUrl, stageStyleUrl, scriptUrl: scannerScriptUrl, viewer: viewerOf(request), collection };
      return sendCameraPage(reply, stageScannerPage({ ...page, result: null }));
    });

    // The scanner's script asks for JSON; the plain form gets the scanner page back with the result.
    app.post<{ Params: { id: string } }>(
      '/collections/:id/stage/show',
      {
        preHandler: requireSession,
        config: { access: 'viewer', audit: { exempt: 'shows a person on the readers; nothing stored changes' } },
      },
      async (request, reply) => {
        const wantsJson = (request.headers.accept ?? '').includes('application/json');
        const collection = await getCollection(deps, accountOf(request), request.params.id);
        let result: { shown: string } | { error: string };
        let status = 200;
        try {
          const person = await showPersonOnStage(deps, accountOf(request), collection.id, formField(request, 'code') ?? '');
          result = { shown: person.display_name };
        } catch (err) {
          if (!(err instanceof AppError) || err.param !== 'code') throw err;
          result = { error: err.message };
          status = err.status;
        }
        if (wantsJson) return reply.code(status).send(result);
        const page = { styleUrl, stageStyleUrl, scriptUrl: scannerScriptUrl, viewer: viewerOf(request), collection };
        return sendCameraPage(reply, stageScannerPage({ ...page, result }), status);
      },
    );

    app.get<{ Params: { id: string } }>(
      '/collections/:id/stage/events',
      { preHandler: requireSession },
      async (request, reply) => {
        const collection = await getCollection(deps, accountOf(request), request.params.id);
        // "connected" must mean a scan on any process reaches this reader: right after this
        // process starts, its listening connection may still be opening.
        await Promise.race([deps.notifications.listening(), delay(LISTENING_WAIT_MS, undefined, { ref: false })]);
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          'x-accel-buffering': 'no',
          'x-request-id': request.id,
        });
        raw.write(`retry: ${RECONNECT_MS}\n: connected\n\n`);
        streams.add(reply);
        const unsubscribe = watchStage(deps, collection.id, (personId) => {
          raw.write(`event: show\ndata: ${JSON.stringify({ user_id: personId })}\n\n`);
        });
        const heartbeat = setInterval(() => raw.write(': ping\n\n'), HEARTBEAT_MS);
        const end = setTimeout(() => raw.end(), STREAM_MAX_MS);
        raw.on('close', () => {
          unsubscribe();
          clearInterval(heartbeat);
          clearTimeout(end);
          streams.delete(reply);
        });
      },
    );
  };
}
