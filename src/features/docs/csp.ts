/**
 * The Content-Security-Policy directives of the docs pages (pageSecurityHeaders adds
 * `frame-ancestors`).
 */

/** Guides: no script at all; our stylesheet and icons. */
export const GUIDE_CSP: readonly string[] = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
];

/**
 * The reference: scripts from this origin only (no inline script: Scalar's configuration is a data
 * attribute). Scalar adds its styles as <style> elements and style attributes at run time, so
 * styles need 'unsafe-inline' (styles cannot run code). The API it tries out is this origin, or
 * BASE_URL when the docs are reached under another name. `upgrade-insecure-requests` only when
 * BASE_URL is https: on a plain-HTTP host it would send the bundle's request to https and leave
 * the page blank (as Swagger UI's policy did on every host but localhost).
 */
export function referenceCsp(baseUrl: string): string[] {
  const https = baseUrl.startsWith('https:');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${new URL(baseUrl).origin}`,
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    ...(https ? ['upgrade-insecure-requests'] : []),
  ];
}
