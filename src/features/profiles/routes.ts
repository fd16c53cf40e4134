/**
 * The public pages of a published profile under SITE_URL: `/e/<slug>`, its preview card, its
 * machine-readable document and its audio. Errors are answered as the agent API answers them
 * (agent-api/http.ts), and the card has its own per-address rate limit.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { contentRange, requestedRange } from '../../http/range.js';
import { sendPicture } from '../../http/picture-response.js';
import { registerRateLimit } from '../../http/rate-limit-fields.js';
import { applyPageSecurity } from '../../http/security-headers.js';
import { agentError } from '../agent-api/agent-errors.js';
import { answerAgentErrors } from '../agent-api/http.js';
import { entityCard, entityCardUrl } from './card.js';
import { findProfileByUrl, profileOembed } from './oembed.js';
import { findProfile } from './service.js';
import { PROFILE_OEMBED_PATH, profileUrls } from './urls.js';
import { gonePage, machineReadableProfile, PROFILE_CSP, profileLanguage, profilePage } from './views.js';

export const profileRoutes = (deps: Deps) => async (app: FastifyInstance) => {
  const urls = profileUrls(deps);
  answerAgentErrors(app, deps);
  // The plugin serves the image limit below.
  await registerRateLimit(app, 'profile-images', {
    ...deps.rateLimits.options('entities-images'),
    global: false,
    max: deps.config.imageRateLimitPerMinute,
    timeWindow: 60_000,
  });

  app.get<{ Params: { slug: string } }>('/e/:slug', { schema: { hide: true } }, async (request, reply) => {
    const found = await findProfile(deps, request.params.slug);
    applyPageSecurity(reply, { csp: PROFILE_CSP, https: urls.site.startsWith('https:') });
    if (found.kind === 'not_found') return reply.code(404).type('text/plain; charset=utf-8').send('No such profile.');
    if (found.kind === 'gone') return reply.code(410).type('text/html; charset=utf-8').send(gonePage(request.params.slug).value);
    const entity = found.entity;
    if (entity.visibility === 'unlisted') reply.header('x-robots-tag', 'noindex, nofollow');
    const page = { ...profileLanguage(request.headers['accept-language']), cardUrl: entityCardUrl(deps, entity) };
    return reply
      .header('cache-control', 'public, max-age=60')
      .header('vary', 'Accept-Language')
      .type('text/html; charset=utf-8')
      .send(profilePage(deps, entity, page).value);
  });
  // Plain-text errors and CORS, as the play links' oEmbed answers.
  app.get<{ Querystring: Record<string, string | undefined> }>(
    PROFILE_OEMBED_PATH,
    { schema: { hide: true } },
    async (request, reply) => {
      const { url, format, maxwidth, maxheight } = request.query;
      reply.header('access-control-allow-origin', '*');
      const text = (status: number, message: string) => reply.code(status).type('text/plain; charset=utf-8').send(message);
      if (format !== undefined && format !== 'json') return text(501, 'Only format=json is supported.');
      if (typeof url !== 'string' || url === '') return text(400, 'The url parameter is required.');
      const found = await findProfileByUrl(deps, url);
      if (found.kind === 'not_found') return text(404, 'No such profile.');
      if (found.kind === 'gone') return text(410, 'This profile was deleted.');
      return reply
        .header('cache-control', 'public, max-age=300')
        .type('application/json; charset=utf-8')
        .send(profileOembed(deps, found.entity, { maxwidth, maxheight }));
    },
  );

  const limitImages = app.rateLimit({
    max: deps.config.imageRateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => `entities-images:${request.ip}`,
    errorResponseBuilder: (_request, limit) => {
      const seconds = Math.max(1, Math.ceil(limit.ttl / 1000));
      return agentError('rate_limited', `Too many requests; retry in ${seconds} s.`, { retryAfter: seconds });
    },
  });
  app.get<{ Params: { slug: string }; Querystring: { v?: unknown } }>(
    '/e/:slug/card.png',
    { schema: { hide: true }, onRequest: limitImages },
    async (request, reply) => {
      const found = await findProfile(deps, request.params.slug);
      if (found.kind === 'gone') return reply.code(410).type('text/plain; charset=utf-8').send('This profile was deleted.');
      if (found.kind === 'not_found') return reply.code(404).type('text/plain; charset=utf-8').send('No such profile.');
      const version = typeof request.query.v === 'string' ? request.query.v : undefined;
      return sendPicture(request, reply, deps.cards.renderer, entityCard(deps, found.entity), {
        version,
        maxAgeSeconds: 300,
      });
    },
  );

  app.get<{ Params: { slug: string } }>(
    '/e/:slug/.well-known/service.json',
    { schema: { hide: true } },
    async (request, reply) => {
      const found = await findProfile(deps, request.params.slug);
      reply.header('access-control-allow-origin', '*');
      if (found.kind === 'not_found') return reply.code(404).send({ status: 'not_found', message: 'No such profile.' });
      if (found.kind === 'gone') return reply.code(410).send({ status: 'gone', message: 'This profile was deleted.' });
      if (found.entity.visibility === 'unlisted') reply.header('x-robots-tag', 'noindex, nofollow');
      return reply.header('cache-control', 'public, max-age=60').send(machineReadableProfile(deps, found.entity));
    },
  );

  app.get<{ Params: { slug: string } }>('/e/:slug/name.mp3', { schema: { hide: true } }, async (request, reply) => {
    const found = await findProfile(deps, request.params.slug);
    if (found.kind === 'gone') return reply.code(410).type('text/plain; charset=utf-8').send('This profile was deleted.');
    if (found.kind === 'not_found' || !found.entity.audio_blob_key) {
      return reply.code(404).type('text/plain; charset=utf-8').send('No such audio.');
    }
    return sendAudio(deps, request, reply, found.entity.audio_blob_key);
  });
};

/** Serves a stored MP3 with a strong ETag (the key embeds the content hash) and single byte ranges (RFC 9110). */
async function sendAudio(deps: Deps, request: FastifyRequest, reply: FastifyReply, key: string) {
  const info = await deps.blobs.stat(key);
  if (!info) return reply.code(404).type('text/plain; charset=utf-8').send('No such audio.');
  const etag = `"${key.split('/').pop()?.replace('.mp3', '')}"`;
  reply
    .header('accept-ranges', 'bytes')
    .header('etag', etag)
    .header('cache-control', 'public, max-age=3600')
    .header('access-control-allow-origin', '*')
    .type('audio/mpeg');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  const range = requestedRange(request.headers, info.size, etag);
  if (range === 'unsatisfiable') return reply.code(416).header('content-range', contentRange(range, info.size)).send();
  if (range) {
    const stream = await deps.blobs.stream(key, range);
    return reply
      .code(206)
      .header('content-range', contentRange(range, info.size))
      .header('content-length', String(range.end - range.start + 1))
      .send(stream);
  }
  const stream = await deps.blobs.stream(key);
  return reply.header('content-length', String(info.size)).send(stream);
}
