import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { auditDetail, auditNothing } from '../../http/audit.js';
import { accountOf } from '../../http/auth.js';
import { ErrorResponse } from '../../http/schemas.js';
import { requireLiveCollection } from '../collections/service.js';
import { parseUsersCsv } from './csv.js';
import { importUsersCsv } from './import-service.js';
import {
  BatchUsersBody,
  BatchUsersResponse,
  CollectionParams,
  CreateUserBody,
  DeletedUser,
  ImportErrorResponse,
  ImportQuery,
  ImportReport,
  ListUsersQuery,
  MAX_CSV_CELL_CHARS,
  MAX_CSV_COLUMNS,
  MAX_CSV_ROW_BYTES,
  MAX_CSV_ROWS,
  MAX_IMPORT_BYTES,
  ReviewBody,
  UpdateUserBody,
  User,
  UserList,
  UserParams,
} from './schemas.js';
import { reviewAuditDetail, reviewRecording } from './review-service.js';
import { createUser, createUsers } from './create-service.js';
import { deleteUser, getUser, listUsers, rotateRecordLink, updateUser } from './service.js';

/**
 * A CSV body is a file: raw bytes, its encoding found from them. `format: binary` is what makes
 * generated clients send the file as it is (a string schema alone makes some JSON-encode it).
 */
const CsvFile = (description: string) =>
  Type.Unsafe<Buffer>({ type: 'string', format: 'binary', contentMediaType: 'text/csv', description });

/** CSV and JSON batches may be larger than ordinary JSON bodies. */
const BATCH_BODY_LIMIT = 5 * 1024 * 1024;

