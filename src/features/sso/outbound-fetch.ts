/**
 * The fetch openid-client uses for every call to an identity provider (discovery, key set, token
 * endpoint): the SSRF-safe outbound client, so an organisation's issuer URL can never reach this
 * service's private network. WEBHOOK_ALLOW_PRIVATE_URLS (development and tests only) lifts the
 * address and HTTPS rules here exactly as it does for webhooks, and OUTBOUND_PROXY_URL applies too.
 */
import { type HostLookup, OutboundError, sendOutbound } from '../../integrations/outbound-http.js';

/** Test seams of the outbound client; production deps never set them. */
export interface OutboundSeams {
  /** Resolver override, so a test name resolves to a public-looking address. */
  lookup?: HostLookup;
  /** The only CA (PEM) trusted for the provider's certificate, instead of the system's. */
  trustedCa?: string;
}

/** Metadata and key sets of large providers run to tens of kilobytes. */
const MAX_IDP_RESPONSE_BYTES = 256 * 1024;

export function outboundFetch(allowPrivate: boolean, proxyUrl: string | null = null, seams: OutboundSeams = {}) {
  return async (url: string, options: { method: string; headers: HeadersInit; body?: unknown }) => {
    const method = options.method.toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new TypeError(`${method} is not used with identity providers`);
    const body = options.body === undefined || options.body === null ? undefined : String(options.body);
    try {
      const response = await sendOutbound({
        url,
        method,
        headers: { ...Object.fromEntries(new Headers(options.headers)), 'user-agent': 'voicename-sso/1' },
        ...(body === undefined ? {} : { body }),
        allowPrivate,
        proxyUrl,
        timeoutMs: 10_000,
        maxBodyBytes: MAX_IDP_RESPONSE_BYTES,
        ...(seams.lookup ? { lookup: seams.lookup } : {}),
        ...(seams.trustedCa ? { tls: { ca: seams.trustedCa } } : {}),
      });
      // A cut-off document would fail as bad JSON: say what happened instead.
      if (response.truncated) throw new TypeError(`${url}: the answer is over ${MAX_IDP_RESPONSE_BYTES} bytes`);
      return new Response(response.status === 204 ? null : response.bodySnippet, {
        status: response.status,
        headers: response.headers,
      });
    } catch (error) {
      // openid-client reports a rejected fetch as a network failure; the message says which rule refused.
      if (error instanceof OutboundError) throw new TypeError(`${url}: ${error.message}`, { cause: error });
      throw error;
    }
  };
}
