/**
 * Public play-link URLs (no API key): `/p/<token>` (player page), `/p/<token>.mp3` (302 to the
 * audio), `/p/<token>/embed`, `/p/<token>/meta`, `/p/<token>/qr.svg`, the app-served immutable
 * audio `/p/<token>/audio/<hash>.<ext>` (disk storage), and `/oembed`. The card and badge images are in
 * image-routes.ts.
 * Unknown and removed tokens get the same 404. No route sets a cookie.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import QRCode from 'qrcode';
import type { Deps } from '../../deps.js';
import { contentRange, requestedRange } from '../../http/range.js';
import { applyPageSecurity } from '../../http/security-headers.js';
import { negotiateLocale, textDirection, translator } from '../../i18n/index.js';
import { escapeHtml } from '../../web/html.js';
import { embedNotFound, embedWidget } from '../../web/views/embed.js';
import { playerPage, playLinkNotFoundPage } from '../../web/views/player.js';
import { isPlayStart } from './audio-response.js';
import type { ResolvedPlayLink } from './cache.js';
import { REDIRECT_HEADERS } from './fast-path.js';
import { flushPlayCounts, recordPlay } from './play-counts.js';
import { appAudioPath, durationSeconds, metaOf, resolvePlayLink } from './service.js';
import { cardUrlOf, signatureHtmlOf } from './images.js';
import { embedHtmlOf, oembedUrlFor, playLinkUrls, tokenFromPlayLinkUrl } from './urls.js';

type Params = { Params: { token: string } };

const IMMUTABLE = 'public, max-age=31536000, immutable';

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** CSP directives of our pages: own scripts and styles only, audio from us or the audio host. */
function pageCsp(deps: Deps, link: ResolvedPlayLink | null): string[] {
  const media = new Set(["'self'", originOf(deps.config.baseUrl) ?? "'self'"]);
  const audioOrigin = link ? originOf(link.audioLocation) : null;
  if (audioOrigin) media.add(audioOrigin);
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `media-src ${[...media].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
  ];
}

/** Headers of the player (`frameable: false`) and embed (`frameable: true`) pages. */
function pageHeaders(
  reply: FastifyReply,
  deps: Deps,
  page: { csp: string[]; frameable: boolean },
  indexable: boolean,
): FastifyReply {
  applyPageSecurity(reply, {
    ...page,
    referrerPolicy: 'strict-origin-when-cross-origin',
    https: deps.config.baseUrl.startsWith('https:'),
  })
    .header('cache-control', 'public, max-age=60')
    .type('text/html; charset=utf-8');
  if (!indexable) reply.header('x-robots-tag', 'noindex');
  return reply;
}

const notFoundText = (reply: FastifyReply) =>
  reply
    .code(404)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .type('text/plain; charset=utf-8')
    .send('Not found');

const notFoundJson = (reply: FastifyReply, requestId: string) =>
  reply
    .code(404)
    .header('cache-control', 'no-store')
    .header('access-control-allow-origin', '*')
    .send({
      error: {
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: 'No such play link.',
        request_id: requestId,
      },
    });

/** The visitor's language (else the collection's), its direction and the player's messages. */
function pageLanguage(acceptLanguage: string | undefined, collectionLanguage: string | null) {
  const locale = negotiateLocale(acceptLanguage, collectionLanguage);
  return { locale, dir: textDirection(locale), t: translator(locale, 'player') };
}

export function registerPlayLinkPublicRoutes(app: FastifyInstance, deps: Deps): void {
  const { baseUrl } = deps.config;
  const assets = deps.assets;
  const resolve = async (token: string) => resolvePlayLink(deps, token);

  app.get<Params>('/p/:token', { schema: { hide: true } }, async (request, reply) => {
    const raw = request.params.token;
    if (raw.endsWith('.mp3')) {
      const link = await resolve(raw.slice(0, -4));
      if (!link) return notFoundText(reply);
      if (isPlayStart(request.method, request.headers.range)) recordPlay(deps, link.token);
      return reply
        .code(302)
        .headers({ ...REDIRECT_HEADERS, location: link.audioLocation })
        .send();
    }
    const link = await resolve(raw);
    if (!link) {
      const page = playLinkNotFoundPage({
        ...pageLanguage(request.headers['accept-language'], null),
        styleUrl: assets.url('player.css'),
      });
      return pageHeaders(reply.code(404), deps, { csp: pageCsp(deps, null), frameable: false }, false)
        .header('cache-control', 'no-store')
        .send(page.value);
    }
    const urls = playLinkUrls(baseUrl, link.token);
    const language = pageLanguage(request.headers['accept-language'], link.language);
    const page = playerPage({
      ...language,
      tc: translator(language.locale, 'common'),
      displayName: link.displayName,
      preferredName: link.preferredName,
      pronouns: link.pronouns,
      phoneticSpelling: link.phoneticSpelling,
      organisation: link.organisation,
      logoUrl: link.logoUrl,
      brandStyleUrl: link.brandStyleUrl,
      durationSeconds: durationSeconds(link.durationMs),
      playLink: urls.play_link,
      playUrl: urls.play_url,
      embedUrl: urls.embed_url,
      embedHtml: embedHtmlOf(baseUrl, link.token, link.displayName),
      oembedUrl: oembedUrlFor(baseUrl, urls.play_link),
      qrUrl: `${urls.play_link}/qr.svg`,
      cardUrl: cardUrlOf(deps, urls.play_link, link),
      badgeUrl: `${urls.play_link}/badge.png?scale=2`,
      signatureHtml: signatureHtmlOf(urls.play_link, link, escapeHtml),
      twitterSite: deps.config.twitterSite,
      mimeType: link.mimeType,
      allowIndexing: link.allowIndexing,
      scriptUrl: assets.url('player.ts'),
      styleUrl: assets.url('player.css'),
    });
    // The page's language follows Accept-Language: shared caches must keep one copy per language.
    return pageHeaders(reply, deps, { csp: pageCsp(deps, link), frameable: false }, link.allowIndexing)
      .header('vary', 'Accept-Language')
      .send(page.value);
  });

  app.get<Params>('/p/:token/embed', { schema: { hide: true } }, async (request, reply) => {
    const link = await resolve(request.params.token);
    const embed = { csp: pageCsp(deps, link), frameable: true };
    if (!link) {
      const page = embedNotFound({
        ...pageLanguage(request.headers['accept-language'], null),
        styleUrl: assets.url('embed.css'),
      });
      return pageHeaders(reply.code(404), deps, embed, false).header('cache-control', 'no-store').send(page.value);
    }
    const urls = playLinkUrls(baseUrl, link.token);
    const widget = embedWidget({
      ...pageLanguage(request.headers['accept-language'], link.language),
      displayName: link.displayName,
      playUrl: urls.play_url,
      playLink: urls.play_link,
      scriptUrl: assets.url('embed.ts'),
      styleUrl: assets.url('embed.css'),
      brandStyleUrl: link.brandStyleUrl,
    });
    return pageHeaders(reply, deps, embed, false).header('vary', 'Accept-Language').send(widget.value);
  });

  app.get<Params>('/p/:token/meta', { schema: { hide: true } }, async (request, reply) => {
    const link = await resolve(request.params.token);
    if (!link) return notFoundJson(reply, request.id);
    return reply
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'public, max-age=15')
      .header('x-robots-tag', 'noindex')
      .send(metaOf(deps, link));
  });

  app.get<Params>('/p/:token/qr.svg', { schema: { hide: true } }, async (request, reply) => {
    const link = await resolve(request.params.token);
    if (!link) return notFoundText(reply);
    const svg = await QRCode.toString(playLinkUrls(baseUrl, link.token).play_link, {
      type: 'svg',
      margin: 2,
      errorCorrectionLevel: 'M',
    });
    return reply
      .type('image/svg+xml')
      .header('cache-control', 'public, max-age=3600')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-robots-tag', 'noindex')
      .send(svg);
  });

  app.get<{ Params: { token: string; file: string } }>(
    '/p/:token/audio/:file',
    { schema: { hide: true } },
    async (request, reply) => {
      const link = await resolve(request.params.token);
      // Content-addressed: a URL of older audio (before a re-record) is gone, not redirected.
      if (!link || appAudioPath(link.token, link.contentHash, link.blobKey) !== `/p/${link.token}/audio/${request.params.file}`) {
        return notFoundText(reply);
      }
      const etag = `"${link.contentHash}"`;
      reply
        .header('etag', etag)
        .header('cache-control', IMMUTABLE)
        .header('accept-ranges', 'bytes')
        .header('access-control-allow-origin', '*')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('x-content-type-options', 'nosniff')
        .header('x-robots-tag', 'noindex');
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
        return reply.code(304).send();
      }
      const range = requestedRange(request.headers, link.byteSize, etag);
      if (range === 'unsatisfiable') {
        return reply.code(416).header('content-range', contentRange(range, link.byteSize)).send();
      }
      const stream = await deps.blobs.stream(link.blobKey, range ?? undefined);
      if (!stream) return notFoundText(reply);
      reply.type(link.mimeType);
      if (range) {
        reply
          .code(206)
          .header('content-range', contentRange(range, link.byteSize))
          .header('content-length', range.end - range.start + 1);
      } else {
        reply.header('content-length', link.byteSize);
      }
      if (request.method === 'HEAD') {
        stream.destroy();
        return reply.send();
      }
      return reply.send(stream);
    },
  );

  app.get<{ Querystring: Record<string, string | undefined> }>('/oembed', { schema: { hide: true } }, async (request, reply) => {
    const { url, format, maxwidth, maxheight } = request.query;
    reply.header('access-control-allow-origin', '*');
    if (format !== undefined && format !== 'json') {
      return reply.code(501).type('text/plain; charset=utf-8').send('Only format=json is supported.');
    }
    if (typeof url !== 'string' || url === '') {
      return reply.code(400).type('text/plain; charset=utf-8').send('The url parameter is required.');
    }
    const token = tokenFromPlayLinkUrl(baseUrl, url);
    const link = token ? await resolve(token) : null;
    // The widget is a fixed 200x40: a consumer that cannot fit it gets 404, as for an unknown URL.
    const tooSmall = (limit: string | undefined, size: number) => limit !== undefined && Number(limit) < size;
    if (!link || tooSmall(maxwidth, 200) || tooSmall(maxheight, 40)) return notFoundText(reply);
    return reply.header('cache-control', 'public, max-age=300').send({
      version: '1.0',
      type: 'rich',
      title: `How to say ${link.displayName}`,
      provider_name: 'voicename',
      provider_url: baseUrl,
      cache_age: 3600,
      html: embedHtmlOf(baseUrl, link.token, link.displayName),
      width: 200,
      height: 40,
    });
  });

  // Play counts: written in batches, never one database write per play.
  let timer: NodeJS.Timeout | undefined;
  const flush = (): Promise<void> =>
    flushPlayCounts(deps).then(
      () => undefined,
      (err: unknown) => deps.logger.error({ err }, 'play count flush failed; will retry'),
    );
  app.addHook('onReady', async () => {
    timer = setInterval(() => void flush(), deps.config.playLinks.countFlushMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    await flush();
  });
}
