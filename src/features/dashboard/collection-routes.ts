/**
 * Dashboard pages of collections: the list with progress, create (with custom fields), rename
 * and describe, archive after confirmation, and one collection's people table with search,
 * filter, order and pages of 100. People, recordings and the reader are in `person-routes.ts`
 * and `reader-routes.ts`. Every page reads and writes through the features' services.
 */
import { auditNothing, auditObject } from '../../http/audit.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import {
  archiveCollectionPage,
  collectionsPage,
  type EditCollectionForm,
  editCollectionPage,
  type FieldsForm,
  FIELD_ROWS_START,
  FIELD_ROWS_STEP,
  type FieldRow,
  FORM_FIELD_TYPES,
  type FormError,
  newCollectionPage,
  type NewCollectionForm,
} from '../../web/views/dashboard/collections.js';
import { collectionPage, ORDER_LABELS, type PeopleFilters, peopleQuery } from '../../web/views/dashboard/people.js';
import {
  type Collection,
  CreateCollectionBody,
  type CustomField,
  MAX_CUSTOM_FIELDS,
  UpdateCollectionBody,
} from '../collections/schemas.js';
import { archiveCollection, createCollection, getCollection, listCollections, updateCollection } from '../collections/service.js';
import { COVERAGE_STATES, type Coverage } from '../pronunciation/schemas.js';
import { countListenedAwaitingReview } from '../recordings/listened-service.js';
import {
  countCoverageStates,
  listPeople,
  PEOPLE_ORDERS,
  PEOPLE_PAGE_SIZE,
  SEARCH_WINDOW,
  PEOPLE_STATUS_FILTERS,
  type PeopleOrder,
  type PeopleStatusFilter,
} from '../users/people-service.js';
import { checkBody, formErrorOf, queryText, viewerOf } from './forms.js';
import { formField, redirect, requireSession, sendMediaPage, sendPage, sessionOf } from './http.js';

/** Success messages after a redirect, chosen by a fixed code in the query (never echoed input). */
export const COLLECTION_NOTICES: Record<string, string> = {
  'collection-created': 'The collection is created. Add people one by one, or import a CSV file.',
  'collection-updated': 'The collection is saved.',
  'collection-archived': 'The collection is archived. Its play links and record links no longer work.',
  'person-added': 'The person is added. Send them their record link below.',
  'person-deleted': 'The person, their recording and their links are deleted.',
  'recording-deleted': 'The recording is deleted. The record link still works for a new one.',
  'recording-approved': 'The recording is approved.',
  'played-approved': 'The played recordings awaiting a decision are approved.',
  'rerecord-requested': 'A new recording is asked for. The note shows on their record page until they record again.',
  'fields-updated': 'The custom fields are saved.',
  'settings-updated': 'The invitation and branding settings are saved.',
  'invitations-queued': 'The invitations are on their way. Each person’s e-mail status shows in the table.',
  'invitation-queued': 'The invitation is on its way.',
  'reminder-queued': 'The reminder is on its way.',
  'invitation-skipped': 'No invitation sent: this person unsubscribed from this collection’s e-mail.',
  'guide-suggested': 'Your guide is saved. They see it on their record page and may approve or change it.',
  'languages-updated': 'The languages are saved. A guide made by the computer is made again in the new language.',
};

export const noticeOf = (request: FastifyRequest): string | null => {
  const code = queryText(request, 'notice');
  return code === undefined ? null : (COLLECTION_NOTICES[code] ?? null);
};

const MAX_PAGE_NUMBER = 1_000_000;

/** A key made from a label: "Seat number" → `seat_number`, "Année" → `annee`. */
export function keyFromLabel(label: string): string {
  const key = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 63);
  return /^[a-z]/.test(key) ? key : key === '' ? '' : `f_${key}`.slice(0, 63);
}

function fieldRowsOf(request: FastifyRequest): FieldRow[] {
  const requested = Number(formField(request, 'field_rows') ?? FIELD_ROWS_START);
  const count = Number.isInteger(requested) ? Math.max(0, Math.min(MAX_CUSTOM_FIELDS, requested)) : FIELD_ROWS_START;
  return Array.from({ length: count }, (_, i) => ({
    key: (formField(request, `field_key_${i}`) ?? '').trim(),
    label: (formField(request, `field_label_${i}`) ?? '').trim(),
    type: formField(request, `field_type_${i}`) ?? 'text',
    required: formField(request, `field_required_${i}`) !== undefined,
  }));
}

