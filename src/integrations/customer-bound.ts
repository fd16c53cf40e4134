/**
 * The rules every request to a customer's or platform's server follows (webhooks, callbacks,
 * domain proofs, single sign-on and LTI fetches): the operator's SSRF setting and egress proxy,
 * and the resolver and CA seams tests set (production deps never set them).
 */
import type { HostLookup, OutboundRequest } from './outbound-http.js';

/** What a customer-bound request needs: the operator's settings, and the test seams when a test sets them. */
export interface CustomerBoundDeps {
  config: { webhooks: { allowPrivateUrls: boolean; outboundProxyUrl: string | null } };
  /** A resolver instead of the system's (tests); production never sets it. */
  lookup?: HostLookup | undefined;
  /** A CA to trust besides the system's (tests); production never sets it. */
  trustedCa?: string | undefined;
}

/** The rules every customer-bound request follows: the SSRF setting and the egress proxy, plus the test seams when set. */
export const customerBoundRules = (
  deps: CustomerBoundDeps,
): Pick<OutboundRequest, 'allowPrivate' | 'proxyUrl' | 'lookup' | 'tls'> => ({
  allowPrivate: deps.config.webhooks.allowPrivateUrls,
  proxyUrl: deps.config.webhooks.outboundProxyUrl,
  ...(deps.lookup ? { lookup: deps.lookup } : {}),
  ...(deps.trustedCa ? { tls: { ca: deps.trustedCa } } : {}),
});
