/**
 * A collection's files in the dashboard: the CSV and ZIP exports (streamed by the exports
 * service; any member may download, it is a read) and the two-step CSV import. Step 1 uploads
 * the file (`multipart/form-data`, read by `multipart.ts`), runs the import as a dry run and
 * shows its preview; the file is held for 30 minutes (`import-uploads.ts`) and may be checked
 * again with another name order. Step 2 confirms with the held file's token and imports it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError, type RowError } from '../../errors.js';
import { auditObject } from '../../http/audit.js';
import type { CollectionItem } from '../../web/views/dashboard/collections.js';
import { type ImportIssue, importFormPage, importPreviewPage, importResultPage } from '../../web/views/dashboard/import.js';
import type { Collection } from '../collections/schemas.js';
import { getCollection } from '../collections/service.js';
import { exportCollection } from '../exports/service.js';
import { STANDARD_FIELDS } from '../users/csv-columns.js';
import { importUsersCsv } from '../users/import-service.js';
import { type ImportMode, IMPORT_MODES, type ImportReport, MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from '../users/schemas.js';
import { NAME_ORDERS, type NameOrder } from '../../lib/name-order.js';
import { seesWriteLinks } from './access.js';
import { acceptMultipartForms, queryText, uploadedFile, viewerOf } from './forms.js';
import { formField, redirect, requireSession, sendPage, sessionOf } from './http.js';
import { dropUpload, holdUpload, readUpload, type UploadOwner } from './import-uploads.js';

/** The file plus the form's few text fields and the multipart framing. */
const UPLOAD_BODY_LIMIT = MAX_IMPORT_BYTES + 64 * 1024;

type Params = { Params: { id: string } };

const EXPIRED = 'That check has expired (files are kept for 30 minutes) or was already imported. Upload the file again.';

/** The form's name order (given name first when the form has none). */
function nameOrderOf(request: FastifyRequest): NameOrder {
  const value = formField(request, 'name_order') ?? 'given_first';
  if (!(NAME_ORDERS as readonly string[]).includes(value)) {
    throw new AppError('parameter_invalid', 'Choose given name first or family name first.', { param: 'name_order' });
  }
  return value as NameOrder;
}

const issuesOf = (errors: RowError[] | undefined): ImportIssue[] =>
  (errors ?? []).map((e) => ({ row: e.row, column: e.column, message: e.message }));

