/**
 * Review at speed in the dashboard: a decision on one recording (from the person page, the people
 * table or review mode), the "listened" marker the review script sets when a recording plays,
 * approving every played recording at once, and review mode. The forms work without script (a
 * redirect back to where they were sent from); the script asks for JSON and updates in place.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { auditDetail, auditEach } from '../../http/audit.js';
import type { Deps } from '../../deps.js';
import { statusLabel } from '../../web/views/dashboard/recording-status.js';
import { reviewModePage } from '../../web/views/dashboard/review.js';
import { getCollection } from '../collections/service.js';
import { markListened } from '../recordings/listened-service.js';
import { listPeople } from '../users/people-service.js';
import { approveListenedRecordings, reviewAuditDetail, reviewRecording } from '../users/review-service.js';
import { ReviewBody } from '../users/schemas.js';
import { noticeOf } from './collection-routes.js';
import { checkBody, formErrorOf, viewerOf } from './forms.js';
import { formField, redirect, requireSession, sendMediaPage, sessionOf } from './http.js';
import { type PersonParams, personPages } from './person-routes.js';

type CollectionParams = { Params: { id: string } };

/** The people table's own query parameters: a review form's `query` field keeps these and nothing else. */
const TABLE_PARAMS = ['search', 'status', 'coverage', 'order', 'cursor', 'page'];

/** The table's query string sent back by a form, rebuilt from known parameters only (never echoed as is). */
export function tableQuery(raw: string | undefined): string {
  const sent = new URLSearchParams((raw ?? '').replace(/^\?/, ''));
  const kept = new URLSearchParams();
  for (const name of TABLE_PARAMS) {
    const value = sent.get(name);
    if (value !== null && value !== '') kept.set(name, value);
  }
  const text = kept.toString();
  return text === '' ? '' : `?${text}`;
}

/** The review script sends `Accept: application/json` and updates the page itself. */
const wantsJson = (request: FastifyRequest) => (request.headers.accept ?? '').includes('application/json');

const refusedJson = (reply: FastifyReply, refused: { status: number; message: string; param?: string | null }) =>
  reply.code(refused.status).send({ error: { message: refused.message, param: refused.param ?? null } });

export function reviewRoutes(deps: Deps, options: { styleUrl: string }) {
  const { styleUrl } = options;
  const { load, render: renderPerson } = personPages(deps, styleUrl);
  const scriptUrl = deps.assets.url('review.ts');
  return async (app: FastifyInstance) => {
    const accountOf = (request: FastifyRequest) => sessionOf(request).account.id;

    app.post<PersonParams>(
      '/collections/:id/people/:userId/review',
      { preHandler: requireSession, config: { audit: 'recording.reviewed' } },
      async (request, reply) => {
        const loaded = await load(request);
        const { collection, user } = loaded;
        const decision = formField(request, 'decision') ?? '';
        const note = (formField(request, 'note') ?? '').trim();
        let reviewed;
        try {
          const body = checkBody<ReviewBody>(ReviewBody, {
            decision,
            ...(decision === 'request_rerecord' && note !== '' ? { note } : {}),
          });
          reviewed = await reviewRecording(deps, loaded.accountId, collection.id, user.id, body);
          auditDetail(request, reviewAuditDetail(body));
        } catch (error) {
          const refused = formErrorOf(error);
          if (!refused) throw error;
          if (wantsJson(request)) return refusedJson(reply, refused);
          return sendMediaPage(
            reply,
            await renderPerson(request, loaded, { review: { error: refused, noteDraft: note } }),
            refused.status,
          );
        }
        if (wantsJson(request)) {
          return reply.send({
            id: reviewed.id,
            recording_status: reviewed.recording_status,
            review_note: reviewed.review_note,
            label: statusLabel(reviewed.recording_status, collection.review_required),
          });
        }
        const notice = decision === 'approve' ? 'recording-approved' : 'rerecord-requested';
        const base = `/dashboard/collections/${collection.id}`;
        switch (formField(request, 'return_to')) {
          case 'table': {
            const query = tableQuery(formField(request, 'query'));
            return redirect(reply, `${base}${query}${query === '' ? '?' : '&'}notice=${notice}#row-${user.id}`);
          }
          case 'review':
            return redirect(reply, `${base}/review?notice=${notice}`);
          default:
            return redirect(reply, `${base}/people/${user.id}?notice=${notice}`);
        }
      },
    );

    // Sent by the review script when a recording starts playing: a marker, not a change anyone else sees.
    app.post<PersonParams>(
      '/collections/:id/people/:userId/listened',
      { preHandler: requireSession, config: { audit: { exempt: 'marks a recording as heard; the decision is audited' } } },
      async (request, reply) => {
        const marked = await markListened(
          deps,
          accountOf(request),
          request.params.id,
          request.params.userId,
          sessionOf(request).member.email,
        );
        return reply.send(marked);
      },
    );

    app.post<CollectionParams>(
      '/collections/:id/review/approve-played',
      { preHandler: requireSession, config: { audit: 'recording.reviewed' } },
      async (request, reply) => {
        const collection = await getCollection(deps, accountOf(request), request.params.id);
        const approved = await approveListenedRecordings(deps, accountOf(request), collection.id);
        auditEach(
          request,
          approved.map((person) => ({
            objectId: person.id,
            detail: { decision: 'approve', how: 'approved with the other played recordings' },
          })),
        );
        const query = tableQuery(formField(request, 'query'));
        return redirect(
          reply,
          `/dashboard/collections/${collection.id}${query}${query === '' ? '?' : '&'}notice=played-approved`,
        );
      },
    );

    app.get<CollectionParams>('/collections/:id/review', { preHandler: requireSession }, async (request, reply) => {
      const page = await listPeople(deps, accountOf(request), request.params.id, { status: 'awaiting_review', order: 'oldest' });
      return sendMediaPage(
        reply,
        reviewModePage({
          styleUrl,
          scriptUrl,
          viewer: viewerOf(request),
          collection: page.collection,
          people: page.data,
          more: page.next_cursor !== null,
          notice: noticeOf(request),
        }),
      );
    });
  };
}
