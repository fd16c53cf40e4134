/**
 * The collection settings page: the same `PATCH /v1/collections/{id}` body, checked by the same
 * schema and service, from a plain form.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { Deps } from '../../deps.js';
import { collectionSettingsPage, type SettingsForm } from '../../web/views/dashboard/collection-settings.js';
import type { FormError } from '../../web/views/dashboard/collections.js';
import { type Collection, INVITATION_PLACEHOLDERS, UpdateCollectionBody } from '../collections/schemas.js';
import { getCollection, updateCollection } from '../collections/service.js';
import { checkBody, formErrorOf, viewerOf } from './forms.js';
import { formField, redirect, requireSession, sendPage, sessionOf } from './http.js';

export const settingsFormOf = (collection: Collection): SettingsForm => ({
  deadline: collection.deadline ?? '',
  language: collection.language,
  self_edit: collection.self_edit,
  organisation_name: collection.branding.organisation_name ?? '',
  intro: collection.branding.intro ?? '',
  privacy_note: collection.branding.privacy_note ?? '',
  sender_name: collection.invitation_settings.sender_name ?? '',
  reply_to: collection.invitation_settings.reply_to ?? '',
  reminders: collection.invitation_settings.reminders.join(', '),
  message: collection.invitation_settings.message ?? '',
  reminder_message: collection.invitation_settings.reminder_message ?? '',
});

const orNull = (value: string): string | null => (value.trim() === '' ? null : value);

/** "7, 2" → [7, 2]; anything but whole numbers is refused with the field named. */
function remindersOf(text: string): number[] {
  const parts = text.split(/[\s,;]+/).filter((part) => part !== '');
  if (parts.some((part) => !/^\d{1,3}$/.test(part))) {
    throw new AppError('parameter_invalid', 'Reminders are whole numbers of days before the deadline, e.g. 7, 2.', {
      param: 'invitation_settings.reminders',
    });
  }
  return parts.map(Number);
}

export function settingsRoutes(deps: Deps, options: { styleUrl: string }) {
  const { styleUrl } = options;
  return async (app: FastifyInstance) => {
    const accountOf = (request: FastifyRequest) => sessionOf(request).account.id;
    const render = (request: FastifyRequest, collection: Collection, form: SettingsForm, error: FormError | null = null) =>
      collectionSettingsPage({
        styleUrl,
        viewer: viewerOf(request),
        collection,
        form,
        placeholders: INVITATION_PLACEHOLDERS,
        error,
      });

    app.get<{ Params: { id: string } }>('/collections/:id/settings', { preHandler: requireSession }, async (request, reply) => {
      const collection = await getCollection(deps, accountOf(request), request.params.id);
      return sendPage(reply, render(request, collection, settingsFormOf(collection)));
    });

    app.post<{ Params: { id: string } }>(
      '/collections/:id/settings',
      { preHandler: requireSession, config: { audit: 'collection.updated' } },
      async (request, reply) => {
        const accountId = accountOf(request);
        const collection = await getCollection(deps, accountId, request.params.id);
        const field = (name: keyof SettingsForm) => formField(request, name) ?? '';
        const form: SettingsForm = {
          deadline: field('deadline').trim(),
          language: field('language'),
          self_edit: formField(request, 'self_edit') !== undefined,
          organisation_name: field('organisation_name'),
          intro: field('intro'),
          privacy_note: field('privacy_note'),
          sender_name: field('sender_name'),
          reply_to: field('reply_to').trim(),
          reminders: field('reminders'),
          message: field('message'),
          reminder_message: field('reminder_message'),
        };
        try {
          const body = checkBody<UpdateCollectionBody>(UpdateCollectionBody, {
            deadline: orNull(form.deadline),
            language: form.language,
            self_edit: form.self_edit,
            branding: {
              organisation_name: orNull(form.organisation_name),
              intro: orNull(form.intro),
              privacy_note: orNull(form.privacy_note),
            },
            invitation_settings: {
              sender_name: orNull(form.sender_name),
              reply_to: orNull(form.reply_to),
              reminders: remindersOf(form.reminders),
              message: orNull(form.message),
              reminder_message: orNull(form.reminder_message),
            },
          });
          await updateCollection(deps, accountId, collection.id, body);
        } catch (error) {
          const refused = formErrorOf(error);
          if (!refused) throw error;
          return sendPage(reply, render(request, collection, form, refused), refused.status);
        }
        return redirect(reply, `/dashboard/collections/${collection.id}?notice=settings-updated`);
      },
    );
  };
}
