/**
 * Proof of a domain for a claimed agent profile. Claiming proves the account published the
 * profile (it holds the receipt's token), not that it runs the operator or the homepage the
 * profile names. To show "Verified: <domain>", the owner publishes a token at
 * `https://<domain of source_url>/.well-known/voicename-verification.txt`; the service fetches it
 * through the SSRF-safe outbound client (public addresses only, no redirects, 2 KB read) and,
 * when one line of the file is the token, records the domain.
 */
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { type HostLookup, OutboundError, sendOutbound } from '../../integrations/outbound-http.js';
import { customerBoundRules } from '../../integrations/customer-bound.js';
import { isoNow } from '../../lib/clock.js';
import { randomToken } from '../../lib/ids.js';
import { homepageOf } from '../profiles/homepage.js';
import { findOwnedEntity } from './service.js';
import { markDomainVerified, setDomainToken } from './repo.js';

type DomainDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'logger'> & {
  /** Resolver override for the outbound client (tests; production deps never set it). */
  lookup?: HostLookup;
  /** The only CA (PEM) trusted for the domain's certificate, instead of the system's (tests). */
  trustedCa?: string;
};

export const VERIFICATION_PATH = '/.well-known/voicename-verification.txt';

export interface DomainProof {
  domain: string;
  /** Where the token must be published. */
  url: string;
  /** The line the file must contain. */
  token: string;
  verified: boolean;
}

/** What the owner must publish to prove the domain of the profile's homepage (a token is made once). */
export async function domainProofOf(deps: DomainDeps, accountId: string, slug: string): Promise<DomainProof | null> {
  let entity = await findOwnedEntity(deps, accountId, slug);
  const origin = homepageOf(entity.source_url);
  if (!origin) return null;
  if (!entity.domain_token) {
    await setDomainToken(deps.db.kysely, { id: entity.id, accountId, token: `voicename-verification=${randomToken(24)}` });
    entity = await findOwnedEntity(deps, accountId, slug);
  }
  return {
    domain: origin.hostname,
    url: `${origin.origin}${VERIFICATION_PATH}`,
    token: entity.domain_token as string,
    verified: entity.verified_domain === origin.hostname,
  };
}

/**
 * Fetches the verification file and records the domain when it holds the token. Errors (400
 * `domain_not_verified`) say what was found instead, so the owner can fix it.
 */
export async function verifyDomain(deps: DomainDeps, accountId: string, slug: string): Promise<DomainProof> {
  const proof = await domainProofOf(deps, accountId, slug);
  if (!proof) {
    throw new AppError('domain_not_verified', 'This profile has no homepage (source_url) whose domain could be verified.');
  }
  const refuse = (why: string) =>
    new AppError('domain_not_verified', `${proof.domain} is not verified: ${why}`, { param: 'profile' });
  let body: string;
  try {
    const response = await sendOutbound({
      url: proof.url,
      method: 'GET',
      headers: { accept: 'text/plain', 'user-agent': 'voicename-verification/1' },
      timeoutMs: 10_000,
      ...customerBoundRules(deps),
    });
    if (response.status !== 200) throw refuse(`${proof.url} answered HTTP ${response.status}.`);
    body = response.bodySnippet;
  } catch (error) {
    if (error instanceof OutboundError) throw refuse(`${proof.url} could not be fetched (${error.message})`);
    throw error;
  }
  if (!body.split(/\r?\n/).some((line) => line.trim() === proof.token)) {
    throw refuse(`${proof.url} does not contain the line ${proof.token}.`);
  }
  const entity = await findOwnedEntity(deps, accountId, slug);
  if (!(await markDomainVerified(deps.db.kysely, { id: entity.id, accountId, domain: proof.domain, now: isoNow(deps.clock) }))) {
    // Deleted or unclaimed since: the same answer as for any profile not theirs.
    await findOwnedEntity(deps, accountId, slug);
  }
  deps.logger.info({ entity: slug, domain: proof.domain }, 'agent profile domain verified');
  return { ...proof, verified: true };
}
