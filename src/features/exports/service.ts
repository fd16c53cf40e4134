/**
 * Exports of a collection: a CSV of its people (one row each, in import order) and a ZIP of
 * their recordings plus that CSV. Both are streams made while the client reads them: people are
 * read in keyset pages, each recording is copied from the blob store into the ZIP one at a time
 * (the next one is opened while the current one streams), and the ZIP's CSV is written to a
 * private temporary file meanwhile, so that its rows and the audio file names come from the
 * same pass over the people. Memory stays flat however large the collection; a client that goes
 * away stops the work.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type Readable, PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Logger } from 'pino';
import { ZipFile } from 'yazl';
import type { BlobStore } from '../../blobs/index.js';
import type { Db } from '../../db/index.js';
import { makeWorkFolder } from '../../lib/process-temp.js';
import type { CustomField } from '../collections/schemas.js';
import { requireLiveCollection } from '../collections/service.js';
import { playLinkUrls } from '../play-links/index.js';
import { coverageOf } from '../pronunciation/present.js';
import { type CsvSeparator, csvLine, UTF8_BOM } from './csv.js';
import { type CsvOptions, DEFAULT_CSV_OPTIONS } from './schemas.js';
import { attachmentDisposition, audioFileName } from './file-names.js';
import { type ExportPersonRow, type ImportOrderCursor, listPeopleInImportOrder } from './repo.js';

export type ExportFormat = 'csv' | 'zip';

export type ExportsDeps = { db: Db; blobs: BlobStore; logger: Logger; config: { baseUrl: string } };

export interface CollectionExport {
  contentType: string;
  /** The `Content-Disposition` header: an attachment named after the collection. */
  contentDisposition: string;
  /** The file, produced while it is read; destroying it stops the work. */
  stream: Readable;
}

/** People read per query: large enough to make few round trips, small enough to keep memory flat. */
const PAGE_SIZE = 500;
/** The CSV's name inside the ZIP. */
export const ZIP_CSV_NAME = 'people.csv';

/**
 * The export of the account's live collection as `format`. 404 (before any byte is sent) for an
 * unknown, archived or another account's collection. `signal` aborts the work (pass the
 * client's disconnection). `writeLinks` says whether the reader may change the collection: only
 * then does the file carry the `record_url` column (a record link lets anyone record for the
 * person), so a read-only member's download grants nothing they could not do themselves.
 */
export async function exportCollection(
  deps: ExportsDeps,
  accountId: string,
  collectionId: string,
  format: ExportFormat,
  options: { signal?: AbortSignal; writeLinks: boolean; csv?: CsvOptions },
): Promise<CollectionExport> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  const fields = JSON.parse(collection.custom_fields) as CustomField[];
  const people = () => peopleInImportOrder(deps.db, collection.id);
  const columns = header(fields, options.writeLinks);
  const toCells = cellsOf(deps.config.baseUrl, fields, options.writeLinks);
  const csv = options.csv ?? DEFAULT_CSV_OPTIONS;
  const layout: CsvLayout = { separator: csv.separator === 'semicolon' ? ';' : ',', start: csv.bom ? UTF8_BOM : '' };
  if (format === 'csv') {
    return {
      contentType: 'text/csv; charset=utf-8',
      contentDisposition: attachmentDisposition(collection.name, 'csv'),
      stream: csvStream(people, toCells, columns, layout, options.signal),
    };
  }
  return {
    contentType: 'application/zip',
    contentDisposition: attachmentDisposition(collection.name, 'zip'),
    stream: zipStream(deps, people, toCells, columns, layout, options.signal),
  };
}

/** The CSV's separator and what it starts with (the byte-order mark, or nothing). */
interface CsvLayout {
  separator: CsvSeparator;
  start: string;
}

/** Every person of the collection in import order, a page at a time. */
async function* peopleInImportOrder(db: Db, collectionId: string): AsyncGenerator<ExportPersonRow> {
  let cursor: ImportOrderCursor | null = null;
  for (;;) {
    const page = await listPeopleInImportOrder(db.kysely, collectionId, cursor, PAGE_SIZE);
    yield* page;
    const last = page[page.length - 1];
    if (page.length < PAGE_SIZE || !last) return;
    cursor = { createdAt: last.created_at, importPosition: Number(last.import_position), id: last.id };
  }
}