/** The filled rows first (so an error's `custom_fields[i]` is row i + 1), then the empty ones. */
const compactRows = (rows: FieldRow[]): FieldRow[] => {
  const filled = rows.filter((r) => r.key !== '' || r.label !== '');
  return [...filled, ...rows.filter((r) => r.key === '' && r.label === '').map((r) => ({ ...r, type: 'text', required: false }))];
};

const emptyFieldRow = (): FieldRow => ({ key: '', label: '', type: 'text', required: false });

/**
 * The filled rows as field definitions (required where ticked), or a form error naming the row;
 * `offset` fields come before them in the request.
 */
function newFieldsOf(rows: FieldRow[], offset = 0, name = 'Field'): CustomField[] {
  return rows
    .filter((r) => r.key !== '' || r.label !== '')
    .map((row, index) => {
      const key = row.key === '' ? keyFromLabel(row.label) : row.key;
      if (key === '') {
        throw new AppError('parameter_invalid', `${name} ${index + 1}: give it a key of lower-case letters, digits and _.`, {
          param: `custom_fields[${offset + index}].key`,
        });
      }
      if (!(FORM_FIELD_TYPES as readonly string[]).includes(row.type)) {
        throw new AppError('parameter_invalid', `${name} ${index + 1}: choose one of the listed types.`, {
          param: `custom_fields[${offset + index}].type`,
        });
      }
      return {
        key,
        label: row.label === '' ? key : row.label,
        type: row.type as (typeof FORM_FIELD_TYPES)[number],
        required: row.required,
      };
    });
}

/**
 * The PATCH body of the custom fields form: the fields kept (relabelled, required as ticked;
 * type and options unchanged), then the new ones. The service keeps the values of kept fields and deletes
 * those of removed ones.
 */
function fieldsBodyOf(collection: Collection, form: FieldsForm): UpdateCollectionBody {
  const kept = collection.custom_fields
    .filter((f) => !form.remove.includes(f.key))
    .map((f) => ({ ...f, label: form.labels[f.key] ?? f.label, required: form.required[f.key] ?? f.required }));
  const added = newFieldsOf(form.added, kept.length, 'New field');
  return checkBody<UpdateCollectionBody>(UpdateCollectionBody, { custom_fields: [...kept, ...added] });
}

/** The create body of the form, or a form error naming the row. */
function createBodyOf(form: NewCollectionForm): CreateCollectionBody {
  const fields = newFieldsOf(form.fields);
  return checkBody<CreateCollectionBody>(CreateCollectionBody, {
    name: form.name,
    ...(form.description.trim() === '' ? {} : { description: form.description }),
    ...(fields.length === 0 ? {} : { custom_fields: fields }),
  });
}

