/**
 * A subject-access export of one person: a ZIP with `person.json` (everything held about them:
 * the user object with custom fields and review state, their recording's details, every play
 * link they have had, the identities a SCIM provider or an LMS roster gave them, and the events
 * that name them) and `recording.mp3` when they have one.
 */
import { PassThrough, type Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { getUser, type UsersDeps } from '../users/service.js';
import { playLinkUrls } from '../play-links/index.js';
import type { ExportsDeps } from './service.js';
import { attachmentDisposition } from './file-names.js';
import { eventsAbout, findRecordingOf, playLinksOf, provisionedIdentitiesOf } from './repo.js';

export interface PersonExport {
  contentDisposition: string;
  stream: Readable;
}

/**
 * `writeLinks`: whether the reader may change the person; without it `person.json` leaves out
 * `record_url`, which lets anyone record for them (the person's own data is everything else).
 */
export async function exportPerson(
  deps: ExportsDeps & UsersDeps,
  accountId: string,
  collectionId: string,
  userId: string,
  options: { exportedAt: Date; writeLinks: boolean },
): Promise<PersonExport> {
  const { exportedAt } = options;
  const user = await getUser(deps, accountId, collectionId, userId);
  const { record_url: _recordUrl, ...withoutWriteLinks } = user;
  const db = deps.db.kysely;
  const recording = await findRecordingOf(db, user.id);
  const links = await playLinksOf(db, user.id);
  const events = await eventsAbout(db, accountId, user.id);
  const identities = await provisionedIdentitiesOf(db, accountId, user.id);
  const document = {
    exported_at: exportedAt.toISOString(),
    person: options.writeLinks ? user : withoutWriteLinks,
    recording: recording
      ? {
          file: 'recording.mp3',
          mime_type: recording.mime_type,
          byte_size: Number(recording.byte_size),
          duration_ms: Number(recording.duration_ms),
          recorded_at: recording.recorded_at,
        }
      : null,
    play_links: links.map((link) => ({
      url: playLinkUrls(deps.config.baseUrl, link.token).play_link,
      status: link.status,
      created_at: link.created_at,
      retired_at: link.retired_at,
    })),
    provisioned_by: {
      scim: identities.scim
        ? {
            id: identities.scim.id,
            user_name: identities.scim.user_name,
            external_id: identities.scim.external_id,
            email: identities.scim.email,
            active: Boolean(identities.scim.active),
            updated_at: identities.scim.updated_at,
          }
        : null,
      lms: identities.lms
        ? {
            platform: identities.lms.issuer,
            course: identities.lms.title,
            lti_user_id: identities.lms.lti_user_id,
            departed_at: identities.lms.departed_at,
            synced_at: identities.lms.synced_at,
          }
        : null,
    },
    events: events.map((event) => ({
      id: event.id,
      type: event.type,
      created_at: event.created_at,
      data: JSON.parse(event.data) as unknown,
    })),
  };
  const audio = recording ? await deps.blobs.stream(recording.blob_key) : null;
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(`${JSON.stringify(document, null, 2)}\n`), 'person.json', { mtime: exportedAt });
  if (audio) zip.addReadStream(audio, 'recording.mp3', { mtime: exportedAt, compress: false });
  zip.end();
  const out = new PassThrough();
  zip.outputStream.pipe(out);
  return { contentDisposition: attachmentDisposition(`${user.display_name} personal data`, 'zip'), stream: out };
}
