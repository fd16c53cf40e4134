/**
 * Launches in browsers that withhold the tool's cookie inside the platform's frame (Safari,
 * Chrome with third-party cookies blocked), through the platform's storage (1EdTech "LTI Client
 * Side postMessages" and "OIDC Login with LTI Client Side postMessages").
 *
 * The login page stores the state in the platform's storage (a frame of the platform that answers
 * `org.imsglobal.lti.put_data`) before going on to the platform's auth URL. The launch without
 * the cookie is verified as any other (signature, claims, the nonce used up), then waits: the
 * page the launch answers reads the state back (`org.imsglobal.lti.get_data`) and posts it with
 * a one-time ticket to `/lti/launch/complete`. Only the browser that started the login has the
 * state in its platform storage, as only it has the cookie on the cookie path. The ticket is
 * single use (spent even by a wrong state), valid 5 minutes, and bound to this launch.
 */
import type { TransactionDeps } from '../../db/transaction.js';
import { AppError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { randomToken } from '../../lib/ids.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import type { Launch } from './launch-service.js';
import { findRegistrationById, insertLaunchTicket, useLaunchTicket } from './repo.js';
import { toRegistration } from './registration-service.js';

/** The page has this long to read the state back and post it. */
export const LAUNCH_TICKET_TTL_MS = 5 * 60_000;

/** Keeps a verified launch until its browser proves the state; returns the ticket for its page. */
export async function issueLaunchTicket(deps: TransactionDeps, launch: Launch, state: string): Promise<string> {
  const ticket = randomToken(32);
  const now = deps.clock.now();
  const { registration, ...claims } = launch;
  await insertLaunchTicket(deps.db.kysely, {
    ticket_hash: sha256Hex(ticket),
    state_hash: sha256Hex(state),
    registration_id: registration.id,
    launch: JSON.stringify(claims),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + LAUNCH_TICKET_TTL_MS).toISOString(),
  });
  return ticket;
}

/**
 * The launch of `ticket`, when `state` (read back from the platform's storage) is its login's.
 * Refusals: a ticket unknown, used or expired (409), a wrong or missing state (403).
 */
export async function completeStorageLaunch(
  deps: TransactionDeps,
  input: { ticket: string | undefined; state: string | undefined },
): Promise<Launch> {
  const row = input.ticket ? await useLaunchTicket(deps.db.kysely, sha256Hex(input.ticket), isoNow(deps.clock)) : null;
  if (row === null) {
    throw new AppError(
      'lti_launch_replayed',
      'This launch was already completed, or took too long. Open the tool again from the course.',
    );
  }
  if (!input.state || !safeEqual(sha256Hex(input.state), row.state_hash)) {
    throw new AppError(
      'lti_launch_state',
      'This launch did not start in this browser (the course platform did not return its state). Open the tool again from the course.',
    );
  }
  const registration = await findRegistrationById(deps.db.kysely, row.registration_id);
  if (!registration) throw new AppError('lti_launch_invalid', 'This platform is no longer registered with voicename.');
  const claims = JSON.parse(row.launch) as Omit<Launch, 'registration'>;
  // Tickets written before launches carried their origins have none (they last 5 minutes).
  return { registration: toRegistration(registration), ...claims, frameOrigins: claims.frameOrigins ?? [] };
}
