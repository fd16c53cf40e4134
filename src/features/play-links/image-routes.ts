/**
 * The pictures of a play link, rate-limited per client address (rendering costs CPU):
 * - `GET /p/<token>/card.png[?v=<key>]`: the 1200x630 preview card (`og:image`);
 * - `GET /p/<token>/badge.png[?theme=light|dark][&scale=1|2|3]`: the 180x40 signature badge
 *   (360x80 at `scale=2`), light by default. Other query parameters are ignored; a bad `theme`
 *   or `scale` is a 400.
 * Unknown and removed tokens get the same 404 as the other public URLs.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { BADGE_SCALES, BADGE_THEMES, type BadgeScale, type BadgeTheme } from '../../cards/index.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { sendPicture } from '../../http/picture-response.js';
import { registerRateLimit } from '../../http/rate-limit-fields.js';
import { playLinkBadge, playLinkCard } from './images.js';
import { resolvePlayLink } from './service.js';

type ImageRequest = { Params: { token: string }; Querystring: Record<string, string | string[] | undefined> };

const plainText = (reply: FastifyReply, status: number, text: string) =>
  reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .type('text/plain; charset=utf-8')
    .send(text);

/** `theme` and `scale` of a badge request, or the reason they are refused. */
export function badgeOptions(query: ImageRequest['Querystring']): { theme: BadgeTheme; scale: BadgeScale } | string {
  const theme = query.theme ?? 'light';
  const scale = query.scale ?? '1';
  if (typeof theme !== 'string' || !(BADGE_THEMES as readonly string[]).includes(theme)) {
    return `theme must be ${BADGE_THEMES.join(' or ')}.`;
  }
  if (typeof scale !== 'string' || !(BADGE_SCALES as readonly number[]).map(String).includes(scale)) {
    return `scale must be ${BADGE_SCALES.join(', ')}.`;
  }
  return { theme: theme as BadgeTheme, scale: Number(scale) as BadgeScale };
}

export const playLinkImageRoutes =
  (deps: Deps): FastifyPluginAsync =>
  async (app) => {
    await registerRateLimit(app, 'images', {
      ...deps.rateLimits.options('images'),
      max: deps.config.imageRateLimitPerMinute,
      timeWindow: 60_000,
      errorResponseBuilder: (_request, context) =>
        new AppError('rate_limited', `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s.`, {
          headers: { 'retry-after': String(Math.ceil(context.ttl / 1000)) },
        }),
    });

    app.get<ImageRequest>('/p/:token/card.png', { schema: { hide: true } }, async (request, reply) => {
      const link = await resolvePlayLink(deps, request.params.token);
      if (!link) return plainText(reply, 404, 'Not found');
      const version = typeof request.query.v === 'string' ? request.query.v : undefined;
      return sendPicture(request, reply, deps.cards.renderer, playLinkCard(deps, link), { version, maxAgeSeconds: 300 });
    });

    app.get<ImageRequest>('/p/:token/badge.png', { schema: { hide: true } }, async (request, reply) => {
      const link = await resolvePlayLink(deps, request.params.token);
      if (!link) return plainText(reply, 404, 'Not found');
      const options = badgeOptions(request.query);
      if (typeof options === 'string') return plainText(reply, 400, options);
      const version = typeof request.query.v === 'string' ? request.query.v : undefined;
      return sendPicture(request, reply, deps.cards.renderer, playLinkBadge(deps, link, options), {
        version,
        maxAgeSeconds: 86_400,
      });
    });
  };
