/** The organisation's audit log page: owners only, newest first, paged by an opaque cursor. */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { auditPage } from '../../web/views/dashboard/audit.js';
import type { Viewer } from '../../web/views/dashboard/layout.js';
import { listAuditLog } from '../audit/service.js';
import { listAccountErasures } from '../erasure/service.js';
import { sendPage, sessionOf, viewerOf } from './http.js';

export function auditRoutes(deps: Deps, options: { styleUrl: string }) {
  return async (app: FastifyInstance) => {
    app.get('/audit', { config: { access: 'owner' } }, async (request, reply) => {
      const raw = (request.query as { cursor?: unknown }).cursor;
      const cursor = typeof raw === 'string' && raw !== '' ? raw : undefined;
      const accountId = sessionOf(request).account.id;
      const page = await listAuditLog(deps, accountId, cursor === undefined ? {} : { cursor });
      const erasures = cursor === undefined ? (await listAccountErasures(deps, accountId, { limit: 20 })).data : [];
      return sendPage(
        reply,
        auditPage({
          styleUrl: options.styleUrl,
          viewer: viewerOf(request) as Viewer,
          entries: page.data,
          olderHref: page.next_cursor === null ? null : `/dashboard/audit?cursor=${encodeURIComponent(page.next_cursor)}`,
          firstPage: cursor === undefined,
          erasures,
        }),
      );
    });
  };
}