const STANDARD_COLUMNS = [
  'display_name',
  'first_name',
  'last_name',
  'email',
  'external_id',
  'phonetic_spelling',
  'play_link',
  'record_url',
  'recording_status',
  'review_note',
];

/**
 * The name's language and its pronunciation guide, after the custom fields: the columns before
 * them stay where they always were, so files read by position keep working.
 */
const PRONUNCIATION_COLUMNS = [
  'name_language',
  'pronunciation_coverage',
  'respelling',
  'ipa',
  'not_like',
  'pronunciation_approved_at',
];

/**
 * What organisers read at a glance, last of all (every earlier column stays where it was):
 * `language` (the person's mail and record page language; empty: the collection's),
 * `invitation_status` (`not_invited`, `queued`, `sent`, `failed` or `unsubscribed`) and
 * `review_status` (`not_reviewed`, `approved`, `needs_rerecord`; empty without a recording).
 */
const ORGANISER_COLUMNS = ['preferred_name', 'pronouns', 'language', 'invitation_status', 'review_status'];

/** The columns after the ZIP's `audio_file` column. */
const AFTER_AUDIO_FILE = PRONUNCIATION_COLUMNS.length + ORGANISER_COLUMNS.length;

/** The ZIP's `audio_file` column, where it was before the pronunciation columns came after it. */
const withAudioFile = <T>(row: T[], audioFile: T): T[] => [
  ...row.slice(0, row.length - AFTER_AUDIO_FILE),
  audioFile,
  ...row.slice(row.length - AFTER_AUDIO_FILE),
];

const REVIEW_STATUS: Record<ExportPersonRow['recording_status'], string | null> = {
  none: null,
  recorded: 'not_reviewed',
  approved: 'approved',
  needs_rerecord: 'needs_rerecord',
};

const invitationStatus = (person: ExportPersonRow): string =>
  person.unsubscribed_at !== null ? 'unsubscribed' : (person.mail_status ?? 'not_invited');

/** Column names as the API names the fields, so the file can be imported again; custom fields by key. */
const header = (fields: CustomField[], writeLinks: boolean) => [
  ...STANDARD_COLUMNS.filter((column) => writeLinks || column !== 'record_url'),
  ...fields.map((field) => field.key),
  ...PRONUNCIATION_COLUMNS,
  ...ORGANISER_COLUMNS,
];

type Cells = (string | number | boolean | null)[];

function cellsOf(baseUrl: string, fields: CustomField[], writeLinks: boolean) {
  return (person: ExportPersonRow): Cells => {
    const custom = JSON.parse(person.custom_fields) as Record<string, string | number | boolean>;
    const playable = person.blob_key !== null && person.play_token !== null;
    return [
      person.display_name,
      person.first_name,
      person.last_name,
      person.email,
      person.external_id,
      person.phonetic_spelling,
      playable ? playLinkUrls(baseUrl, person.play_token as string).play_link : null,
      ...(writeLinks ? [`${baseUrl}/r/${person.record_token}`] : []),
      person.recording_status,
      person.review_note,
      ...fields.map((field) => custom[field.key] ?? null),
      person.name_language,
      coverageOf(person.recording_status, person.guide_user_id === null ? null : { approved_at: person.guide_approved_at }),
      person.respelling,
      person.ipa,
      person.not_like,
      person.guide_approved_at,
      person.preferred_name,
      person.pronouns,
      person.language,
      invitationStatus(person),
      REVIEW_STATUS[person.recording_status],
    ];
  };
}

function csvStream(
  people: () => AsyncGenerator<ExportPersonRow>,
  toCells: (person: ExportPersonRow) => Cells,
  columns: string[],
  layout: CsvLayout,
  signal: AbortSignal | undefined,
): Readable {
  async function* lines() {
    yield layout.start + csvLine(columns, layout.separator);
    for await (const person of people()) {
      signal?.throwIfAborted();
      yield csvLine(toCells(person), layout.separator);
    }
  }
  return readableFrom(lines());
}

