/**
 * Row types of every table, as stored. Timestamps are ISO 8601 UTC text, JSON is text and
 * booleans are 0/1 integers, so the same queries work on SQLite and PostgreSQL.
 * Row types stay inside repos; services and routes see domain objects. They are written by
 * area in `schema/`; this module gathers them, with the `Database` that Kysely is typed by.
 */
import type {
  AccountInvitationsTable,
  AccountMembersTable,
  AccountsTable,
  ApiKeysTable,
  AuditLogTable,
  DashboardSessionsTable,
  DashboardSignInTokensTable,
} from './schema/accounts.js';
import type { ScimGroupMembersTable, ScimGroupsTable, ScimTokensTable, ScimUsersTable } from './schema/scim.js';
import type {
  EntitiesTable,
  EntityPaymentRequestsTable,
  SandboxPaymentIntentsTable,
  X402SettlementsTable,
} from './schema/entities.js';
import type {
  LtiContextsTable,
  LtiLaunchNoncesTable,
  LtiLaunchTicketsTable,
  LtiRegistrationLinksTable,
  LtiRegistrationsTable,
  LtiRosterTable,
  LtiToolKeysTable,
} from './schema/lti.js';
import type {
  CollectionsTable,
  ErasedPlayLinksTable,
  ErasuresTable,
  MailMessagesTable,
  PlayLinkSettingsTable,
  PlayLinksTable,
  PronunciationsTable,
  StageCodesTable,
  RecordingsTable,
  UsersTable,
} from './schema/people.js';
import type {
  SsoConnectionsTable,
  SsoDomainsTable,
  SsoSamlAssertionsTable,
  SsoSamlTicketsTable,
  SsoSignInStatesTable,
} from './schema/sso.js';
import type {
  EventsTable,
  IdempotencyKeysTable,
  JobsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
} from './schema/work.js';

export type * from './schema/accounts.js';
export type * from './schema/entities.js';
export type * from './schema/lti.js';
export type * from './schema/people.js';
export type * from './schema/sso.js';
export type * from './schema/scim.js';
export type * from './schema/work.js';

export interface Database {
  sso_connections: SsoConnectionsTable;
  sso_domains: SsoDomainsTable;
  sso_sign_in_states: SsoSignInStatesTable;
  sso_saml_assertions: SsoSamlAssertionsTable;
  sso_saml_tickets: SsoSamlTicketsTable;
  erasures: ErasuresTable;
  erased_play_links: ErasedPlayLinksTable;
  accounts: AccountsTable;
  account_members: AccountMembersTable;
  account_invitations: AccountInvitationsTable;
  audit_log: AuditLogTable;
  api_keys: ApiKeysTable;
  collections: CollectionsTable;
  users: UsersTable;
  mail_messages: MailMessagesTable;
  recordings: RecordingsTable;
  play_links: PlayLinksTable;
  pronunciations: PronunciationsTable;
  stage_codes: StageCodesTable;
  play_link_settings: PlayLinkSettingsTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  entity_payment_requests: EntityPaymentRequestsTable;
  entities: EntitiesTable;
  sandbox_payment_intents: SandboxPaymentIntentsTable;
  x402_settlements: X402SettlementsTable;
  dashboard_sign_in_tokens: DashboardSignInTokensTable;
  dashboard_sessions: DashboardSessionsTable;
  scim_tokens: ScimTokensTable;
  scim_users: ScimUsersTable;
  scim_groups: ScimGroupsTable;
  scim_group_members: ScimGroupMembersTable;
  lti_registrations: LtiRegistrationsTable;
  lti_tool_keys: LtiToolKeysTable;
  lti_launch_nonces: LtiLaunchNoncesTable;
  lti_launch_tickets: LtiLaunchTicketsTable;
  lti_contexts: LtiContextsTable;
  lti_roster: LtiRosterTable;
  lti_registration_links: LtiRegistrationLinksTable;
}
