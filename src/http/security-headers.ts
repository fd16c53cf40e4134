/**
 * The security headers of every HTML page (player, embed, recorder, dashboard, entity profile,
 * API docs), from one place so a page cannot forget one. Pages differ only where they must:
 * what their CSP allows, whether other sites may frame them (the embed widget), whether they
 * use the microphone (the recorder), and their referrer policy.
 *
 * @fastify/helmet writes the fixed headers (framing, sniffing, referrer, isolation, HSTS). Two are
 * written here instead: the Content-Security-Policy, which is per page and for some pages per
 * answer (the player's audio origin, dashboard pages with a script), in the `a; b` form every page
 * has always sent (helmet joins directives as `a;b`); and Permissions-Policy, which helmet lacks.
 */
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';

type HelmetOptions = NonNullable<Parameters<FastifyReply['helmet']>[0]>;

export interface PageSecurity {
  /** The page's Content-Security-Policy directives, without `frame-ancestors` (added here from `frameable`). */
  csp: readonly string[];
  /** Whether any site may frame the page. Only the embed widget is; every other page refuses. */
  frameable?: boolean;
  /**
   * The sites that may frame this page when not every site may: an LMS showing a course's pages
   * in its own (an LTI launch). Empty or absent: no site may.
   */
  framedBy?: readonly string[];
  /** Whether the page records from the microphone; every other powerful feature stays off. */
  microphone?: boolean;
  /**
   * `no-referrer` unless the page says otherwise; the play-link pages send their origin (never
   * the token's path) on cross-origin requests.
   */
  referrerPolicy?: 'no-referrer' | 'strict-origin-when-cross-origin';
  /** The page is served over https: browsers are told to keep using https for a year. */
  https: boolean;
}

export const FRAME_ANCESTORS_NONE = "frame-ancestors 'none'";

/**
 * What helmet sends on every page. Its other defaults (Origin-Agent-Cluster, X-DNS-Prefetch-Control,
 * X-Download-Options, X-Permitted-Cross-Domain-Policies, X-XSS-Protection: 0) are off: pages send
 * the set they always have, and the CSP is ours.
 */
const HELMET_BASE: HelmetOptions = {
  contentSecurityPolicy: false,
  crossOriginEmbedderPolicy: false,
  crossOriginOpenerPolicy: { policy: 'same-origin' },
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xPoweredBy: false,
  xXssProtection: false,
};

/**
 * Registers @fastify/helmet for the whole application without applying it anywhere: JSON, audio
 * and images keep their own headers, and each page asks for its own with `applyPageSecurity`.
 */
export async function registerPageSecurity(app: FastifyInstance): Promise<void> {
  await app.register(fastifyHelmet, { global: false, ...HELMET_BASE });
}

/** A page's Content-Security-Policy header: its directives, then who may frame it. */
export function contentSecurityPolicy(
  directives: readonly string[],
  frameable = false,
  framedBy: readonly string[] = [],
): string {
  const ancestors = frameable
    ? 'frame-ancestors *'
    : framedBy.length > 0
      ? `frame-ancestors ${framedBy.join(' ')}`
      : FRAME_ANCESTORS_NONE;
  return [...directives, ancestors].join('; ');
}

/** Sets every security header of `page` on the reply. */
export function applyPageSecurity(reply: FastifyReply, page: PageSecurity): FastifyReply {
  const frameable = page.frameable === true;
  const framedBy = page.framedBy ?? [];
  reply.helmet({
    // X-Frame-Options for browsers without frame-ancestors; it has no "any origin" or "these
    // origins" value, so a page some site may frame simply omits it.
    xFrameOptions: frameable || framedBy.length > 0 ? false : { action: 'deny' },
    referrerPolicy: { policy: page.referrerPolicy ?? 'no-referrer' },
    crossOriginResourcePolicy: { policy: frameable ? 'cross-origin' : 'same-origin' },
    strictTransportSecurity: page.https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  });
  // A page may learn who may frame it after an earlier call (a route's hook) denied everyone.
  if (frameable || framedBy.length > 0) reply.removeHeader('x-frame-options');
  return reply
    .header('content-security-policy', contentSecurityPolicy(page.csp, frameable, framedBy))
    .header('permissions-policy', `camera=(), microphone=(${page.microphone ? 'self' : ''}), geolocation=()`);
}