export function collectionFileRoutes(deps: Deps, options: { styleUrl: string }) {
  const { styleUrl } = options;
  return async (app: FastifyInstance) => {
    acceptMultipartForms(app, UPLOAD_BODY_LIMIT);

    const accountOf = (request: FastifyRequest) => sessionOf(request).account.id;
    const ownerOf = (request: FastifyRequest, collection: Collection): UploadOwner => ({
      sessionId: sessionOf(request).sessionId,
      collectionId: collection.id,
    });
    const page = (request: FastifyRequest, collection: CollectionItem) => ({ styleUrl, viewer: viewerOf(request), collection });
    const renderForm = (
      request: FastifyRequest,
      collection: Collection,
      refusal: { error?: string; problems?: ImportIssue[]; warnings?: ImportIssue[] } = {},
    ) =>
      importFormPage({
        ...page(request, collection),
        limits: { maxRows: MAX_IMPORT_ROWS, maxMegabytes: MAX_IMPORT_BYTES / 1024 / 1024 },
        columns: [
          ...STANDARD_FIELDS.filter((f) => f !== 'email' && f !== 'first_name'),
          ...collection.custom_fields.map((f) => f.key),
        ],
        ...refusal,
      });
    /** The dry run's report as the preview page shows it, with what its forms carry on. */
    const renderPreview = (
      request: FastifyRequest,
      collection: Collection,
      report: ImportReport,
      held: { fileName: string; token: string },
    ) =>
      importPreviewPage({
        ...page(request, collection),
        fileName: held.fileName === '' ? 'The file' : held.fileName,
        token: held.token,
        report: {
          ...report,
          errors: issuesOf(report.errors),
          warnings: issuesOf(report.warnings),
          preview: report.preview ?? [],
          person_edits: report.person_edits,
        },
        fields: collection.custom_fields,
      });
    /** A refusal of the whole file (unreadable, header, size) shown on the upload form; anything else is rethrown. */
    const refusalOf = (error: unknown) => {
      if (!(error instanceof AppError) || error.status >= 500 || error.status === 404) return null;
      return {
        status: error.status,
        error: error.message,
        problems: issuesOf(error.errors as RowError[] | undefined),
        warnings: issuesOf(error.warnings),
      };
    };

    app.get<Params>('/collections/:id/export', { preHandler: requireSession }, async (request, reply) => {
      const format = queryText(request, 'format') ?? '';
      if (format !== 'csv' && format !== 'zip') {
        throw new AppError('parameter_invalid', 'Choose the CSV or the ZIP download.', { param: 'format' });
      }
      const separator = queryText(request, 'separator') ?? 'comma';
      if (separator !== 'comma' && separator !== 'semicolon') {
        throw new AppError('parameter_invalid', 'Choose a comma or a semicolon to separate the cells.', { param: 'separator' });
      }
      const bom = queryText(request, 'bom') ?? 'true';
      if (bom !== 'true' && bom !== 'false')
        throw new AppError('parameter_invalid', 'Say whether to add a byte-order mark.', { param: 'bom' });
      const controller = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort();
      });
      const file = await exportCollection(deps, accountOf(request), request.params.id, format, {
        signal: controller.signal,
        writeLinks: seesWriteLinks(request),
        csv: { separator, bom: bom === 'true' },
      });
      reply.raw.setTimeout(deps.config.requestTimeoutMs, () => {
        controller.abort();
        reply.raw.destroy();
      });
      return reply
        .header('content-type', file.contentType)
        .header('content-disposition', file.contentDisposition)
        .header('x-content-type-options', 'nosniff')
        .send(file.stream);
    });

    app.get<Params>('/collections/:id/import', { preHandler: requireSession }, async (request, reply) => {
      const collection = await getCollection(deps, accountOf(request), request.params.id);
      return sendPage(reply, renderForm(request, collection));
    });

    app.post<Params>(
      '/collections/:id/import',
      {
        preHandler: requireSession,
        bodyLimit: UPLOAD_BODY_LIMIT,
        config: { audit: { exempt: 'checks a file as a dry run; nothing is written until the confirmation, which is audited' } },
      },
      async (request, reply) => {
        const collection = await getCollection(deps, accountOf(request), request.params.id);
        const file = uploadedFile(request, 'file');
        if (!file || file.data.length === 0) {
          return sendPage(reply, renderForm(request, collection, { error: 'Choose a CSV file to import.' }), 400);
        }
        const nameOrder = nameOrderOf(request);
        let report;
        try {
          report = await importUsersCsv(deps, accountOf(request), collection.id, file.data, { dryRun: true, nameOrder });
        } catch (error) {
          const refused = refusalOf(error);
          if (!refused) throw error;
          return sendPage(reply, renderForm(request, collection, refused), refused.status);
        }
        const token = await holdUpload(deps, ownerOf(request, collection), file.data);
        return sendPage(reply, renderPreview(request, collection, report, { fileName: file.filename, token }));
      },
    );

    // The preview's "check again" with another name order: the held file, checked again.
    app.post<Params>(
      '/collections/:id/import/recheck',
      {
        preHandler: requireSession,
        config: { audit: { exempt: 'checks the held file again as a dry run; nothing is written' } },
      },
      async (request, reply) => {
        const collection = await getCollection(deps, accountOf(request), request.params.id);
        const nameOrder = nameOrderOf(request);
        const token = formField(request, 'upload') ?? '';
        const bytes = await readUpload(deps, ownerOf(request, collection), token);
        if (!bytes) return sendPage(reply, renderForm(request, collection, { error: EXPIRED }), 410);
        let report;
        try {
          report = await importUsersCsv(deps, accountOf(request), collection.id, bytes, { dryRun: true, nameOrder });
        } catch (error) {
          const refused = refusalOf(error);
          if (!refused) throw error;
          return sendPage(reply, renderForm(request, collection, refused), refused.status);
        }
        const fileName = formField(request, 'file_name') ?? '';
        return sendPage(reply, renderPreview(request, collection, report, { fileName, token }));
      },
    );

    app.post<Params>(
      '/collections/:id/import/confirm',
      { preHandler: requireSession, config: { audit: 'users.imported' } },
      async (request, reply) => {
        const accountId = accountOf(request);
        const collection = await getCollection(deps, accountId, request.params.id);
        auditObject(request, collection.id);
        const token = formField(request, 'upload') ?? '';
        const mode = formField(request, 'mode') ?? 'all_or_nothing';
        if (!(IMPORT_MODES as readonly string[]).includes(mode)) {
          throw new AppError('parameter_invalid', 'Import every row, or only the valid ones.', { param: 'mode' });
        }
        const nameOrder = nameOrderOf(request);
        const owner = ownerOf(request, collection);
        const bytes = await readUpload(deps, owner, token);
        if (!bytes) return sendPage(reply, renderForm(request, collection, { error: EXPIRED }), 410);
        let report;
        try {
          report = await importUsersCsv(deps, accountId, collection.id, bytes, {
            mode: mode as ImportMode,
            overwritePersonEdits: formField(request, 'overwrite_person_edits') === '1',
            nameOrder,
          });
        } catch (error) {
          const refused = refusalOf(error);
          if (!refused) throw error;
          // The collection changed since the check (e.g. a field removed): show why, with the file's problems.
          return sendPage(reply, renderForm(request, collection, refused), refused.status);
        }
        await dropUpload(deps, owner, token);
        return sendPage(
          reply,
          importResultPage({
            ...page(request, collection),
            report: { ...report, errors: issuesOf(report.errors), warnings: issuesOf(report.warnings) },
          }),
        );
      },
    );

    // A bookmarked or reloaded confirmation goes back to the upload form.
    app.get<Params>('/collections/:id/import/confirm', { preHandler: requireSession }, async (request, reply) =>
      redirect(reply, `/dashboard/collections/${request.params.id}/import`),
    );
    app.get<Params>('/collections/:id/import/recheck', { preHandler: requireSession }, async (request, reply) =>
      redirect(reply, `/dashboard/collections/${request.params.id}/import`),
    );
  };
}
