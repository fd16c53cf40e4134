/**
 * The collection settings page: the same `PATCH /v1/collections/{id}` body, checked by the same
 * schema and service, from a plain form. The logo's controls are in that same form (a
 * `multipart/form-data` one), so uploading or removing a logo sends what was typed too and the
 * page comes back with it; a logo chosen before "Save settings" is saved with the rest.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { Deps } from '../../deps.js';
import { collectionSettingsPage, PICKER_DEFAULT, type SettingsForm } from '../../web/views/dashboard/collection-settings.js';
import type { FormError } from '../../web/views/dashboard/collections.js';
import { type Collection, INVITATION_PLACEHOLDERS, UpdateCollectionBody } from '../collections/schemas.js';
import { checkBrandColor } from '../collections/brand-color.js';
import { getCollection, updateCollection } from '../collections/service.js';
import { removeCollectionLogo, setCollectionLogo } from '../collections/logo-service.js';
import { MAX_LOGO_BYTES } from '../../images/logo.js';
import { acceptMultipartForms, checkBody, formErrorOf, uploadedFile, viewerOf } from './forms.js';
import type { UploadedFile } from './multipart.js';
import { formField, redirect, requireSession, sendPage, sessionOf } from './http.js';

export const settingsFormOf = (collection: Collection): SettingsForm => ({
  deadline: collection.deadline ?? '',
  language: collection.language,
  self_edit: collection.self_edit,
  organisation_name: collection.branding.organisation_name ?? '',
  intro: collection.branding.intro ?? '',
  privacy_note: collection.branding.privacy_note ?? '',
  brand_color: collection.branding.brand_color ?? '',
  sender_name: collection.invitation_settings.sender_name ?? '',
  reply_to: collection.invitation_settings.reply_to ?? '',
  reminders: collection.invitation_settings.reminders.join(', '),
  message: collection.invitation_settings.message ?? '',
  reminder_message: collection.invitation_settings.reminder_message ?? '',
});

/** The settings as typed in the page's form (a field not sent reads as empty). */
export function typedSettingsForm(request: FastifyRequest): SettingsForm {
  const field = (name: keyof SettingsForm) => formField(request, name) ?? '';
  return {
    deadline: field('deadline').trim(),
    language: field('language'),
    self_edit: formField(request, 'self_edit') !== undefined,
    organisation_name: field('organisation_name'),
    intro: field('intro'),
    privacy_note: field('privacy_note'),
    brand_color: typedBrandColor(request),
    sender_name: field('sender_name'),
    reply_to: field('reply_to').trim(),
    reminders: field('reminders'),
    message: field('message'),
    reminder_message: field('reminder_message'),
  };
}

/**
 * The brand colour the form asks for: the text field when it was changed (emptied: none), else
 * the colour picker when it was moved off what it showed, else what was there.
 */
function typedBrandColor(request: FastifyRequest): string {
  const text = (formField(request, 'brand_color') ?? '').trim();
  const shown = formField(request, 'brand_color_shown') ?? '';
  const picker = (formField(request, 'brand_color_picker') ?? '').toLowerCase();
  if (text !== shown.trim()) return text;
  const pickerShown = /^#[0-9a-fA-F]{6}$/.test(shown) ? shown.toLowerCase() : PICKER_DEFAULT;
  return picker !== '' && picker !== pickerShown ? picker : text;
}

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

type Params = { Params: { id: string } };

/** The logo, the form's text fields and the multipart framing. */
const SETTINGS_BODY_LIMIT = MAX_LOGO_BYTES + 64 * 1024;

/** Stores an uploaded logo through the same service as `PUT /v1/collections/{id}/logo`. */
async function storeLogo(deps: Deps, accountId: string, collectionId: string, file: UploadedFile | undefined) {
  if (!file || file.data.length === 0) throw new AppError('image_empty', 'Choose a PNG, JPEG or WebP file first.');
  if (file.data.length > MAX_LOGO_BYTES) throw new AppError('payload_too_large', 'The logo is larger than 1 MB.');
  await setCollectionLogo(deps, accountId, collectionId, file.data);
}

/** The settings page's form sent this request (its language select is always sent). */
const fromSettingsForm = (request: FastifyRequest) => formField(request, 'language') !== undefined;

