/**
 * LTI registrations: the platforms an organisation installed the tool in. Entered by hand in the
 * dashboard from what the platform shows when the tool is added (Canvas's developer key, Moodle's
 * external tool): its issuer, the client id it gave the tool, the deployment ids, and its OIDC
 * auth, token and key-set URLs. One (issuer, client id) belongs to one organisation.
 */
import type { TransactionDeps } from '../../db/transaction.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, notFound } from '../../errors.js';
import { OutboundError, outboundRefusal } from '../../integrations/outbound-http.js';
import { isoNow } from '../../lib/clock.js';
import { isUuid, newId } from '../../lib/ids.js';
import { unsafeTextReason } from '../../lib/text.js';
import {
  deleteRegistration,
  findRegistrationById,
  insertRegistration,
  listRegistrations,
  type RegistrationRow,
  updateRegistration,
} from './repo.js';

export type RegistrationDeps = TransactionDeps & {
  config: { baseUrl: string; webhooks: { allowPrivateUrls: boolean; outboundProxyUrl: string | null } };
};

export interface Registration {
  id: string;
  accountId: string;
  issuer: string;
  clientId: string;
  deploymentIds: string[];
  authUrl: string;
  tokenUrl: string;
  jwksUrl: string;
  createdAt: string;
}

/** What an organiser types: every field as text; deployment ids separated by commas or line breaks. */
export interface RegistrationInput {
  issuer: string;
  client_id: string;
  deployment_ids: string;
  auth_url: string;
  token_url: string;
  jwks_url: string;
}

export const REGISTRATION_FIELDS = ['issuer', 'client_id', 'deployment_ids', 'auth_url', 'token_url', 'jwks_url'] as const;
const MAX_DEPLOYMENTS = 50;
const MAX_VALUE = 255;

export const toRegistration = (row: RegistrationRow): Registration => ({
  id: row.id,
  accountId: row.account_id,
  issuer: row.issuer,
  clientId: row.client_id,
  deploymentIds: JSON.parse(row.deployment_ids) as string[],
  authUrl: row.auth_url,
  tokenUrl: row.token_url,
  jwksUrl: row.jwks_url,
  createdAt: row.created_at,
});

/** The tool's own URLs, to paste into the platform. */
export const toolUrls = (baseUrl: string) => ({
  login: `${baseUrl}/lti/login`,
  launch: `${baseUrl}/lti/launch`,
  jwks: `${baseUrl}/lti/jwks`,
  deepLinking: `${baseUrl}/lti/launch`,
});

const invalid = (param: string, message: string) => new AppError('parameter_invalid', message, { param });

function text(input: RegistrationInput, field: (typeof REGISTRATION_FIELDS)[number], label: string): string {
  const value = (input[field] ?? '').trim();
  if (value === '') throw new AppError('parameter_missing', `Enter the ${label}.`, { param: field });
  if (value.length > (field === 'deployment_ids' ? 4000 : MAX_VALUE)) {
    throw invalid(field, `The ${label} is too long.`);
  }
  if (unsafeTextReason(value, { multiline: field === 'deployment_ids' }) !== null) {
    throw invalid(field, `The ${label} contains characters that cannot be part of it.`);
  }
  return value;
}

async function url(
  deps: RegistrationDeps,
  input: RegistrationInput,
  field: 'auth_url' | 'token_url' | 'jwks_url',
  label: string,
) {
  const value = text(input, field, label);
  const refusal = await outboundRefusal(value, { allowPrivate: deps.config.webhooks.allowPrivateUrls, resolve: false });
  if (refusal instanceof OutboundError) throw invalid(field, `The ${label} is not usable: ${refusal.message}`);
  return value;
}

/**
 * The row fields of `input`, checked as the form checks them. `deploymentsLater`: no deployment id
 * yet is fine (a platform's Dynamic Registration that deploys the tool afterwards, as Canvas does).
 */
export async function checkRegistrationInput(
  deps: RegistrationDeps,
  input: RegistrationInput,
  options: { deploymentsLater?: boolean } = {},
) {
  const deploymentText =
    options.deploymentsLater && (input.deployment_ids ?? '').trim() === '' ? '' : text(input, 'deployment_ids', 'deployment ids');
  const deploymentIds = [
    ...new Set(
      deploymentText
        .split(/[\n,]/)
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
  if (deploymentIds.length > MAX_DEPLOYMENTS) throw invalid('deployment_ids', `Enter at most ${MAX_DEPLOYMENTS} deployment ids.`);
  if (deploymentIds.some((id) => id.length > MAX_VALUE)) throw invalid('deployment_ids', 'A deployment id is too long.');
  return {
    issuer: text(input, 'issuer', 'platform issuer'),
    client_id: text(input, 'client_id', 'client id'),
    deployment_ids: JSON.stringify(deploymentIds),
    auth_url: await url(deps, input, 'auth_url', 'OIDC auth URL'),
    token_url: await url(deps, input, 'token_url', 'token URL'),
    jwks_url: await url(deps, input, 'jwks_url', 'key set URL'),
  };
}

export const registrationTaken = () =>
  new AppError('conflict', 'This platform issuer and client id are already registered (here or in another organisation).', {
    param: 'client_id',
  });

export async function createRegistration(
  deps: RegistrationDeps,
  accountId: string,
  input: RegistrationInput,
): Promise<Registration> {
  const now = isoNow(deps.clock);
  const row: RegistrationRow = {
    id: newId(),
    account_id: accountId,
    ...(await checkRegistrationInput(deps, input)),
    created_at: now,
    updated_at: now,
  };
  try {
    await insertRegistration(deps.db.kysely, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw registrationTaken();
    throw error;
  }
  return toRegistration(row);
}

export async function updateRegistrationOf(
  deps: RegistrationDeps,
  accountId: string,
  id: string,
  input: RegistrationInput,
): Promise<Registration> {
  await getRegistration(deps, accountId, id);
  try {
    await updateRegistration(deps.db.kysely, accountId, id, {
      ...(await checkRegistrationInput(deps, input)),
      updated_at: isoNow(deps.clock),
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw registrationTaken();
    throw error;
  }
  return getRegistration(deps, accountId, id);
}

export async function getRegistration(deps: RegistrationDeps, accountId: string, id: string): Promise<Registration> {
  const row = isUuid(id) ? await findRegistrationById(deps.db.kysely, id) : undefined;
  if (!row || row.account_id !== accountId) throw notFound('LTI registration', 'registration_id');
  return toRegistration(row);
}

export const listRegistrationsOf = async (deps: RegistrationDeps, accountId: string): Promise<Registration[]> =>
  (await listRegistrations(deps.db.kysely, accountId)).map(toRegistration);

/** Removes the registration: launches from that platform are refused at once; its courses' collections stay. */
export async function removeRegistration(deps: RegistrationDeps, accountId: string, id: string): Promise<void> {
  await getRegistration(deps, accountId, id);
  await deleteRegistration(deps.db.kysely, accountId, id);
}
