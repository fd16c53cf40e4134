/**
 * `/pronunciations/<token>.mp3`: the computer voice a person approved, public like a play link's
 * audio (the token is the capability; it changes with every approval, so the file is immutable).
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { openGuideAudio } from './service.js';

export function registerPronunciationPublicRoutes(app: FastifyInstance, deps: Deps): void {
  app.get<{ Params: { file: string } }>('/pronunciations/:file', { schema: { hide: true } }, async (request, reply) => {
    const token = /^(.+)\.mp3$/.exec(request.params.file)?.[1];
    const audio = token ? await openGuideAudio(deps, token) : null;
    if (!audio) return reply.code(404).type('text/plain; charset=utf-8').send('Not found.');
    return reply
      .type('audio/mpeg')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff')
      .header('x-robots-tag', 'noindex')
      .send(audio);
  });
}
