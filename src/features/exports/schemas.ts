import { Type } from 'typebox';

export const ExportParams = Type.Object({ collection_id: Type.String({ maxLength: 64 }) });

export const ExportQuery = Type.Object(
  {
    format: Type.Enum(['csv', 'zip'] as const, {
      description: '`csv`: the people as a spreadsheet; `zip`: their recordings as MP3 files plus that spreadsheet.',
    }),
    separator: Type.Optional(
      Type.Enum(['comma', 'semicolon'] as const, {
        default: 'comma',
        description:
          'What separates the CSV’s cells: `comma` (RFC 4180), or `semicolon`, which Excel opens as columns where the decimal mark is a comma (much of Europe).',
      }),
    ),
    bom: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          'Start the CSV with a UTF-8 byte-order mark, so Excel reads accents and other scripts right; `false` for tools that expect plain UTF-8.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** How the CSV is written (the query's `separator` and `bom`). */
export interface CsvOptions {
  separator: 'comma' | 'semicolon';
  bom: boolean;
}
export const DEFAULT_CSV_OPTIONS: CsvOptions = { separator: 'comma', bom: true };

/** The OpenAPI description of the files answered (the body is a stream, not serialised JSON). */
export const ExportCsv = Type.String({
  description:
    'UTF-8 (`text/csv; charset=utf-8`), with a byte-order mark unless `bom=false`, comma- or semicolon-separated, sent as an attachment named after the collection.',
});
export const ExportZip = Type.String({
  format: 'binary',
  description: 'The MP3 files and `people.csv`, sent as an attachment named after the collection.',
});
