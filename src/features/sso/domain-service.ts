/**
 * E-mail domains an organisation claims for single sign-on. A domain routes sign-in to the
 * organisation's identity provider only once verified, the same way an agent profile's domain is
 * proven (profile-ownership/domain-service.ts), with a token of its own: a DNS TXT record on the
 * domain, or the token as one line of `https://<domain>/.well-known/voicename-verification.txt`
 * fetched through the SSRF-safe outbound client. A domain verified by one organisation cannot be
 * verified by another.
 */
import { promises as dns } from 'node:dns';
import type { Deps } from '../../deps.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, invalid, notFound } from '../../errors.js';
import { type HostLookup, OutboundError, sendOutbound } from '../../integrations/outbound-http.js';
import { customerBoundRules } from '../../integrations/customer-bound.js';
import { isoNow } from '../../lib/clock.js';
import { isUuid, newId, randomToken } from '../../lib/ids.js';
import { deleteDomain, findDomain, insertDomain, listDomains, markDomainVerified } from './repo.js';

type DomainDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'logger'> & {
  /** Resolver override for the outbound client (tests; production deps never set it). */
  lookup?: HostLookup;
  /** The only CA (PEM) trusted for the domain's certificate, instead of the system's (tests). */
  trustedCa?: string;
};

export const SSO_VERIFICATION_PATH = '/.well-known/voicename-verification.txt';
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export interface SsoDomain {
  id: string;
  domain: string;
  /** The TXT record's value, or the line of the well-known file. */
  token: string;
  /** Where the file may be published instead of the TXT record. */
  fileUrl: string;
  verifiedAt: string | null;
}

/** Reads the TXT records of a name (the system resolver unless a test passes its own). */
export type TxtResolver = (name: string) => Promise<string[][]>;

const toDomain = (row: { id: string; domain: string; token: string; verified_at: string | null }): SsoDomain => ({
  id: row.id,
  domain: row.domain,
  token: row.token,
  fileUrl: `https://${row.domain}${SSO_VERIFICATION_PATH}`,
  verifiedAt: row.verified_at,
});

export const listSsoDomains = async (deps: DomainDeps, accountId: string): Promise<SsoDomain[]> =>
  (await listDomains(deps.db.kysely, accountId)).map(toDomain);

/** Adds a domain to prove (lower case, no scheme; refused: not a domain name, already listed). */
export async function addSsoDomain(deps: DomainDeps, accountId: string, input: string): Promise<SsoDomain> {
  const domain = input.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(domain)) throw invalid(`"${input}" is not a domain name (for example university.example).`, 'domain');
  const row = {
    id: newId(),
    account_id: accountId,
    domain,
    token: `voicename-verification=${randomToken(24)}`,
    verified_at: null,
    created_at: isoNow(deps.clock),
  };
  try {
    await insertDomain(deps.db.kysely, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw invalid(`${domain} is already listed.`, 'domain');
    throw error;
  }
  return toDomain(row);
}

export async function removeSsoDomain(deps: DomainDeps, accountId: string, id: string): Promise<string> {
  const row = isUuid(id) ? await findDomain(deps.db.kysely, accountId, id) : undefined;
  if (!row || !(await deleteDomain(deps.db.kysely, accountId, id))) throw notFound('domain', 'id');
  return row.domain;
}

async function txtHolds(resolveTxt: TxtResolver, domain: string, token: string): Promise<boolean> {
  try {
    return (await resolveTxt(domain)).some((record) => record.join('') === token);
  } catch {
    return false;
  }
}

async function fileHolds(deps: DomainDeps, url: string, token: string): Promise<string | true> {
  try {
    const response = await sendOutbound({
      url,
      method: 'GET',
      headers: { accept: 'text/plain', 'user-agent': 'voicename-verification/1' },
      timeoutMs: 10_000,
      ...customerBoundRules(deps),
    });
    if (response.status !== 200) return `${url} answered HTTP ${response.status}`;
    return response.bodySnippet.split(/\r?\n/).some((line) => line.trim() === token) || `${url} does not contain the line`;
  } catch (error) {
    if (error instanceof OutboundError) return `${url} could not be fetched (${error.message})`;
    throw error;
  }
}

/**
 * Checks the TXT record, then the well-known file, and marks the domain verified when either holds
 * the token. Refusals (400 `domain_not_verified`) say what was found.
 */
export async function verifySsoDomain(
  deps: DomainDeps,
  accountId: string,
  id: string,
  options: { resolveTxt?: TxtResolver } = {},
): Promise<SsoDomain> {
  const row = isUuid(id) ? await findDomain(deps.db.kysely, accountId, id) : undefined;
  if (!row) throw notFound('domain', 'id');
  const domain = toDomain(row);
  if (domain.verifiedAt !== null) return domain;
  const viaTxt = await txtHolds(options.resolveTxt ?? ((name) => dns.resolveTxt(name)), domain.domain, domain.token);
  const viaFile = viaTxt || (await fileHolds(deps, domain.fileUrl, domain.token));
  if (viaFile !== true) {
    throw new AppError(
      'domain_not_verified',
      `${domain.domain} is not verified: no TXT record holds the token, and ${viaFile}.`,
      { param: 'domain' },
    );
  }
  const now = isoNow(deps.clock);
  try {
    await markDomainVerified(deps.db.kysely, { accountId, id, now });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError('domain_not_verified', `${domain.domain} is verified by another organisation.`, { param: 'domain' });
    }
    throw error;
  }
  deps.logger.info({ account_id: accountId, domain: domain.domain }, 'sso domain verified');
  return { ...domain, verifiedAt: now };
}