export const usersRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['Users'];
    const usersUrl = (collectionId: string) => `${deps.config.baseUrl}/v1/collections/${collectionId}/users`;
    const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };
    const base = '/collections/:collection_id/users';

    app.post(
      base,
      {
        config: { audit: 'user.created' },
        schema: {
          tags,
          operationId: 'users.create',
          summary: 'Create a user',
          description:
            'Adds one person to a collection. Their `record_url` is where they record their name; `email` and `external_id` are unique within the collection (409).',
          params: CollectionParams,
          body: CreateUserBody,
          response: { 201: User, 409: ErrorResponse, ...errors },
        },
      },
      async (request, reply) => {
        const { collection_id } = request.params;
        const user = await createUser(deps, accountOf(request), collection_id, request.body);
        return reply
          .code(201)
          .header('location', `${usersUrl(collection_id)}/${user.id}`)
          .send(user);
      },
    );

    app.get(
      base,
      {
        schema: {
          tags,
          operationId: 'users.list',
          summary: 'List users',
          description: 'People of the collection, newest first, paged with `limit` and `cursor`.',
          params: CollectionParams,
          querystring: ListUsersQuery,
          response: { 200: UserList, ...errors },
        },
      },
      async (request) => listUsers(deps, accountOf(request), request.params.collection_id, request.query),
    );

    await app.register(async (batch) => {
      batch.addContentTypeParser('text/csv', { parseAs: 'buffer', bodyLimit: BATCH_BODY_LIMIT }, (_request, body, done) =>
        done(null, body),
      );
      batch.post(
        `${base}/batch`,
        {
          config: { audit: 'users.imported' },
          bodyLimit: BATCH_BODY_LIMIT,
          schema: {
            tags,
            operationId: 'users.batchCreate',
            summary: 'Create up to 1,000 users at once (JSON or CSV)',
            description:
              'All or nothing. Send `{"users": [...]}` as JSON, or a CSV file (`Content-Type: text/csv`) with a header row: ' +
              '`email,first_name` and optionally `last_name,display_name,preferred_name,pronouns,external_id,phonetic_spelling,name_language,given_name_language,family_name_language,language` and custom field keys ' +
              "(headings matched like the import's), read like the import's files (encodings and bounds). On any problem nothing is created and the error lists every `{index, field, code, message}`. " +
              'It only creates: people who exist are never changed by it. ' +
              'For spreadsheets (unknown columns ignored, updates on re-import, up to 10,000 rows) use `POST …/users/import`.',
            params: CollectionParams,
            body: {
              content: {
                'application/json': { schema: BatchUsersBody },
                'text/csv': { schema: CsvFile('CSV with a header row.') },
              },
            } as never,
            response: { 201: BatchUsersResponse, 409: ErrorResponse, 413: ErrorResponse, ...errors },
          },
        },
        async (request, reply) => {
          const accountId = accountOf(request);
          const { collection_id } = request.params as { collection_id: string };
          let users: unknown[];
          if (Buffer.isBuffer(request.body)) {
            const collection = await requireLiveCollection(deps, accountId, collection_id);
            users = await parseUsersCsv(request.body, JSON.parse(collection.custom_fields));
          } else {
            users = (request.body as { users: unknown[] }).users;
          }
          if (users.length === 0) throw new AppError('parameter_invalid', 'The batch has no users.', { param: 'users' });
          if (users.length > 1000) {
            throw new AppError('parameter_invalid', `A batch holds at most 1000 users; this one has ${users.length}.`, {
              param: 'users',
            });
          }
          // A batch has no single URL: Location names the collection's people, where they now are.
          const created = await createUsers(deps, accountId, collection_id, users);
          return reply.code(201).header('location', usersUrl(collection_id)).send({ data: created });
        },
      );
    });

    await app.register(async (files) => {
      files.addContentTypeParser('text/csv', { parseAs: 'buffer', bodyLimit: MAX_IMPORT_BYTES }, (_request, body, done) =>
        done(null, body),
      );
      files.post(
        `${base}/import`,
        {
          config: { audit: 'users.imported' },
          bodyLimit: MAX_IMPORT_BYTES,
          schema: {
            tags,
            operationId: 'users.import',
            summary: 'Import people from a CSV file',
            description:
              'The raw file as a spreadsheet saved it (`Content-Type: text/csv`): UTF-8 with or without BOM, UTF-16 (either byte order, ' +
              'with or without BOM) or Windows-1252 (UTF-32 is refused with `invalid_csv`); comma, semicolon or tab separated (told by ' +
              'the header row). Up to 10,000 people (`too_many_rows`) and 5 MB (413), checked while reading, as are the bounds of ' +
              `every row: at most ${MAX_CSV_ROWS.toLocaleString('en')} rows including blank ones (\`too_many_rows\`), ` +
              `${MAX_CSV_COLUMNS} columns (\`too_many_columns\`), ${MAX_CSV_ROW_BYTES / 1024} KiB per row and ` +
              `${MAX_CSV_CELL_CHARS.toLocaleString('en')} characters per cell (\`invalid_csv\`). Headings are matched ` +
              'without case, spaces, underscores or hyphens (`First Name`, `E-mail`, `Surname`…), and custom fields by key or label; ' +
              'unknown columns are ignored and listed in `warnings`. A row updates the person with its `external_id`, else its e-mail, ' +
              'and creates one otherwise. Every problem of every row is reported as `{row, column, code, message}` (header = row 1). ' +
              '`mode=all_or_nothing` (default) writes nothing when any row is wrong (400 `import_invalid`); `mode=valid_rows` writes ' +
              'the good rows. `dry_run=true` writes nothing and previews the first rows, each update with its changes before → after. ' +
              'A value the person set themselves on their record page after your last change to it is kept (listed in `person_edits`), ' +
              'unless `overwrite_person_edits=true`. `name_order=family_first` composes default display names family name first ' +
              '(a `name_order` column sets it per row); the report counts, in `family_name_first_rows`, the names that look ' +
              'family-name-first but will be shown given name first.',
            params: CollectionParams,
            querystring: ImportQuery,
            body: {
              content: { 'text/csv': { schema: CsvFile('The CSV file, header row first.') } },
            } as never,
            response: {
              200: ImportReport,
              400: ImportErrorResponse,
              401: ErrorResponse,
              404: ErrorResponse,
              409: ErrorResponse,
              413: ErrorResponse,
              415: ErrorResponse,
            },
          },
        },
        async (request) => {
          const { collection_id } = request.params as { collection_id: string };
          const query = request.query as ImportQuery;
          // The JSON parser is inherited from the app: a JSON body is the wrong kind of request here.
          if (!Buffer.isBuffer(request.body)) {
            throw new AppError('unsupported_media_type', 'Send the file itself with Content-Type: text/csv.');
          }
          // A dry run writes nothing, so it leaves no entry in the audit log.
          if (query.dry_run) auditNothing(request);
          return importUsersCsv(deps, accountOf(request), collection_id, request.body, {
            ...(query.mode === undefined ? {} : { mode: query.mode }),
            ...(query.dry_run === undefined ? {} : { dryRun: query.dry_run }),
            ...(query.overwrite_person_edits === undefined ? {} : { overwritePersonEdits: query.overwrite_person_edits }),
            ...(query.name_order === undefined ? {} : { nameOrder: query.name_order }),
          });
        },
      );
    });

    app.get(
      `${base}/:user_id`,
      {
        schema: {
          tags,
          operationId: 'users.get',
          summary: 'Fetch a user',
          description: 'One person, with their recording status and play link when they have recorded.',
          params: UserParams,
          response: { 200: User, ...errors },
        },
      },
      async (request) => getUser(deps, accountOf(request), request.params.collection_id, request.params.user_id),
    );

    app.patch(
      `${base}/:user_id`,
      {
        config: { audit: 'user.updated' },
        schema: {
          tags,
          operationId: 'users.update',
          summary: 'Update a user',
          description:
            'Changes only the fields sent. A new name does not change the recording. This is an explicit change: it replaces ' +
            "what the person set themselves, and `field_sources` records it as the organiser's. Sends `user.updated`.",
          params: UserParams,
          body: UpdateUserBody,
          response: { 200: User, 409: ErrorResponse, ...errors },
        },
      },
      async (request) => updateUser(deps, accountOf(request), request.params.collection_id, request.params.user_id, request.body),
    );

    app.delete(
      `${base}/:user_id`,
      {
        config: { audit: 'user.deleted' },
        schema: {
          tags,
          operationId: 'users.delete',
          summary: 'Delete a user',
          description:
            'Deletes the user, their recording, play link and audio files. Emits `recording.deleted` if they had a recording.',
          params: UserParams,
          response: { 200: DeletedUser, ...errors },
        },
      },
      async (request) => deleteUser(deps, accountOf(request), request.params.collection_id, request.params.user_id),
    );

    app.post(
      `${base}/:user_id/record-link`,
      {
        config: { audit: 'user.record_link_rotated' },
        schema: {
          tags,
          operationId: 'users.rotateRecordLink',
          summary: 'Rotate the record_url',
          description: 'Issues a new recorder-page link; the old one stops working immediately. Returns the user.',
          params: UserParams,
          response: { 200: User, ...errors },
        },
      },
      async (request) => rotateRecordLink(deps, accountOf(request), request.params.collection_id, request.params.user_id),
    );

    app.post(
      `${base}/:user_id/review`,
      {
        config: { audit: 'recording.reviewed' },
        schema: {
          tags,
          operationId: 'users.review',
          summary: 'Approve a recording or ask for a new one',
          description:
            '`{"decision": "approve"}` sets `recording_status` to `approved`; `{"decision": "request_rerecord", "note": "…"}` ' +
            "sets `needs_rerecord` and shows the note on the person's recorder page until their next recording. " +
            'With `review_required` on the collection, only approved recordings count in `recorded_count`. ' +
            'The decision and its note are written to the audit log. ' +
            'Returns the user; 409 `no_recording_to_review` when the person has no recording.',
          params: UserParams,
          body: ReviewBody,
          response: { 200: User, 409: ErrorResponse, ...errors },
        },
      },
      async (request) => {
        const user = await reviewRecording(
          deps,
          accountOf(request),
          request.params.collection_id,
          request.params.user_id,
          request.body,
        );
        auditDetail(request, reviewAuditDetail(request.body));
        return user;
      },
    );
  };
