import type { Deps } from '../../deps.js';
import type { PeriodicTask } from '../../jobs/worker.js';
import { purgeInvitations } from '../accounts/members-service.js';
import { purgeSsoSignInStates } from '../sso/oidc-service.js';
import { purgeSamlRows } from '../sso/saml-service.js';
import { purgeDashboardAuth } from './service.js';

export const dashboardTasks = (deps: Deps): PeriodicTask[] => [
  { name: 'dashboard.purge-expired-auth', everyMs: 30 * 60_000, run: async () => void (await purgeDashboardAuth(deps)) },
  { name: 'accounts.purge-old-invitations', everyMs: 60 * 60_000, run: async () => void (await purgeInvitations(deps)) },
  { name: 'sso.purge-old-sign-in-states', everyMs: 60 * 60_000, run: async () => void (await purgeSsoSignInStates(deps)) },
  { name: 'sso.purge-used-saml-assertions', everyMs: 60 * 60_000, run: async () => void (await purgeSamlRows(deps)) },
];
