import { type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { Db } from './index.js';
import * as m0001 from './migrations/0001_foundation.js';
import * as m0002 from './migrations/0002_users_recordings.js';
import * as m0003 from './migrations/0003_events.js';
import * as m0005 from './migrations/0005_play_links.js';
import * as m0006 from './migrations/0006_webhooks.js';
import * as m0007 from './migrations/0007_entities.js';
import * as m0008 from './migrations/0008_dashboard.js';
import * as m0009 from './migrations/0009_people_names.js';
import * as m0010 from './migrations/0010_review_export.js';
import * as m0011 from './migrations/0011_organisations.js';
import * as m0012 from './migrations/0012_users_name_order.js';
import * as m0013 from './migrations/0013_collection_settings.js';
import * as m0014 from './migrations/0014_data_rights.js';
import * as m0015 from './migrations/0015_invitations.js';
import * as m0016 from './migrations/0016_domain_proof.js';
import * as m0017 from './migrations/0017_name_skeleton.js';
import * as m0018 from './migrations/0018_idempotent_location.js';
import * as m0019 from './migrations/0019_field_sources.js';
import * as m0020 from './migrations/0020_sign_in_mail_budget.js';
import * as m0021 from './migrations/0021_message_channel.js';
import * as m0022 from './migrations/0022_people_search.js';
import * as m0023 from './migrations/0023_people_search_changes_only.js';
import * as m0024 from './migrations/0024_pronunciation.js';
import * as m0025 from './migrations/0025_entity_pronunciation.js';
import * as m0026 from './migrations/0026_review_listened.js';
import * as m0027 from './migrations/0027_stage_sync.js';
import * as m0028 from './migrations/0028_person_language.js';
import * as m0029 from './migrations/0029_organisation_name_brand_color.js';
import * as m0030 from './migrations/0030_scim.js';
import * as m0031 from './migrations/0031_sso_oidc.js';
import * as m0032 from './migrations/0032_lti.js';
import * as m0033 from './migrations/0033_sso_saml.js';
import * as m0034 from './migrations/0034_lti_dynamic_registration.js';
import * as m0035 from './migrations/0035_lti_launch_tickets.js';
import * as m0036 from './migrations/0036_lti_frame_origins.js';
import * as m0037 from './migrations/0037_webhook_message_status.js';
import * as m0038 from './migrations/0038_webhook_destinations.js';
import * as m0039 from './migrations/0039_x402_settlements.js';
import * as m0040 from './migrations/0040_webhook_client_certificates.js';
import * as m0041 from './migrations/0041_x402_manual_refunds.js';

/** Every migration, in order. Listed explicitly so bundling and ordering never depend on the file system. */
const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_users_recordings': m0002,
  '0003_events': m0003,
  '0005_play_links': m0005,
  '0006_webhooks': m0006,
  '0007_entities': m0007,
  '0008_dashboard': m0008,
  '0009_people_names': m0009,
  '0010_review_export': m0010,
  '0011_organisations': m0011,
  '0012_users_name_order': m0012,
  '0013_collection_settings': m0013,
  '0014_data_rights': m0014,
  '0015_invitations': m0015,
  '0016_domain_proof': m0016,
  '0017_name_skeleton': m0017,
  '0018_idempotent_location': m0018,
  '0019_field_sources': m0019,
  '0020_sign_in_mail_budget': m0020,
  '0021_message_channel': m0021,
  '0022_people_search': m0022,
  '0023_people_search_changes_only': m0023,
  '0024_pronunciation': m0024,
  '0025_entity_pronunciation': m0025,
  '0026_review_listened': m0026,
  '0027_stage_sync': m0027,
  '0028_person_language': m0028,
  '0029_organisation_name_brand_color': m0029,
  '0030_scim': m0030,
  '0031_sso_oidc': m0031,
  '0032_lti': m0032,
  '0033_sso_saml': m0033,
  '0034_lti_dynamic_registration': m0034,
  '0035_lti_launch_tickets': m0035,
  '0036_lti_frame_origins': m0036,
  '0037_webhook_message_status': m0037,
  '0038_webhook_destinations': m0038,
  '0039_x402_settlements': m0039,
  '0040_webhook_client_certificates': m0040,
  '0041_x402_manual_refunds': m0041,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Every migration's name, oldest first. */
export const migrationNames = (): string[] => Object.keys(migrations);

/** Runs the migrations up to and including `name` (or back down to it): tests of a migration start from the schema before it. */
export async function migrateTo(db: Db, name: string): Promise<void> {
  const migrator = new Migrator({ db: db.kysely, provider, ...(db.schema ? { migrationTableSchema: db.schema } : {}) });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/** Brings the schema up to date. Safe to run from several processes at once (Kysely takes a lock). */
export async function migrateToLatest(db: Db): Promise<string[]> {
  // With a non-default schema, Kysely must be told where its bookkeeping tables live, or it
  // finds another schema's tables through introspection and skips creating its own.
  const migrator = new Migrator({ db: db.kysely, provider, ...(db.schema ? { migrationTableSchema: db.schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  // Migrating a new SQLite file writes a megabyte of log: copy it back now, before serving, so
  // the checkpoint worker is not started for it (it starts when the log grows: sqlite-checkpoint.ts).
  if (applied.length > 0 && db.dialect === 'sqlite') await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db.kysely);
  return applied;
}
