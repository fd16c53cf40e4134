/**
 * Dashboard pages of one person: add a person to a collection, their page (recording, phonetic
 * spelling, play and record links), their audio (streamed through the session, never counted
 * as a play), and deleting the recording or the person after a confirmation page.
 */
import { auditObject } from '../../http/audit.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import type { FormError } from '../../web/views/dashboard/collections.js';
import { type CustomFieldInput, emptyPersonForm, type NewPersonForm, newPersonPage } from '../../web/views/dashboard/people.js';
import { deletePersonPage, deleteRecordingPage, type PersonDetail, personPage } from '../../web/views/dashboard/person.js';
import type { GuideFormState } from '../../web/views/dashboard/person-guide.js';
import type { Collection, CustomField } from '../collections/schemas.js';
import { getCollection } from '../collections/service.js';
import { getPlayLink } from '../play-links/service.js';
import { exportPerson } from '../exports/person-service.js';
import { openRecordingAudio } from '../recordings/audio-service.js';
import { deleteRecording } from '../recordings/service.js';
import type { CreateUserBody, User } from '../users/schemas.js';
import { createUser } from '../users/create-service.js';
import { deleteUser, getUser } from '../users/service.js';
import { noticeOf } from './collection-routes.js';
import { seesWriteLinks } from './access.js';
import { formErrorOf, viewerOf } from './forms.js';
import { formField, redirect, requireSession, sendMediaPage, sendPage, sessionOf } from './http.js';

export type PersonParams = { Params: { id: string; userId: string } };

/** A text field of the user object that may not exist yet in every version (`preferred_name`, `pronouns`). */
export function optionalText(user: User, field: string): string | null {
  const value = (user as unknown as Record<string, unknown>)[field];
  return typeof value === 'string' && value !== '' ? value : null;
}

export const displayValue = (value: string | number | boolean): string =>
  typeof value === 'boolean' ? (value ? 'Yes' : 'No') : String(value);

/** The approved computer voice as a path on this origin (the dashboard's media policy allows only 'self'). */
export const guideAudioPath = (audioUrl: string | null): string | null => (audioUrl ? new URL(audioUrl).pathname : null);

export function personDetail(user: User, fields: CustomField[]): PersonDetail {
  const { pronunciation } = user;
  return {
    ...user,
    preferred_name: optionalText(user, 'preferred_name'),
    pronouns: optionalText(user, 'pronouns'),
    guide: { ...pronunciation, audioPath: guideAudioPath(pronunciation.audio_url) },
    languages: {
      name_language: user.name_language,
      given_name_language: user.given_name_language,
      family_name_language: user.family_name_language,
    },
    custom: fields.flatMap((f) => {
      const value = user.custom_fields[f.key];
      return value === undefined ? [] : [{ label: f.label, value: displayValue(value) }];
    }),
  };
}

