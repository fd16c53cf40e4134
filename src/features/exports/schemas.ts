import { Type } from 'typebox';

export const ExportParams = Type.Object({ collection_id: Type.String({ maxLength: 64 }) });

export const ExportQuery = Type.Object(
  {
    format: Type.Enum(['csv', 'zip'] as const, {
      description: '`csv`: the people as a spreadsheet; `zip`: their recordings as MP3 files plus that spreadsheet.',
    }),
  },
  { additionalProperties: false },
);

/** The OpenAPI description of the files answered (the body is a stream, not serialised JSON). */
export const ExportCsv = Type.String({
  description: 'UTF-8 with a byte-order mark (`text/csv; charset=utf-8`), sent as an attachment named after the collection.',
});
export const ExportZip = Type.String({
  format: 'binary',
  description: 'The MP3 files and `people.csv`, sent as an attachment named after the collection.',
});
