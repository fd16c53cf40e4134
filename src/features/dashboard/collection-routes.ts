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
  editCollectionPage,
  FIELD_ROWS_START,
  FIELD_ROWS_STEP,
  type FieldRow,
  FORM_FIELD_TYPES,
  type FormError,
  newCollectionPage,
  type NewCollectionForm,
} from '../../web/views/dashboard/collections.js';
import { collectionPage, ORDER_LABELS, type PeopleFilters } from '../../web/views/dashboard/people.js';
import { CreateCollectionBody, MAX_CUSTOM_FIELDS, UpdateCollectionBody } from '../collections/schemas.js';
import { archiveCollection, createCollection, getCollection, listCollections, updateCollection } from '../collections/service.js';
import { listPeople, PEOPLE_ORDERS, PEOPLE_PAGE_SIZE, type PeopleOrder } from '../users/people-service.js';
import { checkBody, formErrorOf, queryText, viewerOf } from './forms.js';
import { formField, redirect, requireSession, sendPage, sessionOf } from './http.js';

/** Success messages after a redirect, chosen by a fixed code in the query (never echoed input). */
export const COLLECTION_NOTICES: Record<string, string> = {
  'collection-created': 'The collection is created. Add people one by one here, or import them with the API.',
  'collection-updated': 'The collection is saved.',
  'collection-archived': 'The collection is archived. Its play links and record links no longer work.',
  'person-added': 'The person is added. Send them their record link below.',
  'person-deleted': 'The person, their recording and their links are deleted.',
  'recording-deleted': 'The recording is deleted. The record link still works for a new one.',
};

export const noticeOf = (request: FastifyRequest): string | null => {
  const code = queryText(request, 'notice');
  return code === undefined ? null : (COLLECTION_NOTICES[code] ?? null);
};

const RECORDED_FILTERS: Record<string, boolean | undefined> = { '': undefined, yes: true, no: false };
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
  }));
}

/** The filled rows first (so an error's `custom_fields[i]` is row i + 1), then the empty ones. */
const compactRows = (rows: FieldRow[]): FieldRow[] => {
  const filled = rows.filter((r) => r.key !== '' || r.label !== '');
  return [...filled, ...rows.filter((r) => r.key === '' && r.label === '').map((r) => ({ ...r, type: 'text' }))];
};

/** The create body of the form, or a form error naming the row. */
function createBodyOf(form: NewCollectionForm): CreateCollectionBody {
  const fields = form.fields
    .filter((r) => r.key !== '' || r.label !== '')
    .map((row, index) => {
      const key = row.key === '' ? keyFromLabel(row.label) : row.key;
      if (key === '') {
        throw new AppError('parameter_invalid', `Field ${index + 1}: give it a key of lower-case letters, digits and _.`, {
          param: `custom_fields[${index}].key`,
        });
      }
      if (!(FORM_FIELD_TYPES as readonly string[]).includes(row.type)) {
        throw new AppError('parameter_invalid', `Field ${index + 1}: choose one of the listed types.`, {
          param: `custom_fields[${index}].type`,
        });
      }
      return {
        key,
        label: row.label === '' ? key : row.label,
        type: row.type as (typeof FORM_FIELD_TYPES)[number],
        required: false,
      };
    });
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
          fields: Array.from({ length: FIELD_ROWS_START }, () => ({ key: '', label: '', type: 'text' })),
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
        form.fields.push(...Array.from({ length: more }, () => ({ key: '', label: '', type: 'text' })));
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
      const recorded = queryText(request, 'recorded') ?? '';
      if (!(PEOPLE_ORDERS as readonly string[]).includes(order)) {
        throw new AppError('parameter_invalid', `Choose an order: ${Object.values(ORDER_LABELS).join(', ')}.`, {
          param: 'order',
        });
      }
      if (!(recorded in RECORDED_FILTERS)) {
        throw new AppError('parameter_invalid', 'Show everyone, recorded people or people not recorded yet.', {
          param: 'recorded',
        });
      }
      const search = queryText(request, 'search') ?? '';
      const cursor = queryText(request, 'cursor');
      const pageNumber = Number(queryText(request, 'page') ?? '1');
      const hasRecording = RECORDED_FILTERS[recorded];
      const page = await listPeople(deps, accountOf(request), request.params.id, {
        search,
        order: order as PeopleOrder,
        ...(hasRecording === undefined ? {} : { hasRecording }),
        ...(cursor ? { cursor } : {}),
      });
      const filters: PeopleFilters = { search: search.trim(), recorded, order };
      return sendPage(
        reply,
        collectionPage({
          styleUrl,
          viewer: viewerOf(request),
          collection: page.collection,
          people: page.data,
          filters,
          // Only labels the rows ("People 101–200"); the cursor alone decides what is shown.
          page: cursor && Number.isInteger(pageNumber) && pageNumber > 1 ? Math.min(pageNumber, MAX_PAGE_NUMBER) : 1,
          pageSize: PEOPLE_PAGE_SIZE,
          nextCursor: page.next_cursor,
          notice: noticeOf(request),
        }),
      );
    });

    app.get<{ Params: { id: string } }>('/collections/:id/edit', { preHandler: requireSession }, async (request, reply) => {
      const collection = await getCollection(deps, accountOf(request), request.params.id);
      return sendPage(
        reply,
        editCollectionPage({
          styleUrl,
          viewer: viewerOf(request),
          collection,
          form: { name: collection.name, description: collection.description ?? '' },
        }),
      );
    });

    app.post<{ Params: { id: string } }>(
      '/collections/:id/edit',
      { preHandler: requireSession, config: { audit: 'collection.updated' } },
      async (request, reply) => {
        const accountId = accountOf(request);
        const collection = await getCollection(deps, accountId, request.params.id);
        const form = { name: (formField(request, 'name') ?? '').trim(), description: formField(request, 'description') ?? '' };
        try {
          const body = checkBody<UpdateCollectionBody>(UpdateCollectionBody, {
            name: form.name,
            description: form.description.trim() === '' ? null : form.description,
          });
          await updateCollection(deps, accountId, collection.id, body);
        } catch (error) {
          const refused = formErrorOf(error);
          if (!refused) throw error;
          return sendPage(
            reply,
            editCollectionPage({ styleUrl, viewer: viewerOf(request), collection, form, error: refused }),
            refused.status,
          );
        }
        return redirect(reply, `/dashboard/collections/${collection.id}?notice=collection-updated`);
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