/** A byte stream of the generator's strings that stops the generator when destroyed. */
function readableFrom(lines: AsyncGenerator<string>): Readable {
  const out = new PassThrough();
  void (async () => {
    try {
      for await (const line of lines) {
        if (out.destroyed) return;
        if (!out.write(line)) await Promise.race([once(out, 'drain'), once(out, 'close')]);
      }
      out.end();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return out;
}

/**
 * The ZIP: `<row>-<display name>.mp3` for each person with a recording (row = their row in the
 * CSV, header = row 1), stored uncompressed (MP3 does not compress), then `people.csv` with an
 * extra `audio_file` column naming each person's file (before the pronunciation columns, where it always was).
 */
function zipStream(
  deps: ExportsDeps,
  people: () => AsyncGenerator<ExportPersonRow>,
  toCells: (person: ExportPersonRow) => Cells,
  columns: string[],
  layout: CsvLayout,
  signal: AbortSignal | undefined,
): Readable {
  const zip = new ZipFile();
  const out = zip.outputStream as PassThrough;
  const stop = new AbortController();
  const abort = () => stop.abort();
  signal?.addEventListener('abort', abort, { once: true });
  // The reader (the HTTP response) destroyed the stream: the client went away.
  out.once('close', () => {
    if (!out.readableEnded) abort();
  });

  void (async () => {
    let dir: string | null = null;
    let csv: WriteStream | null = null;
    /** The audio stream opened ahead of its turn (at most one besides the current). */
    let ahead: Promise<Readable | null> | null = null;
    try {
      dir = await makeWorkFolder('export');
      const csvPath = path.join(dir, ZIP_CSV_NAME);
      const file = createWriteStream(csvPath, { mode: 0o600 });
      csv = file;
      const writeCsv = async (text: string) => {
        if (!file.write(text)) await once(file, 'drain');
      };
      await writeCsv(layout.start + csvLine(withAudioFile(columns, 'audio_file'), layout.separator));
      const open = (person: ExportPersonRow) => (person.blob_key === null ? null : deps.blobs.stream(person.blob_key));
      const iterator = people()[Symbol.asyncIterator]();
      let next = await iterator.next();
      if (!next.done) ahead = open(next.value);
      let row = 1;
      while (!next.done) {
        stop.signal.throwIfAborted();
        const person = next.value;
        const audio = await ahead;
        ahead = null;
        row++;
        next = await iterator.next();
        if (!next.done) ahead = open(next.value);
        let fileName: string | null = null;
        if (audio) {
          fileName = audioFileName(row, person.display_name);
          const mtime = new Date(person.recorded_at ?? Date.now());
          zip.addReadStream(audio, fileName, { compress: false, mtime, mode: 0o100644 });
          await untilConsumed(audio, stop.signal);
        } else if (person.blob_key !== null) {
          deps.logger.warn({ user_id: person.id }, 'export: a recording has no audio file; exported without it');
        }
        await writeCsv(csvLine(withAudioFile(toCells(person), fileName), layout.separator));
      }
      file.end();
      await finished(file);
      stop.signal.throwIfAborted();
      zip.addFile(csvPath, ZIP_CSV_NAME, { compress: true, mtime: new Date(), mode: 0o100644 });
      zip.end();
      // The temporary CSV is removed once the ZIP has read it.
      await finished(out).catch(() => undefined);
    } catch (err) {
      void ahead?.then((stream) => stream?.destroy()).catch(() => undefined);
      csv?.destroy();
      if (!stop.signal.aborted) deps.logger.error({ err }, 'export failed');
      out.destroy(stop.signal.aborted ? undefined : (err as Error));
    } finally {
      signal?.removeEventListener('abort', abort);
      if (dir) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  })();
  return out;
}

/** Resolves once the ZIP has read the whole audio stream; rejects (and closes it) when aborted. */
async function untilConsumed(audio: Readable, signal: AbortSignal): Promise<void> {
  const onAbort = () => audio.destroy(new Error('export aborted'));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await finished(audio);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  signal.throwIfAborted();
}
