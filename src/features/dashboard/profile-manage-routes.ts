/** A claimed agent profile's owner settings in the dashboard (src/features/profile-ownership/settings-service.ts). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { VOICE_STYLES } from '../../speech/synthesizer.js';
import { type ManagedProfile, profileManagePage } from '../../web/views/dashboard/profile-manage.js';
import {
  deleteOwnedProfile,
  type OwnedEntity,
  regenerateProfileAudio,
  updateProfileDetails,
} from '../profile-ownership/settings-service.js';
import { findOwnedEntity } from '../profile-ownership/service.js';
import { profileUrls } from '../profiles/urls.js';
import { viewerOf } from './forms.js';
import { formField, redirect, requireSession, sendPage, sessionOf } from './http.js';

type Params = { Params: { slug: string } };

const VOICES = Object.entries(VOICE_STYLES).map(([name, style]) => ({ name, description: style.description }));

export function profileManageRoutes(deps: Deps, options: { styleUrl: string }) {
  return async (app: FastifyInstance) => {
    const accountOf = (request: FastifyRequest) => sessionOf(request).account.id;
    const managed = (entity: OwnedEntity): ManagedProfile => ({
      slug: entity.slug,
      name: entity.name,
      url: profileUrls(deps).profile(entity.slug),
      description: entity.description,
      intro: entity.intro,
      avatar_url: entity.avatar_url,
      source_url: entity.source_url,
      voice_style: entity.voice_style,
    });
    const show = async (
      request: FastifyRequest<Params>,
      reply: FastifyReply,
      extra: { error?: { form: 'details' | 'voice'; message: string }; draft?: Partial<ManagedProfile> } = {},
      status = 200,
    ) => {
      const entity = await findOwnedEntity(deps, accountOf(request), request.params.slug);
      return sendPage(
        reply,
        profileManagePage({
          styleUrl: options.styleUrl,
          viewer: viewerOf(request),
          profile: managed(entity),
          voiceStyles: VOICES,
          ...extra,
        }),
        status,
      );
    };
    const done = (reply: FastifyReply) => redirect(reply, '/dashboard/profiles?notice=profile-updated');

    app.get<Params>('/profiles/:slug/manage', { preHandler: requireSession }, async (request, reply) => show(request, reply));

    app.post<Params>(
      '/profiles/:slug/details',
      { preHandler: requireSession, config: { audit: 'profile.updated' } },
      async (request, reply) => {
        const text = (name: string) => (formField(request, name) ?? '').trim();
        const details = {
          description: text('description'),
          intro: text('intro') || null,
          avatar_url: text('avatar_url') || null,
          source_url: text('source_url') || null,
        };
        try {
          await updateProfileDetails(deps, accountOf(request), request.params.slug, details);
        } catch (error) {
          if (error instanceof AppError && error.code === 'parameter_invalid') {
            return show(request, reply, { error: { form: 'details', message: error.message }, draft: details }, 400);
          }
          throw error;
        }
        return done(reply);
      },
    );

    app.post<Params>(
      '/profiles/:slug/voice',
      { preHandler: requireSession, config: { audit: 'profile.audio_regenerated' } },
      async (request, reply) => {
        try {
          await regenerateProfileAudio(deps, accountOf(request), request.params.slug, formField(request, 'voice_style') ?? '');
        } catch (error) {
          if (error instanceof AppError && error.code === 'parameter_invalid') {
            return show(request, reply, { error: { form: 'voice', message: error.message } }, 400);
          }
          throw error;
        }
        return done(reply);
      },
    );

    app.post<Params>(
      '/profiles/:slug/delete',
      { preHandler: requireSession, config: { audit: 'profile.deleted' } },
      async (request, reply) => {
        await deleteOwnedProfile(deps, accountOf(request), request.params.slug);
        return redirect(reply, '/dashboard/profiles?notice=profile-deleted');
      },
    );
  };
}
