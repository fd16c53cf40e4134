/**
 * A person's pronunciation guide from the dashboard: admins set the name's languages and
 * suggest a guide (an organiser's suggestion: a guide the person wrote or approved is replaced
 * only with "Replace their guide" ticked), and any member hears a guide nobody approved, spoken
 * on demand through the session (never public, never stored). Nobody approves here: only the
 * person does, on their record page.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { GuideFormState } from '../../web/views/dashboard/person-guide.js';
import { guessAudio } from '../pronunciation/service.js';
import { type UpdateUserBody, UpdateUserBody as UpdateUserSchema } from '../users/schemas.js';
import { updateUser } from '../users/service.js';
import { checkBody, formErrorOf } from './forms.js';
import { formField, redirect, requireSession, sendMediaPage } from './http.js';
import { type PersonParams, personPages } from './person-routes.js';

const LANGUAGE_FIELDS = ['name_language', 'given_name_language', 'family_name_language'] as const;

/** The refusal as the form shows it: the API's 409 names its JSON field, the page names its checkbox. */
function guideRefusal(error: unknown, displayName: string) {
  if (error instanceof AppError && error.code === 'person_edited') {
    return {
      message: `${displayName} wrote or approved this guide. Tick “Replace their guide” to replace it (their approval is withdrawn), or ask them to change it.`,
      param: 'overwrite_person_edits',
      status: error.status,
    };
  }
  return formErrorOf(error);
}

export function guideRoutes(deps: Deps, options: { styleUrl: string }) {
  const { load, render } = personPages(deps, options.styleUrl);
  return async (app: FastifyInstance) => {
    const text = (request: FastifyRequest, name: string) => (formField(request, name) ?? '').trim();

    app.post<PersonParams>(
      '/collections/:id/people/:userId/pronunciation',
      { preHandler: requireSession, config: { audit: 'user.updated' } },
      async (request, reply) => {
        const loaded = await load(request);
        const values = {
          respelling: text(request, 'respelling'),
          not_like: text(request, 'not_like'),
          overwrite_person_edits: formField(request, 'overwrite_person_edits') === 'true' ? 'true' : '',
        };
        try {
          const body = checkBody<UpdateUserBody>(UpdateUserSchema, {
            pronunciation: {
              respelling: values.respelling,
              not_like: values.not_like === '' ? null : values.not_like,
              ...(values.overwrite_person_edits === 'true' ? { overwrite_person_edits: true } : {}),
            },
          });
          await updateUser(deps, loaded.accountId, loaded.collection.id, loaded.user.id, body);
        } catch (error) {
          const refused = guideRefusal(error, loaded.user.display_name);
          if (!refused) throw error;
          const guide: GuideFormState = { form: 'guide', error: refused, values };
          return sendMediaPage(reply, await render(request, loaded, { guide }), refused.status);
        }
        return redirect(reply, `/dashboard/collections/${loaded.collection.id}/people/${loaded.user.id}?notice=guide-suggested`);
      },
    );

    app.post<PersonParams>(
      '/collections/:id/people/:userId/name-languages',
      { preHandler: requireSession, config: { audit: 'user.updated' } },
      async (request, reply) => {
        const loaded = await load(request);
        const values = Object.fromEntries(LANGUAGE_FIELDS.map((field) => [field, text(request, field)]));
        try {
          const body = checkBody<UpdateUserBody>(
            UpdateUserSchema,
            Object.fromEntries(LANGUAGE_FIELDS.map((field) => [field, values[field] === '' ? null : values[field]])),
          );
          await updateUser(deps, loaded.accountId, loaded.collection.id, loaded.user.id, body);
        } catch (error) {
          const refused = formErrorOf(error);
          if (!refused) throw error;
          const guide: GuideFormState = { form: 'languages', error: refused, values };
          return sendMediaPage(reply, await render(request, loaded, { guide }), refused.status);
        }
        return redirect(
          reply,
          `/dashboard/collections/${loaded.collection.id}/people/${loaded.user.id}?notice=languages-updated`,
        );
      },
    );

    // The computer's guess, spoken for the reader and the person page: made once per guide, private to the session.
    app.get<PersonParams>('/collections/:id/people/:userId/guide.mp3', { preHandler: requireSession }, async (request, reply) => {
      const { user } = await load(request);
      const { ipa, language } = user.pronunciation;
      if (!ipa) throw new AppError('resource_missing', 'This person has no pronunciation guide yet.');
      const mp3 = await guessAudio(deps, user.id, { ipa, language: language ?? 'en' });
      return reply.type('audio/mpeg').header('cache-control', 'private, no-store').send(mp3);
    });
  };
}
