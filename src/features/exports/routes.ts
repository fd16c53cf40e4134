import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { accountOf } from '../../http/auth.js';
import { ErrorResponse } from '../../http/schemas.js';
import { type CsvOptions, ExportCsv, ExportParams, ExportQuery, ExportZip } from './schemas.js';
import { exportPerson } from './person-service.js';
import { exportCollection } from './service.js';

export const exportsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/collections/:collection_id/export',
      {
        schema: {
          tags: ['Exports'],
          operationId: 'exports.collection',
          summary: 'Export the people (CSV) or their recordings (ZIP)',
          description:
            'CSV: one row per person in import order (display name, first/last name, e-mail, external_id, phonetic spelling, ' +
            'play link, record link, recording status, review note, then each custom field by key, then the pronunciation ' +
            'columns, then preferred name, pronouns, language, invitation status and review status), comma- or ' +
            '`separator=semicolon`-separated, with a UTF-8 byte-order mark unless `bom=false`; cells that a spreadsheet ' +
            "would read as a formula start with `'`. ZIP: `<row>-<display name>.mp3` for every person with a recording (row = " +
            'their row in the CSV, header = row 1) and `people.csv` with an `audio_file` column. Streamed as it is made, ' +
            'with no time limit while the client keeps reading.',
          params: ExportParams,
          querystring: ExportQuery,
          response: {
            200: {
              description: 'The file.',
              content: { 'text/csv': { schema: ExportCsv }, 'application/zip': { schema: ExportZip } },
            },
            400: ErrorResponse,
            401: ErrorResponse,
            404: ErrorResponse,
          },
        } as never,
      },
      async (request, reply) => {
        const { collection_id } = request.params as { collection_id: string };
        const { format, separator, bom } = request.query as { format: 'csv' | 'zip' } & Partial<CsvOptions>;
        const controller = new AbortController();
        reply.raw.once('close', () => {
          if (!reply.raw.writableFinished) controller.abort();
        });
        const file = await exportCollection(deps, accountOf(request), collection_id, format, {
          signal: controller.signal,
          // An API key acts for the whole organisation: it can rotate record links anyway.
          writeLinks: true,
          csv: { separator: separator ?? 'comma', bom: bom ?? true },
        });
        // A client that reads nothing for this long is gone: drop it rather than hold the export open.
        reply.raw.setTimeout(deps.config.requestTimeoutMs, () => {
          controller.abort();
          reply.raw.destroy();
        });
        return reply
          .header('content-type', file.contentType)
          .header('content-disposition', file.contentDisposition)
          .header('cache-control', 'no-store')
          .header('x-content-type-options', 'nosniff')
          .send(file.stream);
      },
    );

    app.get(
      '/collections/:collection_id/users/:user_id/export',
      {
        schema: {
          tags: ['Exports'],
          operationId: 'exports.person',
          summary: "Export one person's data (ZIP)",
          description:
            'For subject-access and portability requests: `person.json` (the user object with custom fields and review state, ' +
            'their recording’s details, every play link they have had, the events that name them, and under `provisioned_by` the SCIM user ' +
            'and LMS course membership that provisioned them) and `recording.mp3` when they have one.',
          params: { type: 'object', properties: { collection_id: { type: 'string' }, user_id: { type: 'string' } } },
          response: {
            200: { description: 'The ZIP file.', content: { 'application/zip': { schema: ExportZip } } },
            401: ErrorResponse,
            404: ErrorResponse,
          },
        } as never,
      },
      async (request, reply) => {
        const { collection_id, user_id } = request.params as { collection_id: string; user_id: string };
        const file = await exportPerson(deps, accountOf(request), collection_id, user_id, {
          exportedAt: deps.clock.now(),
          writeLinks: true,
        });
        return reply
          .header('content-type', 'application/zip')
          .header('content-disposition', file.contentDisposition)
          .header('cache-control', 'no-store')
          .header('x-content-type-options', 'nosniff')
          .send(file.stream);
      },
    );
  };
