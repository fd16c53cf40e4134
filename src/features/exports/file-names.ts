/**
 * Names of the audio files inside an export ZIP: `<row>-<display name>.mp3`, where `row` is the
 * person's row in the export's CSV (header = row 1). The row number makes every name unique (also
 * on case-insensitive file systems); the display name is cleaned so the file can be extracted on
 * Windows, macOS and Linux alike.
 */

/** Characters Windows refuses in file names, path separators, and every control character. */
const UNSAFE = /[<>:"/\\|?*\u0000-\u001F\u007F-\u009F]/g;
/** Bytes kept from the display name: well under the 255-byte limit of common file systems. */
const MAX_NAME_BYTES = 150;

/** The display name as a safe file-name part: unsafe characters become spaces, trimmed, shortened on a character boundary. */
export function safeFileNamePart(name: string, fallback = 'person'): string {
  let clean = name.normalize('NFC').replace(UNSAFE, ' ').replace(/\s+/g, ' ').trim();
  // Windows drops trailing dots and spaces; a name of only dots would climb out of the folder.
  clean = clean.replace(/[. ]+$/, '').replace(/^[. ]+/, '');
  let out = '';
  for (const char of clean) {
    if (Buffer.byteLength(out + char) > MAX_NAME_BYTES) break;
    out += char;
  }
  return out.trim() || fallback;
}

export const audioFileName = (row: number, displayName: string): string => `${row}-${safeFileNamePart(displayName)}.mp3`;

/**
 * `Content-Disposition` for a download: an ASCII `filename` for old clients and the exact name
 * as RFC 5987 `filename*` (UTF-8, percent-encoded).
 */
export function attachmentDisposition(baseName: string, extension: string): string {
  const name = `${safeFileNamePart(baseName, 'export')}.${extension}`;
  const ascii = name.replace(/[^\x20-\x7E]/g, '_').replace(/["\\;%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
