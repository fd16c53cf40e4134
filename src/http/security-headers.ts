/**
 * The security headers of every HTML page (player, embed, recorder, dashboard, entity profile,
 * API docs), from one place so a page cannot forget one. Pages differ only where they must:
 * what their CSP allows, whether other sites may frame them (the embed widget), whether they
 * use the microphone (the recorder), and their referrer policy.
 */

export interface PageSecurity {
  /**
   * The page's Content-Security-Policy directives, without `frame-ancestors` (added here from
   * `frameable`). Null when a page writes its own policy (none does since the API reference moved
   * from Swagger UI to Scalar, whose policy is written in features/docs like every other page's).
   */
  csp: readonly string[] | null;
  /** Whether any site may frame the page. Only the embed widget is; every other page refuses. */
  frameable?: boolean;
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

export function pageSecurityHeaders(page: PageSecurity): Record<string, string> {
  const frameable = page.frameable === true;
  const headers: Record<string, string> = {};
  if (page.csp) {
    headers['content-security-policy'] = [...page.csp, frameable ? 'frame-ancestors *' : FRAME_ANCESTORS_NONE].join('; ');
  }
  // X-Frame-Options for browsers without frame-ancestors; it has no "any origin" value, so a
  // frameable page simply omits it.
  if (!frameable) headers['x-frame-options'] = 'DENY';
  headers['x-content-type-options'] = 'nosniff';
  headers['referrer-policy'] = page.referrerPolicy ?? 'no-referrer';
  headers['cross-origin-opener-policy'] = 'same-origin';
  headers['cross-origin-resource-policy'] = frameable ? 'cross-origin' : 'same-origin';
  headers['permissions-policy'] = `camera=(), microphone=(${page.microphone ? 'self' : ''}), geolocation=()`;
  if (page.https) headers['strict-transport-security'] = 'max-age=31536000';
  return headers;
}