export function settingsRoutes(deps: Deps, options: { styleUrl: string }) {
  const { styleUrl } = options;
  return async (app: FastifyInstance) => {
    acceptMultipartForms(app, SETTINGS_BODY_LIMIT);
    const accountOf = (request: FastifyRequest) => sessionOf(request).account.id;
    const render = (
      request: FastifyRequest,
      collection: Collection,
      form: SettingsForm,
      messages: { error?: FormError | null; logoError?: string | null; logoNotice?: string | null } = {},
    ) =>
      collectionSettingsPage({
        styleUrl,
        viewer: viewerOf(request),
        collection,
        form,
        placeholders: INVITATION_PLACEHOLDERS,
        ...messages,
      });

    app.get<Params>('/collections/:id/settings', { preHandler: requireSession }, async (request, reply) => {
      const collection = await getCollection(deps, accountOf(request), request.params.id);
      return sendPage(reply, render(request, collection, settingsFormOf(collection)));
    });

    app.post<Params>(
      '/collections/:id/settings',
      { preHandler: requireSession, bodyLimit: SETTINGS_BODY_LIMIT, config: { audit: 'collection.updated' } },
      async (request, reply) => {
        const accountId = accountOf(request);
        const collection = await getCollection(deps, accountId, request.params.id);
        const form = typedSettingsForm(request);
        try {
          // Before the schema: its pattern's message is generic; this one says how to write a colour.
          checkBrandColor(orNull(form.brand_color));
          const body = checkBody<UpdateCollectionBody>(UpdateCollectionBody, {
            deadline: orNull(form.deadline),
            language: form.language,
            self_edit: form.self_edit,
            branding: {
              organisation_name: orNull(form.organisation_name),
              intro: orNull(form.intro),
              privacy_note: orNull(form.privacy_note),
              brand_color: orNull(form.brand_color),
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
          return sendPage(reply, render(request, collection, form, { error: refused }), refused.status);
        }
        const logo = uploadedFile(request, 'logo');
        if (logo && logo.data.length > 0) {
          try {
            await storeLogo(deps, accountId, collection.id, logo);
          } catch (error) {
            const refused = formErrorOf(error);
            if (!refused) throw error;
            const saved = await getCollection(deps, accountId, collection.id);
            const logoError = `The other settings are saved; the logo is not: ${refused.message}`;
            return sendPage(reply, render(request, saved, form, { logoError }), refused.status);
          }
        }
        return redirect(reply, `/dashboard/collections/${collection.id}?notice=settings-updated`);
      },
    );

    // The logo's buttons submit the whole settings form, so what was typed and not yet saved
    // comes back on the page (unsaved still: only "Save settings" saves it). A request without
    // the form's fields (another client) is answered with the redirect it always was.
    const afterLogoChange = async (request: FastifyRequest<Params>, reply: FastifyReply, logoNotice: string) => {
      if (!fromSettingsForm(request)) return redirect(reply, `/dashboard/collections/${request.params.id}/settings#logo`);
      const collection = await getCollection(deps, accountOf(request), request.params.id);
      return sendPage(reply, render(request, collection, typedSettingsForm(request), { logoNotice }));
    };

    app.post<Params>(
      '/collections/:id/logo',
      { preHandler: requireSession, bodyLimit: SETTINGS_BODY_LIMIT, config: { audit: 'collection.logo_set' } },
      async (request, reply) => {
        const accountId = accountOf(request);
        const collection = await getCollection(deps, accountId, request.params.id);
        try {
          await storeLogo(deps, accountId, collection.id, uploadedFile(request, 'logo'));
        } catch (error) {
          const refused = formErrorOf(error);
          if (!refused) throw error;
          const form = fromSettingsForm(request) ? typedSettingsForm(request) : settingsFormOf(collection);
          return sendPage(reply, render(request, collection, form, { logoError: refused.message }), refused.status);
        }
        return afterLogoChange(
          request,
          reply,
          'Logo uploaded. Your other changes are not saved until you press "Save settings".',
        );
      },
    );

    app.post<Params>(
      '/collections/:id/logo/remove',
      { preHandler: requireSession, bodyLimit: SETTINGS_BODY_LIMIT, config: { audit: 'collection.logo_removed' } },
      async (request, reply) => {
        await removeCollectionLogo(deps, accountOf(request), request.params.id);
        return afterLogoChange(request, reply, 'Logo removed. Your other changes are not saved until you press "Save settings".');
      },
    );
  };
}