/** A custom field's form text as the API's value: numbers and booleans typed, empty left out. */
function customValue(field: CustomField, text: string): string | number | boolean | undefined {
  const value = text.trim();
  if (value === '') return undefined;
  if (field.type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  if (field.type === 'number') {
    const number = Number(value.replace(',', '.'));
    return /^[-+]?\d+([.,]\d+)?$/.test(value) && Number.isFinite(number) ? number : value;
  }
  return value;
}

function createBodyOf(form: NewPersonForm, fields: CustomField[]): CreateUserBody {
  const custom: Record<string, string | number | boolean> = {};
  for (const field of fields) {
    const value = customValue(field, form.custom[field.key] ?? '');
    if (value !== undefined) custom[field.key] = value;
  }
  return {
    email: form.email,
    first_name: form.first_name,
    ...(form.last_name === '' ? {} : { last_name: form.last_name }),
    ...(form.display_name === '' ? {} : { display_name: form.display_name }),
    ...(form.preferred_name === '' ? {} : { preferred_name: form.preferred_name }),
    ...(form.pronouns === '' ? {} : { pronouns: form.pronouns }),
    ...(form.phonetic_spelling === '' ? {} : { phonetic_spelling: form.phonetic_spelling }),
    ...(form.external_id === '' ? {} : { external_id: form.external_id }),
    ...(form.language === '' ? {} : { language: form.language }),
    ...(Object.keys(custom).length === 0 ? {} : { custom_fields: custom }),
  };
}

const fieldInputs = (collection: Collection): CustomFieldInput[] =>
  collection.custom_fields.map((f) => ({
    key: f.key,
    label: f.label,
    type: f.type,
    required: f.required,
    ...(f.options ? { options: f.options } : {}),
  }));

interface Loaded {
  accountId: string;
  collection: Collection;
  user: User;
  person: PersonDetail;
}

/** Loading one person (404 outside the account's live collections) and rendering their page, with a refused form if any. */
export function personPages(deps: Deps, styleUrl: string) {
  const copyScriptUrl = deps.assets.url('copy.ts');
  const load = async (request: FastifyRequest<PersonParams>): Promise<Loaded> => {
    const accountId = sessionOf(request).account.id;
    const collection = await getCollection(deps, accountId, request.params.id);
    const user = await getUser(deps, accountId, collection.id, request.params.userId);
    return { accountId, collection, user, person: personDetail(user, collection.custom_fields) };
  };
  const render = async (
    request: FastifyRequest<PersonParams>,
    loaded: Loaded,
    refused: { review?: { error: FormError; noteDraft: string }; guide?: GuideFormState } = {},
  ) => {
    const { accountId, collection, user, person } = loaded;
    const link = user.has_recording ? await getPlayLink(deps, accountId, collection.id, user.id) : null;
    return personPage({
      styleUrl,
      scriptUrl: copyScriptUrl,
      viewer: viewerOf(request),
      collection,
      person,
      recording: link
        ? {
            audioUrl: `/dashboard/collections/${collection.id}/people/${user.id}/audio`,
            playLink: link.play_link,
            durationSeconds: link.duration_seconds,
            recordedAt: link.recorded_at,
          }
        : null,
      notice: noticeOf(request),
      reviewError: refused.review?.error ?? null,
      noteDraft: refused.review?.noteDraft ?? '',
      guideState: refused.guide ?? null,
    });
  };
  return { load, render };
}

export function personRoutes(deps: Deps, options: { styleUrl: string }) {
  const { styleUrl } = options;
  const { load, render: renderPerson } = personPages(deps, styleUrl);
  return async (app: FastifyInstance) => {
    const accountOf = (request: FastifyRequest) => sessionOf(request).account.id;

    const renderNew = (request: FastifyRequest, collection: Collection, form: NewPersonForm, error: FormError | null = null) =>
      newPersonPage({ styleUrl, viewer: viewerOf(request), collection, fields: fieldInputs(collection), form, error });

    app.get<{ Params: { id: string } }>('/collections/:id/people/new', { preHandler: requireSession }, async (request, reply) => {
      const collection = await getCollection(deps, accountOf(request), request.params.id);
      return sendPage(reply, renderNew(request, collection, emptyPersonForm()));
    });

    app.post<{ Params: { id: string } }>(
      '/collections/:id/people',
      { preHandler: requireSession, config: { audit: 'user.created' } },
      async (request, reply) => {
        const accountId = accountOf(request);
        const collection = await getCollection(deps, accountId, request.params.id);
        const text = (name: string) => (formField(request, name) ?? '').trim();
        const form: NewPersonForm = {
          first_name: text('first_name'),
          last_name: text('last_name'),
          email: text('email'),
          display_name: text('display_name'),
          preferred_name: text('preferred_name'),
          pronouns: text('pronouns'),
          phonetic_spelling: text('phonetic_spelling'),
          external_id: text('external_id'),
          language: text('language'),
          custom: Object.fromEntries(collection.custom_fields.map((f) => [f.key, formField(request, `custom_${f.key}`) ?? ''])),
        };
        try {
          const user = await createUser(deps, accountId, collection.id, createBodyOf(form, collection.custom_fields));
          auditObject(request, user.id);
          return redirect(reply, `/dashboard/collections/${collection.id}/people/${user.id}?notice=person-added`);
        } catch (error) {
          const refused = formErrorOf(error);
          if (!refused) throw error;
          return sendPage(reply, renderNew(request, collection, form, refused), refused.status);
        }
      },
    );

    app.get<PersonParams>('/collections/:id/people/:userId', { preHandler: requireSession }, async (request, reply) =>
      sendMediaPage(reply, await renderPerson(request, await load(request))),
    );

    // A subject-access request answered from the dashboard: the same ZIP as the API's user export.
    app.get<PersonParams>('/collections/:id/people/:userId/export', { preHandler: requireSession }, async (request, reply) => {
      const file = await exportPerson(deps, accountOf(request), request.params.id, request.params.userId, {
        exportedAt: deps.clock.now(),
        writeLinks: seesWriteLinks(request),
      });
      return reply
        .type('application/zip')
        .header('content-disposition', file.contentDisposition)
        .header('cache-control', 'private, no-store')
        .send(file.stream);
    });

    app.get<PersonParams>('/collections/:id/people/:userId/audio', { preHandler: requireSession }, async (request, reply) => {
      const audio = await openRecordingAudio(deps, accountOf(request), request.params.id, request.params.userId);
      return (
        reply
          .type(audio.mimeType)
          .header('content-length', audio.byteSize)
          .header('etag', audio.etag)
          // The session is needed to read it: private to this browser, and never kept on disk.
          .header('cache-control', 'private, no-store')
          .send(audio.stream)
      );
    });

    app.get<PersonParams>(
      '/collections/:id/people/:userId/delete-recording',
      { preHandler: requireSession },
      async (request, reply) => {
        const { collection, user, person } = await load(request);
        if (!user.has_recording) return redirect(reply, `/dashboard/collections/${collection.id}/people/${user.id}`);
        return sendPage(reply, deleteRecordingPage({ styleUrl, viewer: viewerOf(request), collection, person }));
      },
    );

    app.post<PersonParams>(
      '/collections/:id/people/:userId/delete-recording',
      { preHandler: requireSession, config: { audit: 'recording.deleted' } },
      async (request, reply) => {
        const { id, userId } = request.params;
        await deleteRecording(deps, accountOf(request), id, userId);
        return redirect(reply, `/dashboard/collections/${id}/people/${userId}?notice=recording-deleted`);
      },
    );

    app.get<PersonParams>('/collections/:id/people/:userId/delete', { preHandler: requireSession }, async (request, reply) => {
      const { collection, person } = await load(request);
      return sendPage(reply, deletePersonPage({ styleUrl, viewer: viewerOf(request), collection, person }));
    });

    app.post<PersonParams>(
      '/collections/:id/people/:userId/delete',
      { preHandler: requireSession, config: { audit: 'user.deleted' } },
      async (request, reply) => {
        const { id, userId } = request.params;
        await deleteUser(deps, accountOf(request), id, userId);
        return redirect(reply, `/dashboard/collections/${id}?notice=person-deleted`);
      },
    );
  };
}