export function collectionRoutes(deps: Deps, options: { styleUrl: string }) {
  const { styleUrl } = options;
  return async (app: FastifyInstance) => {
    const accountOf = (request: FastifyRequest) => sessionOf(request).account.id;

    app.get('/collections', { preHandler: requireSession }, async (request, reply) => {
      const cursor = queryText(request, 'cursor');
      const page = await listCollections(deps, accountOf(request), { limit: 50, ...(cursor ? { cursor } : {}) });
      return sendPage(
        reply,
        collectionsPage({
          styleUrl,
          viewer: viewerOf(request),
          collections: page.data,
          nextCursor: page.next_cursor,
          notice: noticeOf(request),
        }),
      );
    });

    const renderNew = (request: FastifyRequest, form: NewCollectionForm, error: FormError | null = null) =>
      newCollectionPage({ styleUrl, viewer: viewerOf(request), form, maxFields: MAX_CUSTOM_FIELDS, error });

    app.get('/collections/new', { preHandler: requireSession }, async (request, reply) =>
      sendPage(
        reply,
        renderNew(request, {
          name: '',
          description: '',
          fields: Array.from({ length: FIELD_ROWS_START }, emptyFieldRow),
        }),
      ),
    );

    app.post('/collections', { preHandler: requireSession, config: { audit: 'collection.created' } }, async (request, reply) => {
      const form: NewCollectionForm = {
        name: (formField(request, 'name') ?? '').trim(),
        description: formField(request, 'description') ?? '',
        fields: compactRows(fieldRowsOf(request)),
      };
      if (formField(request, 'more_fields') !== undefined) {
        // "More field rows": the same form again with room for more, nothing created.
        const more = Math.min(MAX_CUSTOM_FIELDS, form.fields.length + FIELD_ROWS_STEP) - form.fields.length;
        form.fields.push(...Array.from({ length: more }, emptyFieldRow));
        auditNothing(request);
        return sendPage(reply, renderNew(request, form));
      }
      try {
        const created = await createCollection(deps, accountOf(request), createBodyOf(form));
        auditObject(request, created.id);
        return redirect(reply, `/dashboard/collections/${created.id}?notice=collection-created`);
      } catch (error) {
        const refused = formErrorOf(error);
        if (!refused) throw error;
        return sendPage(reply, renderNew(request, form, refused), refused.status);
      }
    });

    app.get<{ Params: { id: string } }>('/collections/:id', { preHandler: requireSession }, async (request, reply) => {
      const order = queryText(request, 'order') ?? 'newest';
      const status = queryText(request, 'status') ?? '';
      if (!(PEOPLE_ORDERS as readonly string[]).includes(order)) {
        throw new AppError('parameter_invalid', `Choose an order: ${Object.values(ORDER_LABELS).join(', ')}.`, {
          param: 'order',
        });
      }
      if (status !== '' && !(PEOPLE_STATUS_FILTERS as readonly string[]).includes(status)) {
        throw new AppError(
          'parameter_invalid',
          'Show everyone, or people recorded, not recorded, to re-record or awaiting review.',
          {
            param: 'status',
          },
        );
      }
      const coverage = queryText(request, 'coverage') ?? '';
      if (coverage !== '' && !(COVERAGE_STATES as readonly string[]).includes(coverage)) {
        throw new AppError(
          'parameter_invalid',
          'Show names said by their voice, an approved computer voice, a guide only or nothing yet.',
          {
            param: 'coverage',
          },
        );
      }
      const search = queryText(request, 'search') ?? '';
      const cursor = queryText(request, 'cursor');
      const pageNumber = Number(queryText(request, 'page') ?? '1');
      const page = await listPeople(deps, accountOf(request), request.params.id, {
        search,
        order: order as PeopleOrder,
        ...(status === '' ? {} : { status: status as PeopleStatusFilter }),
        ...(coverage === '' ? {} : { coverage: coverage as Coverage }),
        ...(cursor ? { cursor } : {}),
      });
      const filters: PeopleFilters = { search: search.trim(), status, coverage, order };
      const shownPage = cursor && Number.isInteger(pageNumber) && pageNumber > 1 ? Math.min(pageNumber, MAX_PAGE_NUMBER) : 1;
      return sendMediaPage(
        reply,
        collectionPage({
          scriptUrl: deps.assets.url('review.ts'),
          query: peopleQuery(filters, cursor ? { cursor, page: String(shownPage) } : {}),
          playedCount: await countListenedAwaitingReview(deps, accountOf(request), page.collection.id),
          styleUrl,
          viewer: viewerOf(request),
          collection: page.collection,
          people: page.data,
          coverage: await countCoverageStates(deps, accountOf(request), page.collection.id),
          filters,
          // Only labels the rows ("People 101–200"); the cursor alone decides what is shown.
          page: shownPage,
          pageSize: PEOPLE_PAGE_SIZE,
          nextCursor: page.next_cursor,
          searchedWindow: page.partial ? SEARCH_WINDOW : 0,
          notice: noticeOf(request),
        }),
      );
    });

    const emptyFieldsForm = (): FieldsForm => ({ labels: {}, required: {}, remove: [], added: [emptyFieldRow()] });
    const renderEdit = (
      request: FastifyRequest,
      collection: Collection,
      forms: { form?: EditCollectionForm; fields?: FieldsForm; error?: FormError; fieldsError?: FormError } = {},
    ) =>
      editCollectionPage({
        styleUrl,
        viewer: viewerOf(request),
        collection,
        form: forms.form ?? {
          name: collection.name,
          description: collection.description ?? '',
          review_required: collection.review_required,
        },
        fields: forms.fields ?? emptyFieldsForm(),
        maxFields: MAX_CUSTOM_FIELDS,
        error: forms.error ?? null,
        fieldsError: forms.fieldsError ?? null,
      });

    app.get<{ Params: { id: string } }>('/collections/:id/edit', { preHandler: requireSession }, async (request, reply) => {
      const collection = await getCollection(deps, accountOf(request), request.params.id);
      return sendPage(reply, renderEdit(request, collection));
    });

    app.post<{ Params: { id: string } }>(
      '/collections/:id/edit',
      { preHandler: requireSession, config: { audit: 'collection.updated' } },
      async (request, reply) => {
        const accountId = accountOf(request);
        const collection = await getCollection(deps, accountId, request.params.id);
        const form: EditCollectionForm = {
          name: (formField(request, 'name') ?? '').trim(),
          description: formField(request, 'description') ?? '',
          review_required: formField(request, 'review_required') !== undefined,
        };
        try {
          const body = checkBody<UpdateCollectionBody>(UpdateCollectionBody, {
            name: form.name,
            description: form.description.trim() === '' ? null : form.description,
            // Only a change: switching review recounts the collection's recordings.
            ...(form.review_required === collection.review_required ? {} : { review_required: form.review_required }),
          });
          await updateCollection(deps, accountId, collection.id, body);
        } catch (error) {
          const refused = formErrorOf(error);
          if (!refused) throw error;
          return sendPage(reply, renderEdit(request, collection, { form, error: refused }), refused.status);
        }
        return redirect(reply, `/dashboard/collections/${collection.id}?notice=collection-updated`);
      },
    );

    app.post<{ Params: { id: string } }>(
      '/collections/:id/fields',
      { preHandler: requireSession, config: { audit: 'collection.fields_changed' } },
      async (request, reply) => {
        const accountId = accountOf(request);
        const collection = await getCollection(deps, accountId, request.params.id);
        const fields: FieldsForm = {
          labels: Object.fromEntries(
            collection.custom_fields.map((f) => [f.key, (formField(request, `label_${f.key}`) ?? f.label).trim()]),
          ),
          required: Object.fromEntries(
            collection.custom_fields.map((f) => [f.key, formField(request, `required_${f.key}`) !== undefined]),
          ),
          remove: collection.custom_fields.filter((f) => formField(request, `remove_${f.key}`) !== undefined).map((f) => f.key),
          added: compactRows(fieldRowsOf(request)),
        };
        if (formField(request, 'more_fields') !== undefined) {
          const room = MAX_CUSTOM_FIELDS - collection.custom_fields.length;
          const more = Math.max(0, Math.min(room, fields.added.length + FIELD_ROWS_STEP) - fields.added.length);
          fields.added.push(...Array.from({ length: more }, emptyFieldRow));
          auditNothing(request);
          return sendPage(reply, renderEdit(request, collection, { fields }));
        }
        try {
          await updateCollection(deps, accountId, collection.id, fieldsBodyOf(collection, fields));
        } catch (error) {
          const refused = formErrorOf(error);
          if (!refused) throw error;
          return sendPage(reply, renderEdit(request, collection, { fields, fieldsError: refused }), refused.status);
        }
        return redirect(reply, `/dashboard/collections/${collection.id}?notice=fields-updated`);
      },
    );

    app.get<{ Params: { id: string } }>('/collections/:id/archive', { preHandler: requireSession }, async (request, reply) => {
      const collection = await getCollection(deps, accountOf(request), request.params.id);
      return sendPage(reply, archiveCollectionPage({ styleUrl, viewer: viewerOf(request), collection }));
    });

    app.post<{ Params: { id: string } }>(
      '/collections/:id/archive',
      { preHandler: requireSession, config: { audit: 'collection.archived' } },
      async (request, reply) => {
        await archiveCollection(deps, accountOf(request), request.params.id);
        return redirect(reply, '/dashboard/collections?notice=collection-archived');
      },
    );
  };
}
